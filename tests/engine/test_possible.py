"""The orders ``fivedp game possible`` lists are exactly the ones the engine accepts.

On random multiversal games (``game.random_play.random_game_until``: random play with time travel that forks
timelines, options on and off), samples of the listed orders are submitted through a real step and
none may come out ``invalid`` (sound); random orders around the same units that are *not* listed are
submitted too, and every one must come out ``invalid`` (complete), except the kinds of order the list
leaves out on purpose (docs/game-format.md, ``possible``), which are excluded from the draw by
their definition, not by what the engine says about them.
"""

from __future__ import annotations

import json
import random
import re
from functools import lru_cache

import pytest

from fivedp_asp.model import orders as o
from fivedp_asp.game.random_play import random_game_until as random_game
from fivedp_asp.errors import InputError
from fivedp_asp.model.multiverse import MOVEMENT, Board, Unit
from fivedp_asp.model.notation import format_order, parse_order
from fivedp_asp.engine.possible import legal_orders
from fivedp_asp.engine.step import next_phase, step
from fivedp_asp.model.settings import Settings

SCENARIOS = {
    "family": ({}, 5, 11),
    "options": ({"open_convoys": True, "jump_assists": True}, 4, 12),
    "any": ({"adjacency": "any"}, 4, 13),
    # readings that judge the written text or one order against the unit's others
    "readings": ({"datc_4c5": "invalid", "datc_4c1": "invalid", "datc_4b2": "fails", "datc_4d3": "first",
                  "datc_4e1": "counts"}, 3, 14),
}


@lru_cache(maxsize=None)
def game(name: str):
    options, timelines, seed = SCENARIOS[name]
    g = random_game(timelines, seed, Settings.of(options))
    assert next_phase(g.mv) == MOVEMENT and len(g.mv.timelines) >= timelines
    return g.mv


@lru_cache(maxsize=None)
def listed(name: str):
    return legal_orders(game(name))


def _unit_key(line: str) -> tuple:
    w = parse_order(line, game("family").game_map).unit.where
    return (w.timeline, w.turn, w.province)


def _submit(mv, orders: list[tuple[str, str]]) -> dict[tuple[str, str], tuple[str, str | None]]:
    """Adjudicates the orders (power, line) in batches with one order per unit; (result, reason) of each."""
    out = {}
    todo = list(orders)
    while todo:
        batch, units, rest = [], set(), []
        for power, line in todo:
            key = _unit_key(line)
            (rest if key in units else batch).append((power, line))
            units.add(key)
        lines: dict[str, list[str]] = {}
        for power, line in batch:
            lines.setdefault(power, []).append(line)
        report = step(mv, lines)
        for x in report.outcomes:
            out[(x.power, x.text)] = (x.result, x.reason)
        todo = rest
    return out


def _dest_board(mv, line: str) -> tuple[int, int] | None:
    order = parse_order(line, mv.game_map)
    where = getattr(order, "dest", None) or getattr(getattr(order, "target", None), "where", None)
    return None if where is None else (where.timeline, where.turn)


def _weighted_sample(mv, orders, n: int, rng: random.Random):
    """Listed orders, weighted toward moves, supports and convoys, and among those toward orders that
    reach another board (drawn in two rounds: only the first round's orders are read)."""
    weight = {"hold": 0.2, "move": 2.0, "support_hold": 1.0, "support_move": 2.0, "convoy": 3.0}
    first = rng.choices(orders, [weight.get(p.kind, 1.0) for p in orders], k=4 * n)
    across = [3.0 if _dest_board(mv, p.order) not in (None, mv.find_board(p.board).key) else 1.0 for p in first]
    return rng.choices(first, across, k=n)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_listed_orders_are_accepted(name):
    mv = game(name)
    orders = listed(name)
    kinds = {p.kind for p in orders}
    assert {"hold", "move", "support_hold", "support_move", "convoy"} <= kinds
    if name == "options":
        assert {"open_convoy", "jump_assist"} <= kinds
    rng = random.Random(f"possible-sound/{name}")
    sample = _weighted_sample(mv, list(orders), 100, rng)
    results = _submit(mv, [(p.power, p.order) for p in sample])
    refused = {k: v for k, v in results.items() if v[0] == "invalid"}
    assert refused == {}
    # across boards too: moves and supports to other boards were drawn
    assert sum(1 for p in sample if _dest_board(mv, p.order) not in (None, mv.find_board(p.board).key)) >= 20


def _past_subject(mv, p) -> tuple[Board, object] | None:
    """(board, order) of a listed support or convoy whose supported or convoyed unit stands on a past
    board; None for any other listed order."""
    if p.kind not in ("support_hold", "support_move", "convoy"):
        return None
    order = parse_order(p.order, mv.game_map)
    w = order.target.where
    if (w.timeline, w.turn) in {h.key for h in mv.heads}:
        return None
    return mv.boards[(w.timeline, w.turn)], order


def _matches_history(mv, board: Board, order) -> bool:
    """Whether a support or convoy of a unit on a past board matches what its board's record says the
    unit did (docs/rules.md §6.4: it gets no new order, so its recorded order is what it does when the
    board is fought again; §3.3: a support or convoy that does not match is void): a support to hold,
    a unit whose recorded order was not a move; a support of a move or a convoy, the move it made, into
    a battle it took part in (not a journey into a board already past)."""
    rec = _recorded(mv, board, order.target.where.province)
    if isinstance(order, o.SupportHold):
        return rec is None or rec.kind != "move"
    dest = order.dest
    return (rec is not None and rec.kind == "move" and not _journey(mv, rec)
            and (rec.dest.board, rec.dest.province) == ((dest.timeline, dest.turn), dest.province))


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_listed_supports_and_convoys_of_past_units_match_history(name):
    """Every listed support or convoy of a unit on a past board matches that unit's recorded order,
    and submitted (one order per unit, as alone) it is never void: supports to hold of units that
    moved, supports of journeys and convoys of armies that did something else are not listed."""
    mv = game(name)
    past = [(p, found) for p in listed(name) if (found := _past_subject(mv, p)) is not None]
    assert [p.order for p, (board, order) in past if not _matches_history(mv, board, order)] == []
    assert {"support_hold", "support_move"} <= {p.kind for p, _ in past} and len(past) > 100
    sample = random.Random(f"possible-history/{name}").sample([p for p, _ in past], 40)
    results = _submit(mv, [(p.power, p.order) for p in sample])
    # nothing else moves: nothing can cut or dislodge the supporters, so each support is given
    assert {line: r for (_, line), r in results.items() if r[0] != "succeeds"} == {}


def _board_near(mv, board: Board, rng: random.Random) -> Board:
    """A board one turn either side of ``board``, any timeline (sometimes two turns away)."""
    spread = 2 if rng.random() < 0.15 else 1
    near = [mv.boards[k] for k in mv.boards if abs(k[1] - board.turn) <= spread]
    return rng.choice(near)


def _where(board: Board, location: str) -> o.Where:
    prov, _, coast = location.partition("/")
    return o.Where(prov, coast or None, board.timeline, board.turn)


def _recorded(mv, board: Board, province: str):
    """The recorded order of the unit in ``province`` on a past board (None: it held)."""
    return board.record.order_of(province) if board.record else None


def _journey(mv, r) -> bool:
    """A recorded move into another board that is not part of that board's battle (docs/rules.md §6.4:
    the destination's record does not name the unit)."""
    if r.dest.board == r.unit.board:
        return False
    dest = mv.boards.get(r.dest.board)
    return dest is None or dest.record is None or \
        (r.unit.timeline, r.unit.turn, r.unit.province) not in dest.record.incoming


def _random_order(mv, rng: random.Random, power: str, options: dict) -> str | None:
    """A random order for one of the power's head units, among places it might reach. Never one of the
    orders the list leaves out on purpose: supports and convoys of a unit on a past board that differ
    from what its board's record says it did (a support to hold of a unit that moved, a support or
    convoy of a move it did not make, a support of a journey into a board already past), a fleet's
    destination without its coast, "via convoy" on a fleet's move, jumps, jump assists of past units or
    of moves the assisted unit could not make in space."""
    m = mv.game_map
    heads = [h for h in mv.heads if any(u.power == power for u in h.units.values())]
    head = rng.choice(heads)
    unit: Unit = rng.choice(sorted((u for u in head.units.values() if u.power == power), key=lambda u: u.location))
    me = o.UnitSpec(_where(head, unit.location), unit.kind)
    steps = list(m.neighbours.get((unit.kind, unit.location), ()))
    provinces = sorted(m.provinces)
    kind = rng.choice(["move", "move", "support_hold", "support_move", "support_move", "convoy"]
                      + (["open_convoy", "jump_assist"] if options.get("jump_assists") else []))
    board = _board_near(mv, head, rng)
    if kind == "move":
        if unit.kind == "fleet":
            loc = rng.choice(steps + [unit.location] + list(m.locations(rng.choice(provinces), "fleet")))
            return format_order(o.Move(me, _where(board, loc)), m)
        loc = rng.choice(steps + [unit.location, rng.choice(provinces), rng.choice(_shore_near(m, unit.province))])
        return format_order(o.Move(me, _where(board, loc), rng.random() < 0.3), m)
    if kind == "open_convoy":
        return format_order(o.OpenConvoy(me), m)
    units = sorted(board.units.values(), key=lambda u: u.location)
    if not units:
        return None
    other = rng.choice(units)
    target = o.UnitSpec(_where(board, other.location), None,
                        other.power if options.get("datc_4c5") == "invalid" and other.power != power else None)
    past = board.key not in {h.key for h in mv.heads}
    if kind == "support_hold":
        rec = _recorded(mv, board, other.province) if past else None
        if rec is not None and rec.kind == "move":
            return None
        return format_order(o.SupportHold(me, target), m)
    mover_steps = list(m.neighbours.get((other.kind, other.location), ()))
    dest_board = _board_near(mv, board, rng)
    if kind == "jump_assist":
        if board.key not in {h.key for h in mv.heads}:
            return None
        dest_board = rng.choice(list(mv.boards.values()))
        loc = rng.choice(mover_steps + [other.location])
        return format_order(o.JumpAssist(me, o.UnitSpec(target.where), _where(dest_board, loc)), m)
    if kind == "support_move":
        loc = rng.choice(mover_steps + [other.location] + ([rng.choice(provinces)] if other.kind == "army" else []))
        if past:
            rec = _recorded(mv, board, other.province)
            if rec is None or rec.kind != "move" or _journey(mv, rec):
                return None
            dest = rec.dest
            return format_order(o.SupportMove(me, target, o.Where(dest.province, dest.coast if other.kind == "fleet"
                                                                 else None, dest.timeline, dest.turn)), m)
        return format_order(o.SupportMove(me, target, _where(dest_board, loc)), m)
    # convoy: of a coastal army on a board near the fleet's, to a coastal province a few seas away
    # (mostly on the fleet's own board, where a convoy can be legal)
    armies = [u for u in units if u.kind == "army" and m.provinces[u.province].is_coastal]
    if not armies:
        return None
    army = rng.choice(armies)
    target = o.UnitSpec(_where(board, army.location), None,
                        army.power if options.get("datc_4c5") == "invalid" and army.power != power else None)
    dest_board = head if rng.random() < 0.8 else dest_board
    dest = o.Where(rng.choice(_shore_near(m, unit.province)), None, dest_board.timeline, dest_board.turn)
    if past:
        rec = _recorded(mv, board, army.province)
        if rec is None or rec.kind != "move" or (rec.dest.board, rec.dest.province) != (
                (dest.timeline, dest.turn), dest.province):
            return None
    return format_order(o.Convoy(me, target, dest), m)


def _shore_near(m, province: str) -> list[str]:
    """Coastal provinces within three fleet steps of ``province``."""
    seen, todo = {province}, [province]
    for _ in range(3):
        todo = [m.province_of(x) for p in todo for kind_loc in m.locations(p, "fleet")
                for x in m.neighbours.get(("fleet", kind_loc), ())]
        todo = [p for p in todo if p not in seen and not seen.add(p)]
    return sorted(p for p in seen if m.provinces[p].is_coastal and p != province) or [province]


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_orders_not_listed_are_refused(name):
    mv = game(name)
    options = SCENARIOS[name][0]
    known = {(p.power, p.order) for p in listed(name)}
    rng = random.Random(f"possible-complete/{name}")
    drawn: list[tuple[str, str]] = []
    powers = sorted({u.power for h in mv.heads for u in h.units.values()})
    tries = 0
    while len(drawn) < 120 and tries < 5000:
        tries += 1
        power = rng.choice(powers)
        line = _random_order(mv, rng, power, options)
        if line is None:
            continue
        # the canonical text: as the list prints it (parsed and printed again)
        line = format_order(parse_order(line, mv.game_map), mv.game_map)
        if (power, line) not in known and (power, line) not in drawn:
            drawn.append((power, line))
    assert len(drawn) >= 80
    results = _submit(mv, drawn)
    accepted = sorted(k for k, v in results.items() if v[0] != "invalid")
    assert accepted == []


@pytest.mark.slow
def test_no_listed_army_move_goes_by_convoy_into_the_past():
    """docs/rules.md §6.1: only heads take orders, so no new convoy reaches a past board: an army's listed
    move into a board that is not a head steps there (a neighbour, or its own province) and does not
    ask for a convoy."""
    mv = game("family")
    m = mv.game_map
    heads = {h.key for h in mv.heads}
    seen = 0
    for p in listed("family"):
        if p.kind != "move" or not p.unit.startswith("A "):
            continue
        order = parse_order(p.order, m)
        if (order.dest.timeline, order.dest.turn) in heads:
            continue
        seen += 1
        here = order.unit.where.province
        steps = {m.province_of(x) for x in m.neighbours[("army", here)]} | {here}
        assert order.dest.province in steps and not order.via_convoy, p.order
    assert seen > 20


@pytest.mark.slow
@pytest.mark.parametrize("kind, to", [("move", None), ("support", None), ("convoy", None), (None, "head"),
                                      ("support_move", "head")])
def test_filters_keep_exactly_their_part_of_the_list(kind, to):
    mv = game("family")
    everything = listed("family")
    board = None
    if to == "head":
        board = mv.heads[1].name
    some = legal_orders(mv, kind=kind, to=board)
    kinds = {"support": {"support_hold", "support_move"}}.get(kind, {kind})
    expected = [p for p in everything
                if (kind is None or p.kind in kinds)
                and (board is None or _dest_board(mv, p.order) == mv.find_board(board).key)]
    assert list(some) == expected and expected


def test_filters_for_one_unit_and_power():
    mv = game("family")
    head = mv.heads[0]
    unit = sorted(head.units.values(), key=lambda u: u.location)[0]
    written = f"{unit.letter} {head.name[0]}-{mv.game_map.short_name(unit.location)}"
    mine = legal_orders(mv, power=unit.power, unit=written, kind=["move", "hold"])
    expected = [p for p in listed("family") if p.board == head.name and p.power == unit.power
                and p.unit.split()[1] == mv.game_map.short_name(unit.location) and p.kind in ("move", "hold")]
    assert list(mine) == expected and expected


@pytest.mark.slow
def test_json_document_follows_the_schema():
    import json
    from pathlib import Path

    from fivedp_asp.report.jsonout import possible_document
    from tests.schema_check import errors

    schema = json.loads((Path(__file__).parent.parent.parent / "fivedp_asp/schema/fivedp.schema.json").read_text())
    doc = possible_document(game("options"), listed("options"))
    assert {"open_convoy", "jump_assist"} <= {o["kind"] for o in doc["orders"]}
    assert errors(doc, schema) == []


@pytest.mark.parametrize("kw, words", [({"kind": "teleport"}, "unknown kind of order 'teleport'"),
                                       ({"to": "zz99"}, "no board 'zz99'"),
                                       ({"power": "Atlantis"}, "unknown power 'Atlantis'")])
def test_bad_filters_are_input_errors(kw, words):
    with pytest.raises(InputError, match=words):
        legal_orders(game("family"), **kw)


@pytest.mark.slow
def test_cli_filters(new_game_file, program):
    def run(*args):
        return program(new_game_file.parent, "game", "possible", new_game_file, *args)

    # no fleet stands in a sea at the opening: nobody can convoy
    p = run("--kind", "convoy")
    assert p.returncode == 0 and p.stdout.strip() == "Possible movement orders: 0"
    # worked out from the map: London's fleet may move to the English Channel, North Sea, Wales, Yorkshire
    p = run("--unit", "F Lon", "--kind", "move", "--to", "a0")
    assert p.returncode == 0
    assert sorted(x.strip() for x in p.stdout.splitlines()[2:]) == [
        "F a-Lon@0 - a-Eng@0", "F a-Lon@0 - a-Nth@0", "F a-Lon@0 - a-Wal@0", "F a-Lon@0 - a-Yor@0"]
    p = run("--kind", "teleport")
    assert p.returncode == 2 and "unknown kind of order 'teleport'" in p.stderr and "Traceback" not in p.stderr
    p = run("--to", "q7")
    assert p.returncode == 2 and "no board 'q7'" in p.stderr


@pytest.mark.slow
def test_cli_summarises_a_long_list_and_lists_it_all_on_request(tmp_path, cli):
    """A game of three timelines: England alone has some 1,500 orders. By default they are counted by
    unit (kinds and the boards reached, as --unit, --kind and --to read them); --all prints every one
    of them, and the JSON document is the whole list whatever is asked. No listed support or convoy
    of a unit on a past board differs from what its board's record says the unit did."""
    from fivedp_asp.files.games import save_game

    g = random_game(3, 11)
    path = tmp_path / "g.yaml"
    save_game(path, g)
    mv = g.mv
    status, out, err = cli("game", "possible", path, "--power", "England")
    assert status == 0 and err == ""
    lines = out.splitlines()
    total = int(re.match(r"Possible movement orders: (\d+), too many to list", lines[0])[1])
    assert total > 1000 and len(lines) < 20
    # one line per English unit, each with the filters that narrow the list
    units = sorted(f"{u.letter} {h.name[0]}-{mv.game_map.short_name(u.location)}@{h.turn}"
                   for h in mv.heads for u in h.units.values() if u.power == "England")
    summary = [re.fullmatch(r"    (\S+ \S+): (.*); to (.*)", line) for line in lines if line.startswith("    ")]
    assert sorted(x[1] for x in summary) == units
    counted = sum(int(n) for x in summary for n in re.findall(r"(\d+) [a-z_]+", x[2]))
    assert counted == total
    unit, kinds, boards = summary[0][1], summary[0][2], summary[0][3].split(", ")
    status, out, _ = cli("game", "possible", path, "--unit", unit, "--kind", "support_move", "--to", boards[0], "--all")
    narrowed = [line.strip() for line in out.splitlines() if line.startswith("    ")]
    assert status == 0 and narrowed and all(" S " in x and f" - {boards[0][0]}-" in x for x in narrowed)
    status, out, _ = cli("game", "possible", path, "--power", "England", "--all")
    printed = [line.strip() for line in out.splitlines() if line.startswith("    ")]
    assert status == 0 and out.startswith(f"Possible movement orders: {total}\n") and len(printed) == total
    status, out, _ = cli("game", "possible", path, "--power", "England", "--json")
    assert status == 0 and [x["order"] for x in json.loads(out)["orders"]] == printed
    heads = {h.key for h in mv.heads}
    past = 0
    for line in printed:
        order = parse_order(line, mv.game_map)
        if isinstance(order, (o.SupportHold, o.SupportMove, o.Convoy)):
            w = order.target.where
            if (w.timeline, w.turn) not in heads:
                past += 1
                assert _matches_history(mv, mv.boards[(w.timeline, w.turn)], order), line
    assert past > 20


@pytest.mark.slow
@pytest.mark.parametrize("phase, seed", [("retreat", 22), ("adjustment", 21)])
def test_retreat_and_adjustment_orders(phase, seed):
    """Each listed retreat, disband, build and waive is accepted alone; retreats to the dislodged units'
    other neighbours and builds in other centres are refused."""
    mv = random_game(3, seed, phase=phase).mv
    assert next_phase(mv) == phase
    orders = legal_orders(mv)
    assert orders
    for p in orders:
        outcome = step(mv, {p.power: [p.order]}).outcomes[0]
        assert outcome.result != "invalid", (p.order, outcome.reason)
    known = {(p.power, p.order) for p in orders}
    m = mv.game_map
    others = []
    for b in mv.heads:
        for r in b.retreats:
            me = o.UnitSpec(_where(b, r.unit.location), r.unit.kind)
            for loc in m.neighbours.get((r.unit.kind, r.unit.location), ()):
                prov = m.province_of(loc)
                line = format_order(o.Move(me, o.Where(prov, None, b.timeline, b.turn)), m)
                others.append((r.unit.power, line))
        if b.phase == "adjustment":
            for prov in sorted(p for p in m.provinces if m.provinces[p].center):
                owner = b.centers.get(prov)
                if owner is None:
                    continue
                line = format_order(o.Build(o.UnitSpec(o.Where(prov, None, b.timeline, b.turn), "army")), m)
                others.append((owner, line))
    others = [x for x in others if x not in known]
    assert others
    for power, line in others:
        outcome = step(mv, {power: [line]}).outcomes[0]
        if phase == "retreat":
            assert outcome.result == "invalid", line
        else:
            # a build the list does not give: not a free home centre of its owner, or a fleet-only
            # place, or a power with no builds (then the build fails for want of builds left)
            assert outcome.result == "invalid" or outcome.reason.startswith("no builds left"), (line, outcome.reason)


def test_a_listing_asked_again_and_again_answers_as_a_fresh_one():
    # a server keeps one LegalOrders per phase and asks it unit by unit: each answer must be the one a
    # listing of its own gives, whatever was asked before
    from fivedp_asp.engine.possible import LegalOrders

    mv = random_game(3, seed=5).mv
    listing = LegalOrders(mv)
    units = sorted({p.unit for p in legal_orders(mv) if p.unit})[:6]
    assert units
    for unit in units + units[:2]:
        assert listing(unit=unit) == legal_orders(mv, unit=unit)
    power = next(iter(mv.players))
    assert listing(power=power, kind="support") == legal_orders(mv, power=power, kind="support")
    with pytest.raises(Exception, match="Multiverse"):
        LegalOrders("a-Par@0")


def test_a_question_asked_again_of_a_listing_is_not_solved_again(monkeypatch):
    # a player's page lists a unit's orders again when its button is clicked again
    import fivedp_asp.engine.possible as possible

    mv = random_game(3, seed=5).mv
    listing = possible.LegalOrders(mv)
    unit = sorted({p.unit for p in legal_orders(mv) if p.unit})[0]
    solved = []
    real = possible.solve_decisions
    monkeypatch.setattr(possible, "solve_decisions", lambda *a, **k: solved.append(1) or real(*a, **k))
    first = listing(unit=unit)
    asked = len(solved)
    assert asked >= 1 and listing(unit=unit) == first and len(solved) == asked
    listing(unit=unit, kind=["move", "hold"])
    assert len(solved) == asked + 1  # another question: solved
    assert first == legal_orders(mv, unit=unit)
