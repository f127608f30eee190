"""Order notation: parsing order lines into ``orders`` values and printing them back (docs/rules.md §6.2).

Both seed notations are read — the dash form of MDATC (``A b-Munich@3``) and the colon form of
seed 001 (``Army bravo:Munich:Spring 1902``) — together with classic DATC/Diplomacy notation in any
case and spacing. Output uses one canonical form (``A b-Mun@3 - Tyr``) that parses back to the same
order. Anything that cannot be read raises ``NotationError`` naming the 0-based column of the first
character not understood, so a user can find the mistake in a long order file.

The parser is a small recursive descent over the original text (not over tokens), because province
names contain spaces, hyphens and dots: a province is the *longest* run of words the map knows, so
``Mid-Atlantic Ocean`` is one province while in ``A Mun-Tyr`` the hyphen is a move.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import MappingProxyType
from typing import Callable, Iterable, NoReturn, TypeVar

from .kinds import OrderKind, UnitKind
from ..errors import NotationError
from ..limits import MAX_ORDER_CHARS, MAX_TIMELINES, MAX_TURN
from .map import GameMap
from .orders import (
    Build, Convoy, Disband, Hold, JumpAssist, Move, OpenConvoy, Order, SupportHold, SupportMove,
    Sustain, UnitSpec, Waive, Where,
)

# -- timelines and turns -----------------------------------------------------------------------

NATO = tuple(
    "alfa bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa "
    "quebec romeo sierra tango uniform victor whiskey xray yankee zulu".split()
)
SECONDARIES = tuple(
    "prime second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split()
)
"""Long secondary designations 1, 2, 3, ...; beyond these the long form uses digits (``alfa21``)."""
_PRIMARY_WORDS = MappingProxyType({word: i for i, word in enumerate(NATO)} | {"alpha": 0, "juliet": 9})
"""Primary words by index; common spellings are accepted, output uses the ICAO spelling of ``NATO``."""
_SECONDARY_WORDS = MappingProxyType({word: i + 1 for i, word in enumerate(SECONDARIES)})


def _alternation(words: Iterable[str]) -> str:
    """A regex alternation trying longer words first, so that ``fourteenth`` is not read as ``fourth``."""
    return "|".join(sorted(map(re.escape, words), key=len, reverse=True))


_TIMELINE = (
    rf"(?:(?P<word>{_alternation(_PRIMARY_WORDS)})(?P<wordsec>{_alternation(_SECONDARY_WORDS)}|\d+)?"
    r"|(?P<letter>[a-z])(?P<lettersec>\d+)?)"
)
# ASCII only: ignoring case over all of Unicode would take the long s, the dotless i and the Kelvin
# sign for letters that the word lookup (by lower()) does not know
_TIMELINE_RE = re.compile(_TIMELINE, re.IGNORECASE | re.ASCII)
_TIMELINE_PREFIX_RE = re.compile(_TIMELINE + "[-:]", re.IGNORECASE | re.ASCII)
_TURN_RE = re.compile(
    r"(?:(?P<season>spring|fall|autumn|winter|s|f|w)\s*(?P<year>\d{4}|\d{2})|(?P<number>\d+))(?![^\W_])",
    re.IGNORECASE,
)
FIRST_YEAR = 1901


def parse_timeline(text: str) -> int:
    """The index of a timeline designation: ``a`` = 0, ``b1`` = ``bravoprime`` = 27 (docs/rules.md §6.1)."""
    match = _TIMELINE_RE.fullmatch(text.strip())
    if match is None:
        raise NotationError(text, 0, f"unknown timeline '{text.strip()}'")
    return _timeline_value(match)


def _timeline_value(match: re.Match[str]) -> int:
    """The timeline index; a designation beyond ``limits.MAX_TIMELINES`` is refused here, before any
    arithmetic, so that no huge number can reach the solver (where it would wrap to a real board)."""
    if match["letter"]:
        primary, secondary = ord(match["letter"].lower()) - ord("a"), match["lettersec"] or "0"
    else:
        primary, secondary = _PRIMARY_WORDS[match["word"].lower()], match["wordsec"] or "0"
    if secondary.isdigit() and len(secondary.lstrip("0")) > len(str(MAX_TIMELINES)):
        number = MAX_TIMELINES
    else:
        number = int(secondary) if secondary.isdigit() else _SECONDARY_WORDS[secondary.lower()]
    index = primary + 26 * number
    if index >= MAX_TIMELINES:
        raise NotationError(match.string, match.start(),
                            f"timeline '{match.group().rstrip('-:')}' is beyond the last timeline "
                            f"({timeline_name(MAX_TIMELINES - 1)}; at most {MAX_TIMELINES:,} timelines)")
    return index


def timeline_name(index: int, long: bool = False) -> str:
    """The designation of timeline ``index``: primary letter = index mod 26, secondary = index div 26."""
    if index < 0:
        raise ValueError(f"timeline index must not be negative, got {index}")
    primary, secondary = index % 26, index // 26
    if not long:
        return chr(ord("a") + primary) + (str(secondary) if secondary else "")
    if secondary == 0:
        return NATO[primary]
    suffix = SECONDARIES[secondary - 1] if secondary <= len(SECONDARIES) else str(secondary)
    return NATO[primary] + suffix


def parse_turn(text: str) -> int:
    """A turn number from ``3``, ``S02``, ``Spring 1902``, ``F1901``, ``Fall02``, ``W01`` ...

    Spring of year Y is turn 2*(Y-1901), Fall the turn after; two-digit years mean 19YY. Winter Y
    names the adjustment phase after Fall Y, which belongs to the board of Spring Y+1 (the winter
    adjustments happen on that board, before its movement), so ``Winter 1901`` is turn 2.
    """
    match = _TURN_RE.fullmatch(text.strip())
    if match is None:
        raise NotationError(text, 0, f"unknown turn '{text.strip()}'")
    turn = _turn_value(match)
    if turn is None:
        raise NotationError(text, 0, f"turn '{text.strip()}' is before Spring {FIRST_YEAR}")
    return turn


def _turn_value(match: re.Match[str]) -> int | None:
    """The turn a ``_TURN_RE`` match denotes, or None when it lies before the first turn."""
    if match["number"] is not None:
        digits = match["number"].lstrip("0")
        turn = MAX_TURN + 1 if len(digits) > len(str(MAX_TURN)) else int(match["number"])
    else:
        year = int(match["year"]) + (1900 if len(match["year"]) == 2 else 0)
        season = match["season"].lower()[0]
        turn = 2 * (year - FIRST_YEAR) + {"s": 0, "f": 1, "a": 1, "w": 2}[season]
        if turn < 0:
            return None
    if turn > MAX_TURN:
        # refused before it reaches the solver, where a turn of 2**32 would wrap to turn 0
        raise NotationError(match.string, match.start(),
                            f"turn '{match.group()}' is beyond the last turn ({MAX_TURN:,})")
    return turn


# -- keywords ----------------------------------------------------------------------------------


def _keywords(*words: str) -> re.Pattern[str]:
    """Whole keywords (followed by a space or the end); several words may be spaced freely."""
    alternatives = sorted(words, key=len, reverse=True)
    body = "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in alternatives)
    return re.compile(rf"(?:{body})(?=\s|$)", re.IGNORECASE)


_ARMY = _keywords("a", "army")
_FLEET = _keywords("f", "fleet")
_HOLD = _keywords("h", "hold", "holds", "stand", "stands")
_MOVE = re.compile(r"->|=>|-|(?:moves?\s+to|to)(?=\s|$)", re.IGNORECASE)
_VIA_CONVOY = _keywords("via convoy", "by convoy")
_RETREAT = _keywords("r", "retreat", "retreats", "retreat to", "retreats to")
_SUPPORT = _keywords("s", "support", "supports", "supp")
_CONVOY = _keywords("c", "convoy", "convoys")
_JUMP_ASSIST = _keywords("j", "jump", "jumps", "assist", "assists", "jump assist", "jump assists")
_DISBAND = _keywords("d", "disband", "disbands", "remove", "removes", "destroy", "destroys")
_DISBAND_PREFIX = _keywords("disband", "remove", "destroy")
_BUILD = _keywords("b", "build", "builds")
_WAIVE = _keywords("waive", "waives")
_SUSTAIN = _keywords("sustain", "sustains")
_VERB = re.compile("|".join(f"(?P<{name}>{verb.pattern})" for name, verb in (
    (OrderKind.HOLD, _HOLD), (OrderKind.MOVE, _MOVE), (OrderKind.RETREAT, _RETREAT), ("support", _SUPPORT),
    (OrderKind.CONVOY, _CONVOY), (OrderKind.JUMP_ASSIST, _JUMP_ASSIST), (OrderKind.DISBAND, _DISBAND),
    (OrderKind.BUILD, _BUILD))), re.IGNORECASE)
"""What may follow the ordered unit, tried in this order; the name of the group that matched says which."""
_ORDER_KEYWORD = re.compile("|".join(k.pattern for k in (_WAIVE, _BUILD, _DISBAND_PREFIX, _SUSTAIN)), re.IGNORECASE)
"""Any keyword that can open an order: one match tells whether the four must be tried one by one."""

_WORD_RE = re.compile(r"[^\W_]+\.?")
"""One word of a name; a trailing dot (``St.``) belongs to the word."""
_SEPARATOR_RE = re.compile(r"\s+|-")
"""What may stand between the words of one name (``Mid-Atlantic Ocean``)."""


_SPACE_RE = re.compile(r"\s*")


def _after_space(text: str, pos: int) -> int:
    """The first position at or after ``pos`` that is not whitespace (the regex only when there is some)."""
    return _SPACE_RE.match(text, pos).end() if pos < len(text) and text[pos].isspace() else pos


# -- the parser --------------------------------------------------------------------------------


class _Parser:
    """A cursor over one line; each method reads one element of the grammar or raises NotationError."""

    def __init__(self, text: str, game_map: GameMap):
        self.text = text
        self.map = game_map
        self.pos = 0
        self.max_words = game_map.longest_name_words
        # longest_name's answers by (start, kind, max_words): several rules read the same name
        self.names: dict[tuple[int, str, int], tuple[str, int] | None] = {}

    def fail(self, problem: str) -> NoReturn:
        raise NotationError(self.text, self.pos, problem)

    def skip_space(self) -> int:
        self.pos = _after_space(self.text, self.pos)
        return self.pos

    def accept(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """Reads ``pattern`` after optional whitespace; on no match nothing is consumed."""
        match = pattern.match(self.text, _after_space(self.text, self.pos))
        if match:
            self.pos = match.end()
        return match

    def accept_mark(self, marks: str) -> bool:
        """Reads one of the characters ``marks`` after optional whitespace; on no match nothing is consumed."""
        pos = _after_space(self.text, self.pos)
        if pos < len(self.text) and self.text[pos] in marks:
            self.pos = pos + 1
            return True
        return False

    def expect_end(self) -> None:
        if self.skip_space() < len(self.text):
            self.fail(f"trailing text '{self.text[self.pos:].rstrip()}'")

    def found(self) -> str:
        """The word at the cursor, for error messages."""
        word = _WORD_RE.match(self.text, self.pos)
        return word.group().rstrip(".") if word else self.text[self.pos : self.pos + 1].strip()

    # -- names -------------------------------------------------------------------------------

    def longest_name(self, start: int, kind: str, max_words: int) -> tuple[str, int] | None:
        """The longest run of up to ``max_words`` words at ``start`` that names a ``kind`` of the map
        (``province``, ``power``, ``coast``), with its end."""
        key = (start, kind, max_words)
        if key not in self.names:
            self.names[key] = self._longest_name(start, kind, max_words)
        return self.names[key]

    def _longest_name(self, start: int, kind: str, max_words: int) -> tuple[str, int] | None:
        prefixes = self.map.name_prefixes(kind)
        lookup: Callable[[str], str | None] = getattr(self.map, kind)
        ends: list[int] = []
        # the run so far as the map folds names (``St. Petersburg`` → ``st petersburg``), while its
        # words are ASCII, where folding goes word by word: once no name begins with it, no longer
        # run is a name either, and reading stops
        folded: list[str] | None = []
        pos = start
        while len(ends) < max_words:
            word = _WORD_RE.match(self.text, pos)
            if not word:
                break
            if folded is not None and word.group().isascii():
                folded.append(word.group().rstrip(".").lower())
                if " ".join(folded) not in prefixes:
                    break
            else:
                folded = None
            ends.append(word.end())
            sep = _SEPARATOR_RE.match(self.text, word.end())
            if sep is None and not word.group().endswith("."):
                break
            pos = sep.end() if sep else word.end()
        for end in reversed(ends):
            value = lookup(self.text[start:end])
            if value is not None:
                return value, end
        return None

    # -- places and units --------------------------------------------------------------------

    def where(self) -> Where:
        """A place: ``[timeline (- or :)] province [coast] [(@ or :) turn]``."""
        self.skip_space()
        timeline = self.timeline_prefix()
        province, coast = self.province_and_coast()
        return Where(province, coast, timeline, self.turn_suffix())

    def timeline_prefix(self) -> int | None:
        """A timeline word directly followed by ``-`` or ``:`` and a province, as in ``b-Mun``/``b1:IRI``."""
        match = _TIMELINE_PREFIX_RE.match(self.text, self.pos)
        if match is None:
            return None
        province_follows = self.longest_name(match.end(), "province", self.max_words)
        if province_follows is None and self.longest_name(self.pos, "province", self.max_words):
            return None  # a province that merely looks like a timeline, e.g. followed by a move
        self.pos = match.end()
        return _timeline_value(match)

    def province(self) -> str:
        found = self.longest_name(self.pos, "province", self.max_words)
        if found is None:
            written = self.found()
            if not _WORD_RE.match(self.text, self.pos):
                self.fail(f"expected a province, found '{written}'" if written else "expected a province")
            self.fail(f"unknown province '{written}'")
        self.pos = found[1]
        return found[0]

    def province_and_coast(self) -> tuple[str, str | None]:
        """A province and an optional coast: ``Spa(nc)``, ``Spa (nc)``, ``Spa/nc``, ``Spa/north coast``, ``Spa nc``."""
        province = self.province()
        if self.accept_mark("("):
            return province, self.coast_in_parentheses()
        if self.accept_mark("/"):
            return province, self.coast_words()
        return province, self.bare_coast(province)

    def coast_in_parentheses(self) -> str:
        start = self.skip_space()
        close = self.text.find(")", start)
        if close < 0:
            self.fail("missing ')' after the coast")
        written = self.text[start:close].strip()
        coast = self.map.coast(written)
        if coast is None:
            self.fail(f"unknown coast '{written}'" if written else "expected a coast")
        self.pos = close + 1
        return coast

    def coast_words(self) -> str:
        self.skip_space()
        found = self.longest_name(self.pos, "coast", 3)
        if found is None:
            self.fail(f"unknown coast '{self.found()}'" if self.found() else "expected a coast")
        self.pos = found[1]
        return found[0]

    def bare_coast(self, province: str) -> str | None:
        """A coast after a space (``Spain nc``): only one of the province's coasts, never a one-letter
        alias, so that ``F Spa S ...`` stays a support."""
        start = _after_space(self.text, self.pos)
        if start == self.pos:
            return None
        found = self.longest_name(start, "coast", 3)
        if found is None or found[0] not in self.map.provinces[province].coasts or found[1] - start < 2:
            return None
        self.pos = found[1]
        return found[0]

    def turn_suffix(self) -> int | None:
        """``@3`` (dash form) or ``:S02`` (colon form) after a place."""
        if not self.accept_mark("@:"):
            return None
        self.skip_space()
        match = _TURN_RE.match(self.text, self.pos)
        if match is None:
            self.fail(f"unknown turn '{self.found()}'" if self.found() else "expected a turn")
        turn = _turn_value(match)
        if turn is None:
            self.fail(f"turn '{match.group()}' is before Spring {FIRST_YEAR}")
        self.pos = match.end()
        return turn

    def power(self) -> str | None:
        """An optional nationality before a unit (``German A Munich``); a word that names a province is
        read as the province."""
        start = self.skip_space()
        found = self.longest_name(start, "power", 3)
        if found is None or not self.text[found[1] : found[1] + 1].isspace():
            return None
        if self.longest_name(start, "province", self.max_words) is not None:
            return None
        self.pos = found[1]
        return found[0]

    def unit(self) -> UnitSpec:
        """``[nationality] [A|F|Army|Fleet] place``."""
        power = self.power()
        kind = UnitKind.ARMY if self.accept(_ARMY) else UnitKind.FLEET if self.accept(_FLEET) else None
        return UnitSpec(self.where(), kind, power)

    # -- orders ------------------------------------------------------------------------------

    def order(self) -> Order:
        if self.skip_space() == len(self.text):
            self.fail("empty order")
        if _ORDER_KEYWORD.match(self.text, self.pos):
            if self.accept(_WAIVE):
                self.accept(_BUILD)
                return Waive()
            if self.accept(_BUILD):
                return Waive() if self.accept(_WAIVE) else Build(self.unit())
            if self.accept(_DISBAND_PREFIX):
                return Disband(self.unit())
            if self.accept(_SUSTAIN):
                return Sustain(self.sustained_timeline())
        center = self.sustaining_center()
        if center is not None:
            return Sustain(self.sustained_timeline(), center)
        return self.unit_order(self.unit())

    def sustaining_center(self) -> str | None:
        """``London sustains b``: a province followed by ``sustains``; otherwise nothing is consumed."""
        start = self.pos
        found = self.longest_name(start, "province", self.max_words)
        if found is not None:
            self.pos = found[1]
            if self.accept(_SUSTAIN):
                return found[0]
        self.pos = start
        return None

    def sustained_timeline(self) -> int:
        """The timeline a sustain order votes for: ``b``, ``b1``, ``bravo``, ``bravoprime``."""
        self.skip_space()
        match = _TIMELINE_RE.match(self.text, self.pos)
        if match is None or (match.end() < len(self.text) and not self.text[match.end()].isspace()):
            self.fail(f"expected a timeline, found '{self.found()}'" if self.found() else "expected a timeline")
        self.pos = match.end()
        return _timeline_value(match)

    def unit_order(self, unit: UnitSpec) -> Order:
        """What follows the ordered unit."""
        verb = self.accept(_VERB)
        which = verb.lastgroup if verb else None
        if which == OrderKind.HOLD:
            return Hold(unit)
        if which == OrderKind.MOVE:
            dest = self.where()
            # a convoy path (A Yor - Nth - Bel): the last place is the destination; the path is kept for
            # the option datc_4a6 and otherwise ignored (DATC 4.A.6 a)
            path: list[Where] = []
            while self.accept(_MOVE):
                path.append(dest)
                dest = self.where()
            return Move(unit, dest, via_convoy=bool(self.accept(_VIA_CONVOY)), path=tuple(path))
        if which == OrderKind.RETREAT:
            self.accept(_MOVE)
            return Move(unit, self.where())
        if which == "support":
            return self.support(unit)
        if which == OrderKind.CONVOY:
            if self.skip_space() == len(self.text):
                return OpenConvoy(unit)  # no subject: the fleet expects guests (docs/rules.md §6.8.1)
            target = self.unit()
            if not self.accept(_MOVE):
                self.skip_space()
                self.fail("expected '-' and the destination of the convoyed army")
            return Convoy(unit, target, self.where())
        if which == OrderKind.JUMP_ASSIST:
            target = self.unit()
            if not self.accept(_MOVE):
                self.skip_space()
                self.fail("expected '-' and the destination of the assisted move")
            return JumpAssist(unit, target, self.where())
        if which == OrderKind.DISBAND:
            return Disband(unit)
        if which == OrderKind.BUILD:
            return Build(unit)
        self.skip_space()
        self.fail("expected an order after the unit")

    def support(self, unit: UnitSpec) -> Order:
        """``S A Mun`` or ``S A Mun H`` (support to hold) or ``S A Mun - Tyr`` (support to move)."""
        target = self.unit()
        if self.accept(_MOVE):
            return SupportMove(unit, target, self.where())
        self.accept(_HOLD)
        return SupportHold(unit, target)


T = TypeVar("T")


def _parse(text: str, game_map: GameMap, read: Callable[[_Parser], T]) -> T:
    """Reads the whole of ``text`` with one grammar rule; anything left over is an error. Text longer
    than ``limits.MAX_ORDER_CHARS`` is refused unread (the message quotes its start only)."""
    if len(text) > MAX_ORDER_CHARS:
        raise NotationError(text[:40] + "…", 40, f"longer than {MAX_ORDER_CHARS:,} characters")
    parser = _Parser(text, game_map)
    result = read(parser)
    parser.expect_end()
    return result


# -- simple lines, read directly ----------------------------------------------------------------
#
# Most lines are simple: single spaces, one-word places, the letters format_order prints, as in
# ``A b-Mun@12 - a-Tyr@11``, ``F c-Stp/sc@4 S A c-Fin@4 - c-Swe@4`` or ``A War S A Boh - Gal``. Such a
# line is split at its spaces and each place read with one regex, and reads the same as the grammar
# above reads it whenever:
# - every place is ``[timeline-]word[/word][@digits]`` naming a province (and coast) of the map, so the
#   timeline prefix is taken and a name cannot run on past ``/``, ``@`` or a ``-`` that follows;
# - no name runs on into the keyword after a place without a turn: the grammar reads the longest
#   name, and may read a coast after a space (``Spa nc``), so no province name begins with the
#   place's word and the keyword (``Mun H``), no coast name with the coast's word and the keyword,
#   and none with the keyword and the unit letter after it (``S A``; a coast of one letter is never
#   read after a space);
# - no province or nationality begins with a unit letter, so no name is read at the start of a unit;
# - every timeline and turn lies within the limits.
# Any other line, well-formed or not, is left to the grammar, which also gives every error: such
# lines parse identically either way (tests/model/test_notation.py checks the two readings against each
# other). The names of a map are ASCII-folded word by word here as there (see _longest_name).

_SIMPLE_PLACE_RE = re.compile(r"(?:([a-z])([0-9]{0,9})-)?([A-Za-z]+)(?:/([A-Za-z]+))?(?:@([0-9]{1,9}))?")
_UNIT_LETTERS = MappingProxyType({"A": UnitKind.ARMY, "F": UnitKind.FLEET})


def _begins_name(game_map: GameMap, kind: str, *words: str) -> bool:
    """Whether some name of this kind begins with these words."""
    return " ".join(words).lower() in game_map.name_prefixes(kind)


def _simple_where(token: str, after: list[str], game_map: GameMap) -> Where | None:
    """``b-Mun@12``, ``Mun@12``, ``b-Stp/sc@12``, ``Mun`` followed by the tokens ``after``; None when
    the grammar must decide."""
    match = _SIMPLE_PLACE_RE.fullmatch(token)
    if match is None:
        return None
    letter, secondary, name, coast_name, turn = match.groups()
    province = game_map.province_of_word(name)  # the pattern allows letters alone in a name
    if province is None:
        return None
    if turn is None and after and after[0] != "-":
        # a keyword follows the last word of the place: it must not extend a name
        if coast_name is None and (_begins_name(game_map, "province", name, after[0])
                                   or len(after) > 1 and _begins_name(game_map, "coast", after[0], after[1])):
            return None
        if coast_name is not None and _begins_name(game_map, "coast", coast_name, after[0]):
            return None
    coast = None
    if coast_name is not None:
        coast = game_map.coast(coast_name)
        if coast is None:
            return None
    timeline = None
    if letter is not None:
        timeline = ord(letter) - 97 + 26 * int(secondary or "0")
        if timeline >= MAX_TIMELINES:
            return None
    turn_number = None
    if turn is not None:
        turn_number = int(turn)
        if turn_number > MAX_TURN:
            return None
    return Where(province, coast, timeline, turn_number)


def _simple_unit(tokens: list[str], game_map: GameMap) -> UnitSpec | None:
    """``A b-Mun@12 ...``: a unit letter that no province or nationality begins with, and a place."""
    kind = _UNIT_LETTERS.get(tokens[0])
    if kind is None:
        return None
    letter = tokens[0].lower()  # one word: what _begins_name would look up
    if letter in game_map.name_prefixes("province") or letter in game_map.name_prefixes("power"):
        return None
    where = _simple_where(tokens[1], tokens[2:], game_map)
    return None if where is None else UnitSpec(where, kind)


_KIND_WORDS = frozenset({"a", "f", "army", "fleet"})


def _simple_target(tokens: list[str], game_map: GameMap) -> tuple[UnitSpec, list[str]] | None:
    """The unit a support, convoy or jump assist names, and the tokens after it: ``A b-Mun@12`` as
    the ordered unit is read, or a place alone (``b-Mun@12``, as the legal orders print it), which
    no nationality and no unit keyword may begin."""
    if tokens[0] in _UNIT_LETTERS:
        if len(tokens) < 2:
            return None
        unit = _simple_unit(tokens, game_map)
        return None if unit is None else (unit, tokens[2:])
    word = _WORD_RE.match(tokens[0])
    if tokens[0].lower() in _KIND_WORDS or word is None \
            or word.group().rstrip(".").lower() in game_map.name_prefixes("power"):
        return None
    where = _simple_where(tokens[0], tokens[1:], game_map)
    return None if where is None else (UnitSpec(where), tokens[1:])


def _simple_order(text: str, game_map: GameMap) -> Order | None:
    """A simple line read without the grammar, or None when the grammar must read it."""
    tokens = text.split(" ")
    if not 3 <= len(tokens) <= 7:
        return None
    unit = _simple_unit(tokens, game_map)
    if unit is None:
        return None
    verb, rest = tokens[2], tokens[3:]
    if not rest:
        if verb == "H":
            return Hold(unit)
        if verb == "C":
            return OpenConvoy(unit)
        if verb == "D":
            return Disband(unit)
        return None
    if verb == "-" and len(rest) == 1:
        dest = _simple_where(rest[0], [], game_map)
        return None if dest is None else Move(unit, dest)
    if verb not in ("S", "C", "J"):
        return None
    found = _simple_target(rest, game_map)
    if found is None:
        return None
    target, after = found
    if verb == "S" and (after == [] or after == ["H"]):
        return SupportHold(unit, target)
    if len(after) != 2 or after[0] != "-":
        return None
    dest = _simple_where(after[1], [], game_map)
    if dest is None:
        return None
    return SupportMove(unit, target, dest) if verb == "S" else Convoy(unit, target, dest) if verb == "C" \
        else JumpAssist(unit, target, dest)


@lru_cache(maxsize=8192)
def parse_order(text: str, game_map: GameMap) -> Order:
    """One order line, in any notation of docs/rules.md §6.2.

    Cached by (text, map): a line is often read again (checked when it is entered, then adjudicated,
    then drawn), maps are immutable and compared by identity, and orders are frozen values, so a
    cached order can be shared. A line that cannot be read is never cached: every reading raises
    its own NotationError."""
    if len(text) <= MAX_ORDER_CHARS:
        order = _simple_order(text, game_map)
        if order is not None:
            return order
    return _parse(text, game_map, _Parser.order)


def parse_unit(text: str, game_map: GameMap) -> UnitSpec:
    """A unit as listed in positions: ``A Tyrolia``, ``F Spain(nc)``, ``Army bravo:Munich:Spring 1902``."""
    return _parse(text, game_map, _Parser.unit)


def parse_where(text: str, game_map: GameMap) -> Where:
    """A place alone: ``b-Mun@2``, ``b1:IRI:F02``, ``Spain/nc``."""
    return _parse(text, game_map, _Parser.where)


# -- printing ----------------------------------------------------------------------------------


def format_where(where: Where, game_map: GameMap, *, brief: bool) -> str:
    """``b-Mun@3`` / ``Spa/nc`` (brief) or ``b-Munich@3`` / ``Spain (north coast)`` (full names)."""
    location = f"{where.province}/{where.coast}" if where.coast else where.province
    text = game_map.short_name(location) if brief else game_map.full_name(location)
    if where.timeline is not None:
        text = f"{timeline_name(where.timeline)}-{text}"
    if where.turn is not None:
        text = f"{text}@{where.turn}"
    return text


def format_unit(unit: UnitSpec, game_map: GameMap, *, brief: bool = True) -> str:
    """``A Mun``, ``Germany A b-Mun@3``; the unit letter and nationality only when they were given."""
    power = unit.power[:1].upper() + unit.power[1:] if unit.power else ""
    letter = {UnitKind.ARMY: "A", UnitKind.FLEET: "F"}.get(unit.kind or "", "")
    return " ".join(part for part in (power, letter, format_where(unit.where, game_map, brief=brief)) if part)


def format_order(order: Order, game_map: GameMap, *, brief: bool = True) -> str:
    """The canonical printed form of an order; it parses back to the same order."""
    if isinstance(order, Waive):
        return "Waive"
    if isinstance(order, Sustain):
        where = f"{game_map.short_name(order.center)} sustains" if order.center else "Sustain"
        return f"{where} {timeline_name(order.timeline)}"
    unit = format_unit(order.unit, game_map, brief=brief)
    if isinstance(order, Hold):
        return f"{unit} H"
    if isinstance(order, Disband):
        return f"{unit} D"
    if isinstance(order, Build):
        return f"Build {unit}"
    if isinstance(order, OpenConvoy):
        return f"{unit} C"
    if isinstance(order, Move):
        via = " via convoy" if order.via_convoy else ""
        path = "".join(f" - {format_where(sea, game_map, brief=brief)}" for sea in order.path)
        return f"{unit}{path} - {format_where(order.dest, game_map, brief=brief)}{via}"
    target = format_unit(order.target, game_map, brief=brief)
    if isinstance(order, SupportHold):
        return f"{unit} S {target}"
    operator = "C" if isinstance(order, Convoy) else "J" if isinstance(order, JumpAssist) else "S"
    return f"{unit} {operator} {target} - {format_where(order.dest, game_map, brief=brief)}"
