"""Reads the solver's answer back into Python values: per-order results and what each phase changed."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import clingo

from . import terms as t
from .map import GameMap
from .notation import format_order
from .orders import Order

Place3 = tuple[int, int, str]  # (timeline, turn, province)


@dataclass(frozen=True)
class OrderOutcome:
    """The result of one written order line: succeeds, fails or invalid (with the reason it was ignored)."""

    power: str
    text: str
    result: str
    reason: str | None = None
    order: Order | None = field(default=None, compare=False, repr=False)
    game_map: GameMap | None = field(default=None, compare=False, repr=False)

    @property
    def canonical(self) -> str | None:
        """The order in the canonical notation (computed when asked: most callers never need it)."""
        if self.order is None or self.game_map is None:
            return None
        return format_order(self.order, self.game_map)

    def as_dict(self) -> dict:
        return {"power": self.power, "text": self.text, "canonical": self.canonical,
                "result": self.result, "reason": self.reason}


def _reason_text(reason: str) -> str:
    """A reason code (``not_adjacent``) in words; a reason the rules give as a string is kept verbatim,
    so that it can name an option (``open convoy needs the option open_convoys``)."""
    if len(reason) >= 2 and reason[0] == reason[-1] == '"':
        return reason[1:-1]
    return reason.replace("_", " ")


@dataclass(frozen=True)
class Answer:
    """The atoms of one phase's answer, by predicate: each atom's argument text, and the symbols."""

    texts: dict[str, list[str]] = field(default_factory=dict)
    symbols: dict[str, list[clingo.Symbol]] = field(default_factory=dict)

    @classmethod
    def of(cls, symbols) -> "Answer":
        texts: dict[str, list[str]] = defaultdict(list)
        syms: dict[str, list[clingo.Symbol]] = defaultdict(list)
        for sym in symbols:
            text = str(sym)
            cut = text.find("(")
            name = text[:cut] if cut > 0 else text
            texts[name].append(text[cut + 1 : -1] if cut > 0 else "")
            syms[name].append(sym)
        return cls(dict(texts), dict(syms))

    def get(self, name: str) -> list[tuple[clingo.Symbol, ...]]:
        """The arguments of every atom of ``name``, as symbols (for the few rarely read predicates)."""
        return [tuple(sym.arguments) for sym in self.symbols.get(name, [])]

    def order_results(self) -> dict[int, tuple[str, str | None]]:
        """Order id → (result, reason); an illegal order is ``invalid`` with its first reason."""
        out: dict[int, tuple[str, str | None]] = {}
        for text in self.texts.get("order_result", []):
            i, _, r = text.partition(",")
            out[int(i)] = (r, None)
        illegal = sorted((int(i), r) for i, _, r in (x.partition(",") for x in self.texts.get("illegal", [])))
        for i, r in illegal:
            if i not in out or out[i][0] != "invalid":
                out[i] = ("invalid", _reason_text(r))
        return out

    def places(self, name: str) -> set[Place3]:
        return {t.place_of(x) for x in self.texts.get(name, [])}

    def first_places(self, name: str) -> set[Place3]:
        """The places that atoms ``name(Place, ...)`` begin with."""
        return {t.leading_place_of(x) for x in self.texts.get(name, [])}

    def place_pairs(self, name: str) -> dict[Place3, Place3]:
        return dict(t.place_pair_of(x) for x in self.texts.get(name, []))

    def arrivals(self, name: str = "arrives") -> dict[Place3, str]:
        return dict(t.place_location_of(x) for x in self.texts.get(name, []))

    def boards(self, name: str) -> list[tuple[int, int]]:
        return [t.board_of(x) for x in self.texts.get(name, [])]

    def owners(self) -> dict[tuple[str, Place3], tuple[int, int]]:
        """Every decision of the step, (name, place), and the board that owns it."""
        return dict(t.decision_owner_of(x) for x in self.texts.get("owner", []))
