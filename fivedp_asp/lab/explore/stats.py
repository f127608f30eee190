"""Means with bootstrap intervals, for studies whose games are samples: is a difference real?

A study plays the same numbered games under each option value, so a measure (a game's length, a
power's centres) comes as one value per game and value. Its mean over the games is given with a
percentile bootstrap interval: the games are drawn again with replacement ``RESAMPLES`` times, and
the interval holds the middle ``LEVEL`` of the means so drawn. A difference between two values of the
option is measured over the same games (paired: game k under one value against game k under the
other), and bootstrapped the same way; when its interval leaves out 0, the difference is called
real. The draws are seeded, so a study prints the same intervals every time.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

from ...errors import UsageError

RESAMPLES = 2000
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean and its bootstrap interval."""

    mean: float
    low: float
    high: float

    @property
    def real(self) -> bool:
        """Whether the interval leaves out 0 (for a difference: whether it is real at this level)."""
        return self.low > 0 or self.high < 0

    def as_json(self) -> dict:
        return {"mean": self.mean, "low": self.low, "high": self.high}


def _numbers(values: Sequence[float], what: str) -> list[float]:
    if isinstance(values, (str, bytes)) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   for v in values):
        raise UsageError(f"{what}: give a list of numbers")
    return [float(v) for v in values]


class Resampler:
    """The games drawn again with replacement, ``resamples`` times, seeded: drawn once and used for
    every measure of a study, so that all of them are judged on the same draws."""

    def __init__(self, n: int, seed: str, resamples: int = RESAMPLES, level: float = LEVEL):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise UsageError(f"Resampler: n must be a whole number of at least 1, not {n!r:.40}")
        if isinstance(resamples, bool) or not isinstance(resamples, int) or resamples < 1 or not 0 < level < 1:
            raise UsageError("Resampler: resamples must be at least 1 and level between 0 and 1")
        rng = random.Random(seed)
        self.n = n
        self.level = level
        self.draws = [[rng.randrange(n) for _ in range(n)] for _ in range(resamples)]

    def interval(self, values: Sequence[float]) -> Interval:
        """The mean of ``values`` (one per game) and its percentile bootstrap interval. Values all equal
        give an interval of width 0."""
        xs = _numbers(values, "Resampler.interval")
        if len(xs) != self.n:
            raise UsageError(f"Resampler.interval: {len(xs)} values for {self.n} games")
        mean = sum(xs) / self.n
        if min(xs) == max(xs):
            return Interval(mean, mean, mean)
        means = sorted(sum(map(xs.__getitem__, draw)) / self.n for draw in self.draws)
        cut = (1 - self.level) / 2
        last = len(means) - 1
        low, high = means[int(cut * last)], means[int(round((1 - cut) * last))]
        return Interval(mean, min(low, mean), max(high, mean))

    def difference(self, base: Sequence[float], other: Sequence[float]) -> Interval:
        """The mean of ``other[k] - base[k]`` over paired games, and its bootstrap interval."""
        a, b = _numbers(base, "Resampler.difference"), _numbers(other, "Resampler.difference")
        if len(a) != len(b):
            raise UsageError("Resampler.difference: the two lists must pair up (one value per game each)")
        return self.interval([y - x for x, y in zip(a, b)])
