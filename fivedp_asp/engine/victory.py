"""The victory check after every step (docs/rules.md §6.7, option ``victory``): elimination and the winner,
judged over a game's heads (``asp/victory.lp``, ``asp/victory/``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Generator, Sequence

from ..solver import terms as t
from ..solver.predicates import render
from ..solver.terms import Fact, Game
from .facts import center_facts
from ..model.map import GameMap
from ..model.multiverse import Board, Multiverse
from .answer import Answer
from ..solver.driver import Solution, Universe
from .phase import Query, program, run


def victory(mv: Multiverse) -> Multiverse:
    """Applies elimination and looks for a winner (docs/rules.md §6.7, option ``victory``)."""
    return run(adjudicate(mv))


def adjudicate(mv: Multiverse) -> Generator[Query, Solution, Multiverse]:
    """``victory`` as a query (``phase.Query``), so that a batch asks it with other games' (batch.py)."""
    # a power eliminated earlier has nothing on any head, also where a fork brought its units back
    mv = mv.standing(mv.eliminated, mv.winner)
    if len(mv.players) < 2 or mv.winner:
        return mv  # a scenario with one power, or a game already won
    option = mv.options.chosen("victory")
    programs = program(mv, "victory")
    heads = _standings(mv) if programs == VICTORY_UNIVERSE_PROGRAMS else mv.heads
    # every fact names its game, 0 (a joint program numbers its games apart, terms.Game)
    game = Game(0)
    facts: list[Fact] = [("head", game, h.key) for h in heads]
    for h in heads:
        b = h.key
        # a unit waiting to retreat is still on the board until it is disbanded
        for power in sorted({u.power for u in h.units.values()} | {r.unit.power for r in h.retreats}):
            facts.append(("has_units", b, t.const(power)))
        if option == "unique":
            facts += [("owns", b, t.const(o), t.const(p)) for p, o in sorted(h.centers.items())]
        else:
            for power in sorted(set(h.centers.values())):
                count = sum(1 for o in h.centers.values() if o == power)
                facts.append(("center_count", b, t.const(power), count))
    facts += [("player", game, t.const(p)) for p in mv.players]
    facts += [("out", game, t.const(p)) for p in sorted(mv.eliminated)]
    universe = _victory_universe(mv, heads) if programs == VICTORY_UNIVERSE_PROGRAMS else None
    query = Query(programs, tuple(facts), center_facts(mv.game_map), universe=universe)
    answer = Answer.of((yield query).atoms)
    by_const = t.by_name(mv.players)
    eliminated = mv.eliminated | {by_const[power] for _, power in answer.values("eliminated")}
    winners = sorted(by_const[power] for _, power in answer.values("winner"))
    if eliminated == mv.eliminated and not winners:
        return mv
    return mv.standing(frozenset(eliminated), winners[0] if len(winners) == 1 else None)


VICTORY_UNIVERSE_HEADS = 2  # up to this many heads, the victory rules are grounded once and reused
# the programs whose rules read the heads' facts only as "some head": those of option victory=elimination
# (the other options sum centres over heads, and a universe would ground every possible sum)
VICTORY_UNIVERSE_PROGRAMS = ("victory.lp", "options/victory_elimination.lp")


def _standing(head: Board) -> tuple[frozenset[str], frozenset[str]]:
    """What the elimination rules read of a head: the powers with units there (a unit waiting to
    retreat counts), and the powers with centres there."""
    units = frozenset({u.power for u in head.units.values()} | {r.unit.power for r in head.retreats})
    return units, frozenset(head.centers.values())


def _standings(mv: Multiverse) -> list[Board]:
    """One head for each distinct standing (``_standing``), the first of the heads that share it. The
    rules of option victory=elimination (``VICTORY_UNIVERSE_PROGRAMS``) ask only whether some head
    leaves a power neither units nor centres, so heads that stand alike say the same thing once: a
    multiverse of many heads most often has only a few standings, and then a few facts instead of
    two per head and power, and often a universe (``_victory_universe``) instead of a program."""
    seen: dict[tuple, Board] = {}
    for h in mv.heads:
        seen.setdefault(_standing(h), h)
    return list(seen.values())


def _victory_universe(mv: Multiverse, heads: Sequence[Board]) -> Universe | None:
    """The victory facts over a universe that does not change from phase to phase: the heads are named
    by their rank (``h(K)``), as the rules only tell heads apart and never read a board's name, and every
    atom a head could state for a power is in it. None beyond ``VICTORY_UNIVERSE_HEADS`` heads, where the
    universe (heads x powers x centres) would cost more to ground than the facts of one phase.
    ``heads``: the heads the facts name (``_standings``)."""
    if len(heads) > VICTORY_UNIVERSE_HEADS:
        return None
    fixed, atoms, known = _victory_atoms(mv.game_map, mv.players, len(heads))
    true = {f"out(0,{t.const(p)})" for p in mv.eliminated}
    for k, h in enumerate(heads):
        for power in {u.power for u in h.units.values()} | {r.unit.power for r in h.retreats}:
            true.add(f"has_units(h({k}),{t.const(power)})")
        for power in set(h.centers.values()):
            count = sum(1 for o in h.centers.values() if o == power)
            true.add(f"center_count(h({k}),{t.const(power)},{count})")
    if not true <= known:
        return None  # a power that is not a player holds something: the plain facts say it as it is
    return Universe(fixed, atoms, frozenset(true))


@lru_cache(maxsize=32)
def _victory_atoms(game_map: GameMap, players: tuple[str, ...], heads: int) -> tuple[str, tuple[str, ...], frozenset[str]]:
    """The fixed facts and the atoms of a victory universe, the same for every phase with these players
    and this many heads (several hundred atoms: made once, not per phase)."""
    powers = [t.const(p) for p in players]
    centres = sorted(t.const(p.id) for p in game_map.provinces.values() if p.center)
    fixed: list[Fact] = [("head", Game(0), ("h", k)) for k in range(heads)]
    fixed += [("player", Game(0), p) for p in powers]
    atoms = [f"out(0,{p})" for p in powers]
    for k in range(heads):
        for p in powers:
            atoms.append(f"has_units(h({k}),{p})")
            atoms += [f"center_count(h({k}),{p},{n})" for n in range(1, len(centres) + 1)]
    return render(fixed), tuple(atoms), frozenset(atoms)

