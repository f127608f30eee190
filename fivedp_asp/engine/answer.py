"""Reads the solver's answer back into Python values: per-order results and what each phase changed."""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import clingo

from ..model.kinds import CauseKind, Result, Versus
from ..solver import terms as t
from ..solver.predicates import reader, shown
from ..solver.backup import BackupRule
from ..model.map import GameMap
from ..model.notation import format_order, timeline_name
from ..model.orders import Order

Place3 = tuple[int, int, str]  # (timeline, turn, province)


CAUSE_KINDS = tuple(CauseKind)  # in the order a result's reasons are listed


def backup_words(rule: BackupRule, units: str, count: int, *, note: bool = False) -> str:
    """A backup rule in words: the reason an order of ``units`` (``count`` of them) got, or, with
    ``note``, the step's note that the rule was applied to them. Both sentences of each rule are here."""
    if rule is BackupRule.SZYKMAN:
        return (f"convoy paradox, Szykman rule: the convoy of {units} fails (the fleet holds)" if note
                else f"convoy paradox, Szykman rule: {units} hold{'s' if count == 1 else ''}")
    if rule is BackupRule.ALL_HOLD:
        return f"convoy paradox, 'All Hold' rule: the moves of {units} fail"
    if rule is BackupRule.CIRCULAR:
        return f"circular movement: the moves of {units} succeed"
    return f"paradox, DATC 5.B.9: the orders of {units}{' in the cycle' if note else ''} fail"


@dataclass(frozen=True)
class Cause:
    """One reason an order has its result, as the rules derived it (asp/*/reasons.lp) or as a backup
    rule of the driver decided it. Units are fully qualified (``A a-Ber@1``) so that a program can
    find them without knowing which board the order was on; strengths are plain numbers.

    ``versus`` names the strength the attack was measured against: ``hold``, ``prevent``, ``defend``
    (the unit that stopped a move), or ``opposition`` (the strongest a successful move overcame).
    ``detail`` is the paradox rule (``szykman``, ``circular``, ``fail``) or what a supported or
    convoyed unit did instead (``holds``, ``moves``, ``overland``, ``other_coast``, ``journey``: a recorded
    move into a board already past), the time centre a sustain
    order cast for, or what overrode it (``later``, ``centre``); ``count`` the builds or disbands a power had,
    or the assists a jump was given (``against`` its length); ``timeline`` the timeline a centre sustained."""

    kind: str
    units: tuple[str, ...] = ()
    strength: int | None = None
    against: int | None = None
    versus: str | None = None
    detail: str | None = None
    count: int | None = None
    timeline: str | None = None

    def as_dict(self) -> dict:
        out: dict = {"kind": self.kind, "units": list(self.units)}
        for key in ("strength", "against", "versus", "detail", "count", "timeline"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def text(self, local: Callable[[str], str] = lambda u: u) -> str:
        """In words; ``local`` shortens a unit's designation (drops the board of the order's own board)."""
        units = ", ".join(local(u) for u in self.units)
        measured = f" (attack {self.strength} against {self.versus} {self.against})" if self.versus else ""
        k = self.kind
        if k == CauseKind.BOUNCED:
            if self.versus is None:
                return f"bounced with {units} (both disband)"
            return f"bounced {'off' if self.versus == Versus.HOLD else 'with'} {units}{measured}"
        if k == CauseKind.BEATEN_HEAD_TO_HEAD:
            return f"beaten head to head by {units}{measured}"
        if k == CauseKind.OWN_UNIT:
            return f"would dislodge its own unit {units}"
        if k == CauseKind.CONVOY_DISRUPTED:
            return f"convoy disrupted: {units} dislodged"
        if k == CauseKind.NO_ROUTE:
            return "no convoy route"
        if k == CauseKind.PARADOX:
            rule = BackupRule(self.detail) if self.detail in set(BackupRule) else BackupRule.FAIL
            return backup_words(rule, units, len(self.units))
        if k == CauseKind.DISLODGED:
            return f"dislodged by {units}"
        if k == CauseKind.CUT:
            return f"cut by {units}"
        if k == CauseKind.NOT_MATCHING:
            did = {"holds": "does not move", "moves": "moves elsewhere", "overland": "does not go by convoy",
                   "other_coast": "moves to another coast",
                   "journey": "moved into a board already past, outside this battle",
                   "paradox": "does not move, its move failed in the paradox"}
            return f"not matching: {units} {did.get(self.detail or '', 'does something else')}"
        if k == CauseKind.UNUSED:
            return "not on the route the army took"
        if k == CauseKind.SUPPORTED_FAILED:
            return f"given, but the supported order of {units} fails"
        if k == CauseKind.STRENGTH:
            return f"attack {self.strength} against {self.against}"
        if k == CauseKind.DUPLICATE:
            return "an earlier order for the same place counts"
        if k == CauseKind.NO_BUILDS_LEFT:
            return f"no builds left: {self.count} allowed on this board"
        if k == CauseKind.NO_DISBANDS_LEFT:
            return f"no disbands left: {self.count} due on this board"
        if k == CauseKind.CIVIL_DISORDER:
            return f"the power of {units} gives no orders (civil disorder)"
        if k == CauseKind.TOO_FEW_ASSISTS:
            return f"too few jump assists given ({self.count} of {self.against})"
        if k == CauseKind.OPEN_CONVOY_UNUSED:
            return "open convoy not used by any army"
        if k == CauseKind.SUSTAINS_OTHER:
            return f"{self.detail} sustains {self.timeline}"
        if k == CauseKind.OVERRIDDEN:
            return "overridden by a later order" if self.detail == "later" else "overridden by centre orders"
        return k.replace("_", " ")


def explain(causes: Sequence[Cause], local: Callable[[str], str] = lambda u: u) -> str | None:
    """The causes of one result in words, joined; None when there are none."""
    return "; ".join(c.text(local) for c in causes) or None


@dataclass(frozen=True)
class OrderOutcome:
    """The result of one written order line: succeeds, fails or invalid. ``reason`` says why in words
    (why it was ignored, why it failed, or with which strength it succeeded); ``explanation`` holds
    the same causes for programs (empty for an invalid order, whose reason is the whole story)."""

    power: str
    text: str
    result: str
    reason: str | None = None
    order: Order | None = field(default=None, compare=False, repr=False)
    game_map: GameMap | None = field(default=None, compare=False, repr=False)
    explanation: tuple[Cause, ...] = ()

    @property
    def canonical(self) -> str | None:
        """The order in the canonical notation (computed when asked: most callers never need it)."""
        if self.order is None or self.game_map is None:
            return None
        return format_order(self.order, self.game_map)

    def as_dict(self) -> dict:
        return {"power": self.power, "text": self.text, "canonical": self.canonical,
                "result": self.result, "reason": self.reason,
                "explanation": [c.as_dict() for c in self.explanation]}


# reasons the rules give as a term naming two boards, about their timelines (asp/movement/legality.lp:
# a jump refused)
_TIMELINES = re.compile(r"(timelines_not_adjacent|too_far_across_timelines)\(b\((\d+),\d+\),b\((\d+),\d+\)\)")


def _reason_text(reason: str, adjacency: str | None = None) -> str:
    """A reason code (``not_adjacent``) in words; a reason the rules give as a string is kept verbatim,
    so that it can name an option (``open convoy needs the option open_convoys``); a reason given as a
    term about the timelines of two boards (a jump refused) is put in words with their names and the
    value of the option ``adjacency`` in force (None: not known), which is what refused it."""
    if len(reason) >= 2 and reason[0] == reason[-1] == '"':
        return reason[1:-1]
    found = _TIMELINES.fullmatch(reason)
    if found:
        kind, one, two = found[1], timeline_name(int(found[2])), timeline_name(int(found[3]))
        rule = f"adjacency: {adjacency}" if adjacency else "the option adjacency"
        if kind == "timelines_not_adjacent":
            return (f"timelines {one} and {two} are not adjacent under {rule}; adjacency: any allows the move, as "
                    "does a jump with the option jump_assists")
        return (f"too far in time, and across timelines {one} and {two}, not adjacent under {rule}; a jump needs "
                "the option jump_assists")
    return reason.replace("_", " ")


def _first_reason(reason: str) -> tuple[bool, str]:
    """How an order's reasons are ordered, the first one shown: sentences the rules write (a string, or
    a term put in words) before codes, each kind alphabetically."""
    return (not (reason.startswith('"') or "(" in reason), reason)


@dataclass(frozen=True)
class Answer:
    """The atoms of one phase's answer, by predicate: each atom's argument text, read into Python values
    by the predicate's declaration (``solver/predicates.py``) when asked for.

    An answer comes from clingo as symbols, or, from a batch of phases solved together (``batch.py``),
    as the text of each atom after its phase's own numbering is restored: the same text either way."""

    texts: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, atoms: Iterable[clingo.Symbol | str]) -> "Answer":
        texts: dict[str, list[str]] = defaultdict(list)
        atoms = list(atoms)
        symbols = [a for a in atoms if not isinstance(a, str)]
        if len(symbols) == len(atoms):
            # all symbols (an answer of one phase): no type test an atom
            for text in t.symbol_texts(symbols):
                cut = text.find("(")
                if cut > 0:
                    texts[text[:cut]].append(text[cut + 1 : -1])
                else:
                    texts[text].append("")
            return cls(dict(texts))
        read = iter(t.symbol_texts(symbols))
        for sym in atoms:
            text = sym if isinstance(sym, str) else next(read)
            cut = text.find("(")
            if cut > 0:
                texts[text[:cut]].append(text[cut + 1 : -1])
            else:
                texts[text].append("")
        return cls(dict(texts))

    def values(self, name: str) -> list[tuple]:
        """The arguments of every atom of the shown predicate ``name``, as its declaration reads them."""
        texts = self.texts.get(name)
        if not texts:
            return []
        return reader(shown(name))(texts)

    def order_results(self, adjacency: str | None = None) -> dict[int, tuple[str, str | None]]:
        """Order id → (result, reason); an illegal order is ``invalid`` with its first reason
        (``_first_reason``). ``adjacency``: the value of that option in force, which a reason about
        timelines names."""
        out: dict[int, tuple[str, str | None]] = {i: (r, None) for i, r in self.values("order_result")}
        illegal = sorted((i, _first_reason(r)) for i, r in self.values("illegal"))
        for i, (_, r) in illegal:
            if i not in out or out[i][0] != Result.INVALID:
                out[i] = (Result.INVALID, _reason_text(r, adjacency))
        return out

    def reasons(self) -> dict[int, list[tuple[str, Place3 | None, tuple]]]:
        """Order id → its causes as the rules gave them: (kind, unit place or None, detail)."""
        out: dict[int, list] = defaultdict(list)
        for i, kind, place, detail in self.values("reason"):
            out[i].append((kind, place, detail))
        return dict(out)

    def places(self, name: str) -> set[Place3]:
        """The places of ``name(Place)``."""
        return {place for (place,) in self.values(name)}

    def first_places(self, name: str) -> set[Place3]:
        """The places that atoms ``name(Place, ...)`` begin with."""
        return {v[0] for v in self.values(name)}

    def place_pairs(self, name: str) -> dict[Place3, Place3]:
        return dict(self.values(name))

    def arrivals(self, name: str = "arrives") -> dict[Place3, str]:
        return dict(self.values(name))

    def boards(self, name: str) -> list[tuple[int, int]]:
        return [board for (board,) in self.values(name)]

    def reaching(self) -> dict[tuple[int, int], list[int]]:
        """Each past board fought again, and the ids of the new orders that reached it."""
        out: dict[tuple[int, int], list[int]] = {}
        for i, board in self.values("reaches"):
            out.setdefault(board, []).append(i)
        return out

    def owners(self) -> dict[tuple[str, Place3], tuple[int, int]]:
        """Every decision of the step, (name, place), and the board that owns it."""
        return dict(self.values("owner"))


@dataclass(frozen=True)
class CentreVote:
    """One time centre's vote: each fraction cast (the fraction's timeline, its owner, the timeline
    it went to) and the timeline the centre sustains (None when no fraction was cast)."""

    center: str
    fractions: tuple[tuple[int, str, int], ...]
    sustains: int | None


@dataclass(frozen=True)
class SustainResult:
    year: int  # the game year (1901 + year index) whose phase this was
    timelines: tuple[int, ...]  # in play when the votes were cast (n = how many)
    centres: tuple[CentreVote, ...]
    dissolved: tuple[int, ...]
