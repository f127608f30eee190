"""The statistics of studies (stats.py): intervals and tests that hold their level, checked on
simulated studies — placebo studies, where the two values are the same rule and only noise differs,
must be marked no more often than 5% (plus the error of counting over the studies simulated), and
a planted effect must be marked in most studies of 30 games."""

from __future__ import annotations

import math
import random

import pytest

from fivedp_asp.errors import UsageError
from fivedp_asp.lab.explore.stats import ALPHA, corrected, holm, mean_interval, paired_test, share_interval

STUDIES = 500
# the most a 5% rate can show over STUDIES simulated studies by sampling alone (three standard errors)
CEILING = ALPHA + 3 * math.sqrt(ALPHA * (1 - ALPHA) / STUDIES)
FIGURES = 10  # figures of one simulated study, corrected together


def _centres(rng: random.Random, n: int, effect: float = 0.0) -> tuple[list[int], list[int]]:
    """One figure of a simulated study of ``n`` games: a count per game under the own value, and under
    the other value the same game's count moved by chance (a game played again ends a little
    differently) and, with probability ``effect``, two more."""
    base = [rng.randint(0, 10) for _ in range(n)]
    other = [b + rng.choice((-2, -1, 0, 0, 0, 1, 2)) + 2 * (rng.random() < effect) for b in base]
    return base, other


def _wins(rng: random.Random, n: int, own: float, other: float) -> tuple[list[int], list[int]]:
    """Whether a power won each game, under each value (independent draws)."""
    return [int(rng.random() < own) for _ in range(n)], [int(rng.random() < other) for _ in range(n)]


def test_known_answers():
    # 3 of 6 games differ by +1: the sign test's p is 2 * (1/2)**3 = 0.25, not a mark
    d = paired_test([0] * 6, [1, 1, 1, 0, 0, 0])
    assert (d.mean, d.p, d.differing, d.real) == (0.5, 0.25, 3, False)
    # differences 1, 2, 3: flipped every way (8), only all + and all - reach |mean| 2: p = 2/8
    assert paired_test([0, 0, 0], [1, 2, 3]).p == pytest.approx(0.25)
    assert paired_test([1, 2] * 5, [1, 2] * 5).p == 1.0
    # no win in 6 games: the share is 0, but up to 46% is not ruled out (Clopper-Pearson)
    none = share_interval([0] * 6)
    assert none.mean == 0 and none.low == 0 and none.high == pytest.approx(1 - 0.025 ** (1 / 6))
    assert mean_interval([3, 3, 3]) == mean_interval([3, 3, 3]) and mean_interval([3, 3, 3]).low == 3
    half = mean_interval([0, 1] * 20)  # 0.5 +- t(39) * 0.506 / sqrt(40)
    assert half.low == pytest.approx(0.5 - 2.0227 * 0.50637 / math.sqrt(40), abs=1e-3)
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert [d.real for d in corrected([paired_test([0] * 8, [1] * 8), paired_test([0] * 8, [1] * 8)])] == [True, True]
    # the draws are seeded: the same study prints the same p-values
    a, b = _centres(random.Random(1), 30)
    assert paired_test(a, b, seed=3) == paired_test(a, b, seed=3)


def test_bad_arguments():
    for call in (lambda: paired_test([1, 2], [1]), lambda: paired_test([], []), lambda: share_interval([0, 2]),
                 lambda: mean_interval(["1"]), lambda: holm([1.5]), lambda: paired_test([1], [2], seed=True),
                 lambda: mean_interval([float("nan")])):
        with pytest.raises(UsageError):
            call()


@pytest.mark.slow
@pytest.mark.parametrize("games", [6, 10, 30])
def test_placebo_studies_are_seldom_marked(games):
    """No effect, only noise: a count is marked in at most 5% of studies, and so is a share."""
    rng = random.Random(f"placebo/{games}")
    counts = wins = 0
    for k in range(STUDIES):
        counts += paired_test(*_centres(rng, games), seed=k).real
        wins += paired_test(*_wins(rng, games, 0.3, 0.3), seed=k).real
    assert counts / STUDIES <= CEILING and wins / STUDIES <= CEILING, (counts, wins)


@pytest.mark.slow
def test_a_placebo_study_of_ten_figures_corrected_together_is_seldom_marked():
    """Ten figures of no effect, corrected together: any of them is marked in at most 5% of studies
    (uncorrected, about 40% of such studies would mark one)."""
    rng = random.Random("placebo/family")
    any_mark = 0
    for k in range(STUDIES):
        family = [paired_test(*_centres(rng, 10), seed=k * FIGURES + j) for j in range(FIGURES // 2)]
        family += [paired_test(*_wins(rng, 10, 0.3, 0.3)) for _ in range(FIGURES // 2)]
        any_mark += any(d.real for d in corrected(family))
    assert any_mark / STUDIES <= CEILING, any_mark


def _family_with(planted, rng: random.Random) -> bool:
    """Whether the planted figure is marked among nine figures of no effect (shares, as cheap to test
    as any: the correction reads only their p-values), corrected together, in a study of 30 games."""
    family = [paired_test(*_wins(rng, 30, 0.3, 0.3)) for _ in range(FIGURES - 1)] + [planted]
    return corrected(family)[-1].real


@pytest.mark.slow
def test_a_planted_effect_is_marked_in_most_studies_of_30_games():
    """A power's centres raised by 2 in 60% of the games (a rule favouring it), or its share of wins
    raised from 10% to 60%: marked, after the correction over ten figures, in at least 80% of
    studies of 30 games (over 200 studies: a rate of 80% counted within 3 points)."""
    rng = random.Random("planted")
    studies = 200
    counts = sum(_family_with(paired_test(*_centres(rng, 30, effect=0.6), seed=k), rng) for k in range(studies))
    wins = sum(_family_with(paired_test(*_wins(rng, 30, 0.1, 0.6)), rng) for _ in range(studies))
    assert counts / studies >= 0.8 and wins / studies >= 0.8, (counts, wins)
