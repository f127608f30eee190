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


@dataclass(frozen=True)
class Answer:
    """The atoms of one phase's answer, sorted by predicate."""

    atoms: dict[str, list[tuple[clingo.Symbol, ...]]] = field(default_factory=dict)

    @classmethod
    def of(cls, symbols) -> "Answer":
        grouped: dict[str, list[tuple[clingo.Symbol, ...]]] = defaultdict(list)
        for sym in symbols:
            grouped[sym.name].append(tuple(sym.arguments))
        return cls(dict(grouped))

    def get(self, name: str) -> list[tuple[clingo.Symbol, ...]]:
        return self.atoms.get(name, [])

    def order_results(self) -> dict[int, tuple[str, str | None]]:
        """Order id → (result, reason); an illegal order is ``invalid`` with its first reason."""
        out: dict[int, tuple[str, str | None]] = {}
        for i, r in self.get("order_result"):
            out[i.number] = (r.name, None)
        for i, r in sorted(self.get("illegal"), key=lambda a: (a[0].number, str(a[1]))):
            if i.number not in out or out[i.number][0] != "invalid":
                out[i.number] = ("invalid", r.name.replace("_", " "))
        return out

    def places(self, name: str) -> set[Place3]:
        return {t.read_place(args[0]) for args in self.get(name)}

    def place_pairs(self, name: str) -> dict[Place3, Place3]:
        return {t.read_place(a): t.read_place(b) for a, b in self.get(name)}

    def arrivals(self, name: str = "arrives") -> dict[Place3, str]:
        return {t.read_place(a): t.read_location(loc) for a, loc in self.get(name)}
