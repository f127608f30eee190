"""Large multiverse views for the picture tests: synthetic multiverses (``bench.synthetic_multiverse``,
every board the opening position) with orders across boards on every step, drawn without running the
solver so that hundreds of boards are quick to make."""

from __future__ import annotations

from fivedp_asp.lab.bench.positions import step_orders, synthetic_multiverse
from fivedp_asp.report.render import DrawnOrder, Frame
from fivedp_asp.engine.step import read_orders

SIZES = {8: (2, 6), 64: (8, 58), 300: (12, 290)}
"""Boards wanted → (timelines, boards asked of ``synthetic_multiverse``); it gives 8, 65 and 299."""


def synthetic_frames(heads: int, history: int, steps: int = 3, time_travel: int = 20) -> list[Frame]:
    """``steps`` steps over one multiverse, each with its own seeded orders (every third one failing)."""
    mv = synthetic_multiverse(heads, history)
    frames = []
    for s in range(steps):
        lines, _ = step_orders(mv, time_travel, s + 1)
        orders = tuple(DrawnOrder(r, "fails" if k % 3 == 0 else "succeeds")
                       for k, (_, r) in enumerate(read_orders(mv, lines)))
        frames.append(Frame(f"Step {s + 1}", mv, orders, (f"{len(orders)} orders",),
                            acting=frozenset(b.key for b in mv.heads)))
    return frames
