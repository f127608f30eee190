"""The statistics of a study whose games are samples: intervals that hold their level, and tests of
paired differences corrected together.

A study plays the same numbered games under each option value, so a figure (a game's length, a
power's centres, whether France won) comes as one value per game and value. Per value, its mean is
given with a 95% interval: for a share (a 0/1 figure) the Clopper–Pearson interval, which never
covers less than 95% whatever the number of games; for any other figure Student's t interval.

A difference between two values is measured over the same games (game k under one value against
game k under the other) and tested, not judged from an interval: the paired differences' signs are
flipped in every way (the exact sign-flip permutation test, SciPy's ``permutation_test``: under no
effect, each game's difference is as likely to have either sign), or, when every difference is -1,
0 or +1 — a share such as who won — by the exact sign test (``binomtest``), which is the same test
then. With more games than can be flipped every way, the flips are drawn at random (``RESAMPLES``,
seeded), and the p-value counts the observed one among them, so it still holds its level. Every
difference of one study is then corrected together (Holm), and a difference is marked real when its
corrected p-value is below 5%: a study of twenty figures marks one by chance in no more than one
study in twenty, not one figure in twenty.

SciPy is an optional dependency (``pip install 'fivedp-asp[stats]'``); asking for statistics
without it says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from ...errors import InputError, UsageError

LEVEL = 0.95
ALPHA = 1 - LEVEL
RESAMPLES = 9999
"""Sign flips drawn when there are more ways to flip than this: up to 13 games that differ are
flipped every way (2**13 = 8192), exactly."""

FEW = 30
"""Below this many games a study warns that its figures are rough."""


def _scipy() -> Any:
    try:
        import scipy.stats
    except ImportError:
        # a missing extra, as the server's and PostgreSQL's are: the user's to install, not a defect
        raise InputError("the statistics of a study need SciPy: pip install 'fivedp-asp[stats]'") from None
    return scipy.stats


def require_scipy() -> None:
    """Raises the InputError of a missing SciPy at once: a study asks before it plays its games, not
    after."""
    _scipy()


@dataclass(frozen=True)
class Interval:
    """A mean and its interval."""

    mean: float
    low: float
    high: float

    def as_json(self) -> dict:
        return {"mean": self.mean, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Difference:
    """The mean of paired differences, the test's p-value, and the p-value corrected with the other
    differences of its study (``adjusted``, Holm; the p-value itself until it is corrected)."""

    mean: float
    p: float
    adjusted: float
    differing: int  # games whose two values differ

    @property
    def real(self) -> bool:
        """Whether the corrected p-value is below 5%."""
        return self.adjusted < ALPHA

    def as_json(self) -> dict:
        return {"mean": self.mean, "p": self.p, "adjusted": self.adjusted, "differing": self.differing,
                "real": self.real}


def _numbers(values: Sequence[float], what: str) -> list[float]:
    if isinstance(values, (str, bytes)) or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                   and math.isfinite(v) for v in values):
        raise UsageError(f"{what}: give a list of finite numbers")
    if not values:
        raise UsageError(f"{what}: give at least one value")
    return [float(v) for v in values]


def share_interval(values: Sequence[float]) -> Interval:
    """The share of games where a 0/1 figure is 1, with its Clopper–Pearson interval."""
    xs = _numbers(values, "share_interval")
    if any(x not in (0.0, 1.0) for x in xs):
        raise UsageError("share_interval: every value must be 0 or 1")
    k, n = int(sum(xs)), len(xs)
    ci = _scipy().binomtest(k, n).proportion_ci(confidence_level=LEVEL, method="exact")
    return Interval(k / n, float(ci.low), float(ci.high))


def mean_interval(values: Sequence[float]) -> Interval:
    """The mean of ``values`` (one per game) and its Student t interval; values all equal give an
    interval of width 0 (nothing varies to be uncertain about)."""
    xs = _numbers(values, "mean_interval")
    n = len(xs)
    mean = sum(xs) / n
    if n == 1 or min(xs) == max(xs):
        return Interval(mean, mean, mean)
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = float(_scipy().t.ppf(1 - ALPHA / 2, n - 1)) * sd / math.sqrt(n)
    return Interval(mean, mean - half, mean + half)


def paired_test(base: Sequence[float], other: Sequence[float], seed: int = 0) -> Difference:
    """The mean of ``other[k] - base[k]`` over paired games and the two-sided p-value of no effect:
    the exact sign test when the differences that are not 0 all have one size (a share: -1, 0 or
    +1), else the sign-flip permutation test (every flip when there are at most ``RESAMPLES``, else
    that many drawn with ``seed``). Games that do not differ change no flip and are left out of it."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise UsageError(f"paired_test: seed must be a whole number, not {seed!r:.40}")
    a, b = _numbers(base, "paired_test"), _numbers(other, "paired_test")
    if len(a) != len(b):
        raise UsageError("paired_test: the two lists must pair up (one value per game each)")
    d = [y - x for x, y in zip(a, b)]
    mean = sum(d) / len(d)
    nonzero = [x for x in d if x != 0]
    if not nonzero:
        return Difference(mean, 1.0, 1.0, 0)
    stats = _scipy()
    if all(abs(x) == abs(nonzero[0]) for x in nonzero):
        p = stats.binomtest(sum(1 for x in nonzero if x > 0), len(nonzero), 0.5).pvalue
    else:
        result = stats.permutation_test((nonzero,), lambda x, axis: x.mean(axis=axis), permutation_type="samples",
                                        vectorized=True, n_resamples=RESAMPLES, alternative="two-sided", rng=seed % 2**32)
        p = result.pvalue
    p = min(1.0, float(p))
    return Difference(mean, p, p, len(nonzero))


def holm(ps: Sequence[float]) -> list[float]:
    """Holm's step-down correction of p-values tested together: the k-th smallest is multiplied by
    the number of p-values not smaller in rank, kept non-decreasing and at most 1. It holds the chance
    of marking any true null below the level, whatever the dependence between the tests."""
    ps = _numbers(ps, "holm") if ps else []
    if any(not 0 <= p <= 1 for p in ps):
        raise UsageError("holm: p-values lie between 0 and 1")
    m = len(ps)
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(sorted(range(m), key=lambda i: ps[i])):
        running = max(running, min(1.0, (m - rank) * ps[i]))
        out[i] = running
    return out


def corrected(differences: Sequence[Difference]) -> list[Difference]:
    """The differences of one study with their p-values corrected together (``holm``)."""
    adjusted = holm([d.p for d in differences])
    return [Difference(d.mean, d.p, a, d.differing) for d, a in zip(differences, adjusted)]
