"""The movement phase (docs/rules.md §6.4–§6.5): the battles of the heads and of the past boards new orders
reach, and the boards they produce (``asp/movement.lp``, ``asp/movement/``).

The facts come from ``facts.movement_facts``; the answer says which units moved, who dislodged whom
and which past boards fork. Each head is recorded as fought and advances one turn; a forked board
starts a new timeline. Dislodged units with nowhere to go are disbanded at once (the retreat
program's options), and Fall boards settle their centres.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import MappingProxyType

from ..model.kinds import Result
from ..solver import terms as t
from ..solver.terms import Timeline
from .facts import map_facts, movement_facts, reached_board
from ..model.multiverse import MOVEMENT, Board, Multiverse, Record, Retreat, Unit, make_board
from .answer import Answer, OrderOutcome, backup_words
from ..errors import UsageError
from ..solver.backup import BackupRule
from ..solver.driver import DECISIONS, solve_decisions
from ..solver.encodings import is_rule_text
from ..solver.predicates import render
from .adjustment import settle
from .phase import Query, StepReport, Steps, designation, outcomes, program
from .resolve import resolved_text
from .retreat import drop_hopeless_retreats
from ..model.orders import OrderKind


@dataclass(frozen=True)
class _Outcome:
    """What a movement answer says about each board, grouped once by board."""

    moved: frozenset  # places whose unit left (moved, or departed on a recorded journey)
    dislodged_by: dict  # victim place -> attacker place
    arrivals_into: dict  # board -> [(origin place, arrival location)]
    bounced_on: dict  # board -> provinces left vacant by a standoff
    convoyed: frozenset  # attackers whose province stays open to the units they dislodge (DATC 4.A.5)

    @classmethod
    def read(cls, answer: Answer, departed: frozenset) -> "_Outcome":
        arrivals = answer.arrivals()
        dest_of = answer.place_pairs("move")
        into: dict = {}
        for origin, loc in arrivals.items():
            into.setdefault(dest_of[origin][:2], []).append((origin, loc))
        bounced: dict = {}
        for tl, tn, prov in answer.places("bounced"):
            bounced.setdefault((tl, tn), set()).add(prov)
        return cls(frozenset(arrivals) | departed, answer.place_pairs("dislodged_by"), into, bounced,
                   # datc_4a5 barred: a convoyed attacker's province is closed like any other
                   frozenset() if "convoy_origin_barred" in answer.texts else frozenset(answer.places("convoyed")))


def _produce(mv: Multiverse, source: Board, timeline: int, outcome: _Outcome) -> Board:
    """The board produced from battle ``source`` (docs/rules.md §6.5): who stayed, who arrived, who must retreat."""
    key = source.key
    units = [u for u in source.units.values()
             if (*key, u.province) not in outcome.moved and (*key, u.province) not in outcome.dislodged_by]
    for origin, loc in outcome.arrivals_into.get(key, ()):
        u = mv.boards[origin[:2]].units[origin[2]]
        units.append(Unit(u.kind, u.power, loc))
    barred = frozenset(outcome.bounced_on.get(key, ()))
    retreats = []
    for victim, attacker in sorted(outcome.dislodged_by.items()):
        if victim[:2] == key:
            from_here = attacker[:2] == key and attacker not in outcome.convoyed
            retreats.append(Retreat(source.units[victim[2]], attacker[2] if from_here else None, barred))
    return make_board(timeline, source.turn + 1, units, source.centers, retreats=tuple(retreats))


def _records(heads, orders, owners: dict, true: set, legal: set[int]) -> dict[tuple[int, int], Board]:
    """Writes each head's record: its units' legal orders, who acted on it, and every decision about it."""
    keys = {h.key for h in heads}
    mine: dict = {k: [] for k in keys}
    incoming: dict = {k: set() for k in keys}
    decisions: dict = {k: {} for k in keys}
    for i, r in orders:
        if i not in legal or r.unit is None:
            continue
        if r.unit.board in keys:
            mine[r.unit.board].append(r)
        # supports and jump assists act on the board they support into, or the assisted move goes to
        if r.kind in (OrderKind.SUPPORT_HOLD, OrderKind.SUPPORT_MOVE, OrderKind.JUMP_ASSIST):
            target = (r.dest or r.target).board
            if target in keys and target != r.unit.board:
                incoming[target].add((r.unit.timeline, r.unit.turn, r.unit.province))
    for d, owner in owners.items():
        name, place = d
        if place[:2] in keys:
            decisions[place[:2]][d] = d in true
        if name == "moves" and owner in keys and owner != place[:2]:
            decisions[owner][d] = d in true
            incoming[owner].add(place)
    return {h.key: replace(h, record=Record(tuple(mine[h.key]), tuple(sorted(incoming[h.key])),
                                            MappingProxyType(decisions[h.key]))) for h in heads}


def _backup_notes(mv: Multiverse, backups) -> tuple[str, ...]:
    """The backup rules the driver applied, in words."""
    notes = []
    for rule, places in backups:
        units = []
        for sym in places:
            tl, tn, prov = t.read_place(sym)
            u = mv.boards[(tl, tn)].units.get(prov)
            units.append(f"{u.letter if u else '?'} {mv.game_map.short_name(u.location if u else prov)} "
                         f"({mv.boards[(tl, tn)].name})")
        notes.append(backup_words(BackupRule(rule), ", ".join(units), len(units), note=True))
    return tuple(notes)


def adjudicate(mv: Multiverse, orders, statistics: bool = False, reasons: bool = True) -> Steps:
    """The movement phase of every head, as queries (``phase.Query``): the step's report, before the
    sustain phase is marked due and the victory check (step.py). ``reasons``: why each order has its
    result (``phase.outcomes``)."""
    facts = movement_facts(mv, orders)
    values = facts.facts + tuple(("dissolved", Timeline(tl)) for tl in sorted(mv.dissolved))
    solution = yield Query(program(mv, "movement", reasons), values, map_facts(mv.game_map), statistics)
    answer = Answer.of(solution.atoms)
    outcome = _Outcome.read(answer, facts.departed)
    owners = answer.owners()
    true = {(name, place) for name in DECISIONS for place in answer.places(name)}
    results = answer.order_results(mv.options.chosen("adjacency"))
    legal = {i for i, (res, _) in results.items() if res != Result.INVALID}
    forked = sorted(answer.boards("fork"), key=lambda k: (k[1], k[0]))
    # the heads are recorded as fought now; then each advances
    recorded_heads = _records(mv.heads, orders, owners, true, legal)
    produced = [_produce(mv, h, h.timeline, outcome) for h in mv.heads]
    forks: dict[int, tuple[int, int]] = {}
    next_timeline = max(mv.timelines) + 1
    for key in forked:
        produced.append(_produce(mv, mv.boards[key], next_timeline, outcome))
        forks[next_timeline] = key
        next_timeline += 1
    fought = set(answer.boards("scope"))
    shown = {k for k in fought if k in recorded_heads or k in forked}
    dislodged = [(v[:2], mv.boards[v[:2]].units[v[2]]) for v in sorted(outcome.dislodged_by) if v[:2] in shown]
    dislodgers = tuple(designation(mv, outcome.dislodged_by[v]) for v in sorted(outcome.dislodged_by) if v[:2] in shown)
    after = mv.with_boards(list(recorded_heads.values()) + produced, forks)
    after, disbanded = yield from drop_hopeless_retreats(after, produced)
    after = after.with_boards([settle(after.boards[b.key], after) for b in produced])
    by_id = dict(orders)
    refought = tuple((key, tuple(sorted({resolved_text(by_id[i], mv.game_map) for i in ids})))
                     for key, ids in sorted(answer.reaching().items()))
    # a recorded order is judged again with the past board it stands on, or the one it acts on
    again = fought - {h.key for h in mv.heads}
    rejudged = tuple((resolved_text(r, mv.game_map), results[i][0]) for i, r in facts.recorded
                     if i in results and r.unit is not None and (r.unit.board in again or reached_board(r) in again))
    return StepReport(MOVEMENT, mv, after, outcomes(mv, orders, answer, solution.backups, reasons, results), tuple(dislodged), disbanded,
                      _backup_notes(mv, solution.backups), solution, dislodgers=dislodgers, refought=refought,
                      rejudged=rejudged)



def judged_alone(mv: Multiverse) -> bool:
    """Whether the legality of this multiverse's movement orders can be asked of the legality rules
    alone (``refused``): always, but with a rule of one's own, which may read any predicate of the
    movement program, the decisions included, to refuse an order."""
    return not any(is_rule_text(f) for f in mv.options.files("movement"))


def refused(mv: Multiverse, orders) -> tuple[OrderOutcome, ...]:
    """The orders of a movement step that the rules would ignore, each with its reason, without
    adjudicating the step: the movement program's legality rules (``asp/legality.lp``, with the
    movement option files) on the very facts the step writes (``movement_facts``). The same orders,
    the same reasons as the step's invalid outcomes, at a fraction of its work: what a player's
    submission is checked with while the phase waits (``game.play.check_orders``). Not for a
    multiverse with rules of one's own (``judged_alone``)."""
    if not judged_alone(mv):
        raise UsageError("refused: a rule of one's own may refuse orders by the decisions: adjudicate the step")
    facts = movement_facts(mv, orders)
    values = facts.facts + tuple(("dissolved", Timeline(tl)) for tl in sorted(mv.dissolved))
    atoms = solve_decisions(("legality.lp", *mv.options.files("movement")), render(values), map_facts(mv.game_map),
                            names=frozenset(f[0] for f in values)).atoms
    answer = Answer.of(atoms)
    results = answer.order_results(mv.options.chosen("adjacency"))
    for (i,) in answer.values("legal"):
        results.setdefault(i, (Result.SUCCEEDS, None))  # legal: what it does is the step's to say
    return tuple(x for x in outcomes(mv, orders, answer, (), False, results) if x.result == Result.INVALID)
