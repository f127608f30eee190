"""The board geography: provinces, coasts, adjacency, supply centres, powers.

A map is data (a YAML file such as ``maps/standard.yaml``); nothing here assumes the standard
map. Adjacency is kept at *location* level: an army location is a province id (``mun``), a fleet
location is a province id or a named coast (``spa/nc``). Occupation and supply centres belong
to the province as a whole.
"""

from __future__ import annotations

import os
import re
import unicodedata
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Iterator, Mapping

from .kinds import UnitKind
from ..errors import InputError, quoted
from .geometry import check_id
from ..inputs import LoadError, decode
from ..yaml_lines import key_line, line_of, load_yaml, parse_yaml
from ..shapes import Anything, Choice, Fields, Flag, ListOf, MapOf, Opt, Text

PROVINCE_TYPES = ("land", "coast", "sea", "impassable")


@lru_cache(maxsize=65536)
def normalize_name(text: str) -> str:
    """Folds a written name to its lookup key: case, dots, hyphens and spacing do not matter.
    Cached: the same few hundred names are looked up again and again."""
    text = text.lower().replace(".", " ").replace("-", " ").replace("_", " ")
    return re.sub(r"\s+", " ", text).strip()


@dataclass(frozen=True)
class Province:
    id: str
    name: str
    type: str
    center: bool = False
    home: str | None = None
    capital: bool = False  # a time centre of the sustain phase (docs/rules.md §6.8.3)
    coasts: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    @property
    def is_sea(self) -> bool:
        return self.type == "sea"

    @property
    def is_land(self) -> bool:
        return self.type == "land"

    @property
    def is_coastal(self) -> bool:
        return self.type == "coast"


@dataclass(frozen=True, eq=False)
class GameMap:
    """Compared and hashed by identity: a loaded map is one value shared by everything using it."""

    name: str
    title: str
    powers: tuple[str, ...]
    provinces: Mapping[str, Province]
    coast_names: Mapping[str, str]
    army_edges: frozenset[tuple[str, str]]
    fleet_edges: frozenset[tuple[str, str]]
    start: Mapping[str, tuple[str, ...]]
    power_aliases: Mapping[str, str] = field(default_factory=dict)
    coast_aliases: Mapping[str, str] = field(default_factory=dict)
    source: str = "standard"  # how to load it again: a shipped map's name or a file's absolute path
    geometry_ref: object = field(default=None, compare=False, repr=False)  # inline Geometry, or (file, base) to read

    @cached_property
    def geometry(self):
        """The map's drawing (``geometry``), or None when it has none. A geometry kept in a file of its
        own is read when first needed, and checked then to agree with the listed adjacency."""
        from .geometry import Geometry, load_geometry_file

        ref = self.geometry_ref
        if ref is None or isinstance(ref, Geometry):
            return ref
        return load_geometry_file(self, *ref)

    # -- lookups -----------------------------------------------------------------

    @cached_property
    def _province_index(self) -> Mapping[str, str]:
        index: dict[str, str] = {}
        for prov in self.provinces.values():
            for written in (prov.id, prov.name, *prov.aliases):
                index[normalize_name(written)] = prov.id
        return MappingProxyType(index)

    @cached_property
    def _power_index(self) -> Mapping[str, str]:
        index = {normalize_name(p): p for p in self.powers}
        index.update({normalize_name(a): p for a, p in self.power_aliases.items()})
        return MappingProxyType(index)

    @cached_property
    def _coast_index(self) -> Mapping[str, str]:
        index = {normalize_name(c): c for c in self.coast_names}
        index.update({normalize_name(n): c for c, n in self.coast_names.items()})
        index.update({normalize_name(a): c for a, c in self.coast_aliases.items()})
        return MappingProxyType(index)

    @cached_property
    def longest_name_words(self) -> int:
        """How many words the longest province name has: how far a parser must look ahead."""
        return max(len(key.split()) for key in self._province_index)

    @cached_property
    def _name_prefixes(self) -> Mapping[str, frozenset[str]]:
        indexes = {"province": self._province_index, "power": self._power_index, "coast": self._coast_index}
        out = {}
        for kind, index in indexes.items():
            words = [key.split(" ") for key in index]
            out[kind] = frozenset(" ".join(w[:n]) for w in words for n in range(1, len(w) + 1))
        return MappingProxyType(out)

    def name_prefixes(self, kind: str) -> frozenset[str]:
        """The first word, the first two words, ... of every name of this kind (``province``, ``power``,
        ``coast``), normalised: a parser reading a name word by word can stop as soon as no name
        begins with the words it has read."""
        return self._name_prefixes[kind]

    def province(self, text: str) -> str | None:
        """The province id a written name or abbreviation denotes, or None."""
        return self._province_index.get(normalize_name(text))

    def province_of_word(self, word: str) -> str | None:
        """``province`` for a name of ASCII letters alone (``Mun``, ``Bohemia``), as the order parser's
        fast path reads them: such a word has no dot, hyphen or space to fold, only its case, so the
        full normalisation (a regular expression a name) is skipped for the many names of a large step."""
        return self._province_index.get(word.lower())

    def power(self, text: str) -> str | None:
        return self._power_index.get(normalize_name(text))

    def coast(self, text: str) -> str | None:
        return self._coast_index.get(normalize_name(text))

    # -- geography ---------------------------------------------------------------

    @cached_property
    def neighbours(self) -> Mapping[tuple[str, str], tuple[str, ...]]:
        """(kind, location) → the locations a unit of that kind there may step to."""
        out: dict[tuple[str, str], list[str]] = {}
        for kind in UnitKind:
            for a, b in sorted(self.edges(kind)):
                out.setdefault((kind, a), []).append(b)
        return MappingProxyType({k: tuple(v) for k, v in out.items()})

    @cached_property
    def step_provinces(self) -> Mapping[tuple[str, str], frozenset[str]]:
        """(kind, location) → the provinces a unit of that kind there may step into (some coast of):
        what supports ask again and again of the same units (``neighbours`` by province)."""
        return MappingProxyType({k: frozenset(self.province_of(loc) for loc in v) for k, v in self.neighbours.items()})

    def edges(self, kind: str) -> frozenset[tuple[str, str]]:
        return self.army_edges if kind == UnitKind.ARMY else self.fleet_edges

    def locations(self, province: str, kind: str) -> tuple[str, ...]:
        """Where a unit of this kind can stand in the province (empty when it cannot)."""
        prov = self.provinces[province]
        if kind == UnitKind.ARMY:
            return (prov.id,) if prov.type in ("land", "coast") else ()
        if prov.type == "sea":
            return (prov.id,)
        if prov.type == "coast":
            return tuple(f"{prov.id}/{c}" for c in prov.coasts) if prov.coasts else (prov.id,)
        return ()

    def unit_location(self, kind: str, province: str, coast: str | None) -> str:
        """Where a unit of this kind stands when written in this province with this coast; ValueError
        says why it cannot (a fleet inland, an army at sea, a fleet on a split coast without its coast)."""
        prov = self.provinces.get(province)
        if prov is None:
            raise ValueError(f"unknown province {province!r}")
        locations = self.locations(province, kind)
        if not locations:
            raise ValueError(f"a{'n army' if kind == UnitKind.ARMY else ' fleet'} cannot stand in {prov.name}")
        if kind == UnitKind.FLEET and len(locations) > 1:
            loc = f"{province}/{coast}"
            if loc not in locations:
                raise ValueError(f"name the coast of {prov.name} ({', '.join(locations)})")
            return loc
        return locations[0]

    @staticmethod
    def province_of(location: str) -> str:
        return location.split("/", 1)[0]

    @cached_property
    def sea_provinces(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.provinces.values() if p.is_sea)

    # -- convoy geography: seas, their shores, chains of seas -----------------------

    @cached_property
    def _sea_shores(self) -> Mapping[str, frozenset[str]]:
        """Sea → the coastal provinces a fleet there may step to (through any of their coasts)."""
        out: dict[str, set[str]] = {}
        for a, b in self.fleet_edges:
            pa, pb = self.province_of(a), self.province_of(b)
            if self.provinces[pa].is_sea and self.provinces[pb].is_coastal:
                out.setdefault(pa, set()).add(pb)
        return MappingProxyType({k: frozenset(v) for k, v in out.items()})

    @cached_property
    def _seas_next(self) -> Mapping[str, frozenset[str]]:
        """Coastal province → the seas whose shore it is (the inverse of ``_sea_shores``)."""
        out: dict[str, set[str]] = {}
        for sea, shore in self._sea_shores.items():
            for p in shore:
                out.setdefault(p, set()).add(sea)
        return MappingProxyType({k: frozenset(v) for k, v in out.items()})

    @cached_property
    def _sea_neighbours(self) -> Mapping[str, frozenset[str]]:
        """Sea → the seas a fleet there may step to."""
        out: dict[str, set[str]] = {}
        for a, b in self.fleet_edges:
            if self.provinces[self.province_of(a)].is_sea and self.provinces[self.province_of(b)].is_sea:
                out.setdefault(a, set()).add(b)
        return MappingProxyType({k: frozenset(v) for k, v in out.items()})

    def seas_next_to(self, province: str) -> frozenset[str]:
        """The seas touching a coastal province: where a convoy of an army there starts or ends."""
        return self._seas_next.get(province, frozenset())

    def adjacent_seas(self, sea: str) -> frozenset[str]:
        """The seas next to ``sea``: the links of a chain of convoying fleets."""
        return self._sea_neighbours.get(sea, frozenset())

    def shore(self, seas: Iterable[str]) -> set[str]:
        """The coastal provinces next to these seas: where an army convoyed through them may go."""
        out: set[str] = set()
        for s in seas:
            out |= self._sea_shores.get(s, frozenset())
        return out

    def sea_region(self, start: Iterable[str], seas: Iterable[str]) -> set[str]:
        """``start`` and the seas among ``seas`` linked to it through a chain of adjacent seas among
        ``seas``: the only seas a convoy route through ``start`` can use, when ``seas`` are the seas
        holding fleets."""
        allowed = set(seas)
        region = set(start)
        todo = list(region)
        while todo:
            s = todo.pop()
            for nxt in self.adjacent_seas(s):
                if nxt in allowed and nxt not in region:
                    region.add(nxt)
                    todo.append(nxt)
        return region

    @cached_property
    def supply_centers(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.provinces.values() if p.center)

    @cached_property
    def capitals(self) -> tuple[str, ...]:
        """The time centres of the sustain phase: the provinces the map file marks ``capital: true``."""
        return tuple(p.id for p in self.provinces.values() if p.capital)

    @cached_property
    def _homes(self) -> Mapping[str, tuple[str, ...]]:
        homes: dict[str, list[str]] = {}
        for p in self.provinces.values():
            if p.center and p.home:
                homes.setdefault(p.home, []).append(p.id)
        return MappingProxyType({power: tuple(ids) for power, ids in homes.items()})

    def home_centers(self, power: str) -> tuple[str, ...]:
        """The power's home centres (asked after every step for every power: read once)."""
        return self._homes.get(power, ())

    def full_name(self, location: str) -> str:
        prov, _, coast = location.partition("/")
        name = self.provinces[prov].name
        return f"{name} ({self.coast_names.get(coast, coast)})" if coast else name

    def short_name(self, location: str) -> str:
        prov, _, coast = location.partition("/")
        text = prov.capitalize()
        return f"{text}/{coast}" if coast else text


# -- loading -------------------------------------------------------------------------


def _fail(path: str, message: str, at: object = None) -> InputError:
    """A map error at the line ``at`` (a loaded value) was written on."""
    return LoadError(path, line_of(at), message)


def _parse_edges(path: str, key: str, raw: object, locations: set[str]) -> frozenset[tuple[str, str]]:
    if not isinstance(raw, list):
        raise _fail(path, f"'{key}' must be a list of 'a-b' edges")
    edges: set[tuple[str, str]] = set()
    for item in raw:
        parts = str(item).split("-")
        if len(parts) != 2 or not all(parts):
            raise _fail(path, f"'{key}' edge {str(item)!r} is not of the form a-b", item)
        a, b = (p.strip().lower() for p in parts)
        for loc in (a, b):
            if loc not in locations:
                raise _fail(path, f"'{key}' edge {str(item)!r} names unknown location {loc!r}", item)
        edges.add((a, b))
        edges.add((b, a))
    return frozenset(edges)


UNIT_WORDS = frozenset({"a", "army", "f", "fleet"})
"""The words that give a unit's kind in the order notation (``notation._ARMY``, ``_FLEET``): a power
(or an alias) of that name would be read as the nationality in ``A Vienna``, leaving the unit no kind."""


def _check_power_names(path: str, powers_raw: Mapping) -> None:
    """A map's power names, and their aliases and adjectives, each name one power, and each name is one
    line of text. Orders and scenarios look a power up by its name folded (``normalize_name``: case,
    dots, hyphens, underscores and spacing do not count) and the solver spells it in lower case
    (``solver.terms.const``): two names equal when folded would be one power there, silently. A
    control character or a line break (what ``str.splitlines`` breaks at) would cut a line of text
    output, of an order file or of the solver's program in two; a colon would end the name early in an
    order line ``Power: order``, and a ``#`` first would make such a line a comment; a name that is a
    unit's kind (``UNIT_WORDS``) would be read as a nationality. Anything else may stand in a name,
    markup and quotes too: every output escapes it."""
    owner: dict[str, str] = {}
    for power in powers_raw:
        name = str(power)
        bad = next((ch for ch in name if unicodedata.category(ch) in ("Cc", "Zl", "Zp")), None)
        if bad is not None:
            raise _fail(path, f"power name {quoted(name, 40)} holds the character U+{ord(bad):04X} (a control "
                        "character or a line break): a power name is one line of text", power)
        if ":" in name:
            raise _fail(path, f"power name {quoted(name, 40)} holds ':', which ends a power's name in an order "
                        "line (Austria: A Vie - Tyr)", power)
        if name.lstrip().startswith("#"):
            raise _fail(path, f"power name {quoted(name, 40)} begins with '#', which makes an order line "
                        "written with it a comment", power)
        if not any(ch.isalnum() for ch in name):
            raise _fail(path, f"power name {quoted(name, 40)} names nothing: a power name holds a letter or a digit",
                        power)
        key = normalize_name(name)
        if key in UNIT_WORDS:
            raise _fail(path, f"power name {quoted(name, 40)} is a unit's kind in orders (A, Army, F, Fleet): "
                        "'A Vienna' would be read as a unit of that power without its kind", power)
        if key in owner:
            raise _fail(path, f"power names {quoted(owner[key], 40)} and {quoted(name, 40)} name the same power "
                        "(power names are compared ignoring case, dots, hyphens, underscores and spacing)", power)
        owner[key] = name
    for power, details in powers_raw.items():
        for alias in (details or {}).get("adjective"), *((details or {}).get("aliases") or ()):
            if alias is None:
                continue
            other = owner.get(normalize_name(str(alias)))
            if normalize_name(str(alias)) in UNIT_WORDS:
                raise _fail(path, f"the alias {quoted(str(alias), 40)} of {str(power)[:40]} is a unit's kind in "
                            "orders (A, Army, F, Fleet)", alias if line_of(alias) else power)
            if other is not None and other != str(power):
                raise _fail(path, f"the alias {quoted(str(alias), 40)} of {str(power)[:40]} names another power, "
                            f"{other[:40]} (names and aliases are compared ignoring case, dots, hyphens, underscores "
                            "and spacing)", alias if line_of(alias) else power)
            owner.setdefault(normalize_name(str(alias)), str(power))


_NAMES = Opt(ListOf(Text(numbers=True)))
MAP_SCHEMA = Fields({
    "name": Text(numbers=True), "title": Opt(Text(numbers=True)),
    "powers": MapOf(Text(), Opt(Fields({"adjective": Opt(Text()), "aliases": _NAMES}))),
    "coasts": Opt(MapOf(Text(), Opt(Fields({"name": Opt(Text()), "aliases": _NAMES})))),
    "provinces": MapOf(Text(), Fields({"name": Text(numbers=True), "type": Opt(Choice(PROVINCE_TYPES)), "center": Opt(Flag()), "capital": Opt(Flag()),
                                       "home": Opt(Text()), "coasts": Opt(ListOf(Text())), "aliases": _NAMES},
                                      required=("name",))),
    # adjacency lists, or geometry to derive them from (a mapping, or the name of a file beside the map)
    "army": Opt(ListOf(Text())), "fleet": Opt(ListOf(Text())), "geometry": Opt(Anything()),
    "start": Opt(MapOf(Text(), Opt(ListOf(Text())))),
}, required=("name", "powers", "provinces"))
"""The shape of a map file: every section's type, checked (with key path and line) before its meaning."""


def parse_map(data: object, path: str = "<map>") -> GameMap:
    """Builds a map from loaded YAML data, checking it enough that errors name what is wrong."""
    if not isinstance(data, dict):
        raise _fail(path, "a map file must be a mapping")
    MAP_SCHEMA.check(data, "", path, 1)
    for key in ("name", "powers", "provinces"):
        if key not in data:
            raise _fail(path, f"missing key '{key}'")
    geometry = None
    if isinstance(data.get("geometry"), dict):
        from .geometry import parse_geometry

        geometry = parse_geometry(data["geometry"], path)
    for key in UnitKind:
        if key not in data and geometry is None:
            raise _fail(path, f"missing key '{key}' (or a 'geometry' to derive it from)")
    powers_raw = data["powers"]
    if not isinstance(powers_raw, dict):
        raise _fail(path, "'powers' must map power names to their details")
    _check_power_names(path, powers_raw)
    powers = tuple(str(p) for p in powers_raw)
    power_aliases: dict[str, str] = {}
    for power, details in powers_raw.items():
        details = details or {}
        for alias in (details.get("adjective"), *(details.get("aliases") or ())):
            if alias:
                power_aliases[str(alias)] = str(power)
    coasts_raw = data.get("coasts") or {}
    coast_names = {str(c): str((d or {}).get("name", c)) for c, d in coasts_raw.items()}
    coast_aliases = {str(a): str(c) for c, d in coasts_raw.items() for a in (d or {}).get("aliases") or ()}
    for coast in coasts_raw:
        check_id(coast, "coast id", path, line_of(coast), LoadError)
    provinces: dict[str, Province] = {}
    for key, details in (data["provinces"] or {}).items():
        pid = check_id(key, "province id", path, line_of(key), LoadError).lower()
        if pid in provinces:
            first = next(str(k) for k in data["provinces"] if str(k).lower() == pid)
            raise _fail(path, f"province ids {first[:24]!r} and {str(key)[:24]!r} name the same province "
                        "(ids are compared ignoring case)", key)
        if isinstance(details, dict) and "type" not in details and geometry is not None:
            from .geometry import province_type

            details = {**details, **province_type(geometry, pid, path)}
        if not isinstance(details, dict) or "name" not in details or "type" not in details:
            raise _fail(path, f"province {pid!r} needs a name and a type", key)
        if details["type"] not in PROVINCE_TYPES:
            raise _fail(path, f"province {pid!r} has unknown type {details['type']!r}", key)
        home = None if details.get("home") is None else str(details["home"])
        if home is not None and home not in powers:
            raise _fail(path, f"province {pid!r} is home to unknown power {home!r}", details["home"])
        coasts = tuple(str(c) for c in details.get("coasts") or ())
        for c in coasts:
            if c not in coast_names:
                raise _fail(path, f"province {pid!r} has undeclared coast {c!r}", key)
        provinces[pid] = Province(
            id=pid,
            name=str(details["name"]),
            type=str(details["type"]),
            center=bool(details.get("center", False)),
            home=home,
            capital=bool(details.get("capital", False)),
            coasts=coasts,
            aliases=tuple(str(a) for a in details.get("aliases") or ()),
        )
    army_locs = {p.id for p in provinces.values() if p.type in ("land", "coast")}
    fleet_locs = {p.id for p in provinces.values() if p.type in ("sea", "coast") and not p.coasts}
    fleet_locs |= {f"{p.id}/{c}" for p in provinces.values() for c in p.coasts}
    start_raw = data.get("start") or {}
    start = {}
    for power, units in start_raw.items():
        if power not in powers:
            raise _fail(path, f"'start' names unknown power {str(power)!r}", power)
        start[str(power)] = tuple(str(u) for u in units or ())
    if geometry is not None:
        from .geometry import checked_edges

        army_edges, fleet_edges = checked_edges(
            geometry, provinces, path,
            _parse_edges(path, UnitKind.ARMY, data[UnitKind.ARMY], army_locs) if UnitKind.ARMY in data else None,
            _parse_edges(path, UnitKind.FLEET, data[UnitKind.FLEET], fleet_locs) if UnitKind.FLEET in data else None)
    else:
        army_edges = _parse_edges(path, UnitKind.ARMY, data[UnitKind.ARMY], army_locs)
        fleet_edges = _parse_edges(path, UnitKind.FLEET, data[UnitKind.FLEET], fleet_locs)
    geometry_ref: object = geometry
    if isinstance(data.get("geometry"), str):
        geometry_ref = (str(data["geometry"]), path)
    elif "geometry" in data and geometry is None:
        raise _fail(path, "'geometry' must be a mapping or the name of a geometry file")
    return GameMap(
        name=str(data["name"]),
        title=str(data.get("title", data["name"])),
        powers=powers,
        provinces=MappingProxyType(provinces),
        coast_names=MappingProxyType(coast_names),
        army_edges=army_edges,
        fleet_edges=fleet_edges,
        start=MappingProxyType(start),
        power_aliases=MappingProxyType(power_aliases),
        coast_aliases=MappingProxyType(coast_aliases),
        geometry_ref=geometry_ref,
    )


_CACHE: dict[str, GameMap] = {}

# Inside ``shipped_maps_only`` a map is named only by the name of a map shipped with the package: a
# server reading a game someone uploaded must open no file of its own disk for it. A context
# variable, as the solver's limits are, so that it holds for the block and the thread it is set in.
_SHIPPED_ONLY: ContextVar[bool] = ContextVar("fivedp_shipped_maps_only", default=False)


def shipped_maps() -> tuple[str, ...]:
    """The names of the maps shipped with the package (``fivedp_asp/maps/NAME.yaml``)."""
    folder = resources.files("fivedp_asp") / "maps"
    return tuple(sorted(f.name[:-5] for f in folder.iterdir()
                        if f.name.endswith(".yaml") and not f.name.endswith("-geometry.yaml")))


@contextmanager
def shipped_maps_only() -> Iterator[None]:
    """Every map loaded inside the block must be a map shipped with the package, named by its name:
    any other name (a path, existing or not, a symbolic link, an unknown name) is refused with the
    same message, which says nothing of the name or of the disk."""
    token = _SHIPPED_ONLY.set(True)
    try:
        yield
    finally:
        _SHIPPED_ONLY.reset(token)


def load_map(name_or_path: str = "standard") -> GameMap:
    """Loads a map by name (shipped with the package) or by file path; maps are cached, being immutable.
    Inside ``shipped_maps_only``, by the name of a shipped map only."""
    if _SHIPPED_ONLY.get() and name_or_path not in shipped_maps():
        raise InputError(f"only the maps shipped with fivedp can be played here ({', '.join(shipped_maps())}), "
                         "named by their name")
    if name_or_path in _CACHE:
        return _CACHE[name_or_path]
    candidate = Path(name_or_path)
    if candidate.suffix in (".yaml", ".yml") and os.path.exists(candidate):
        path = str(candidate)
        data = load_yaml(candidate, "map file")
    else:
        if not re.fullmatch(r"[a-z0-9_-]{1,64}", name_or_path):
            raise InputError(f"unknown map {quoted(name_or_path)}: not a map name or a .yaml file")
        resource = resources.files("fivedp_asp") / "maps" / f"{name_or_path}.yaml"
        if not resource.is_file():
            raise InputError(f"unknown map {name_or_path!r}: no such map file")
        path = f"maps/{name_or_path}.yaml"
        data = parse_yaml(decode(resource.read_bytes(), path), path)
    game_map = parse_map(data, path)
    source = str(candidate.resolve()) if candidate.suffix in (".yaml", ".yml") and os.path.exists(candidate) else name_or_path
    game_map = replace(game_map, source=source)
    _CACHE[name_or_path] = game_map
    return game_map
