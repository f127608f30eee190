"""Game records that prove themselves: ``fivedp game verify`` replays a game file from its start.

A corpus of edited game files: seeded multiversal games (forks, retreats, builds, time travel) are
played, written, and then edited systematically — units moved, removed and added on past boards and
heads, centres changed, results flipped, orders dropped from the history (with their results),
recorded orders and decisions dropped or flipped, fork parents changed — and sealed again as a hand
edit would be. Every edit must be refused: by the loader's consistency checks (damaged) or by the
replay, which must name the edited board (or the edited step). Unedited games, those played here
and every scenario of ``cases/`` played as a game, must replay as recorded.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import random
from collections import Counter
from pathlib import Path

import pytest
import yaml

from fivedp_asp import api
from fivedp_asp.errors import InputError
from fivedp_asp.files.games import game_data, load_game, save_game
from fivedp_asp.game.play import adjudicate, submit
from fivedp_asp.game.state import Game, new_game
from fivedp_asp.files.layout import json_line
from fivedp_asp.files.integrity import reseal
from fivedp_asp.report.jsonout import load_schema
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import board_name_readings
from fivedp_asp.files.verify import verify_games
from fivedp_asp.model.settings import Settings

from tests.schema_check import errors as schema_errors
from tests.files.test_game import GAME, opening, play_in_memory
from tests.scenario_runs import SHARED, every_scenario, every_scenario_checked

ROOT = Path(__file__).resolve().parent.parent.parent
MAP = load_map("standard")
STEPS = 8  # steps of each random game: about two game years, with forks
EDITS_PER_KIND = 2  # edits of each kind made on each game, chosen by a seeded generator


# -- the games ------------------------------------------------------------------------------------


def random_game(name: str, options: dict, steps: int = STEPS, after_step=None) -> Game:
    """Random play from the opening with moves and supports into past and parallel boards (the
    generators of test_random_multiverse, with the orders of open_convoys and jump_assists when
    jump_assists is on), through the game API as players give orders; random votes in sustain phases.
    ``name`` seeds the play; ``after_step(game)`` is called after every step adjudicated."""
    from fivedp_asp.lab.compare.lockstep import opening as classic_opening
    from fivedp_asp.game.random_orders import OrderGenerator

    from tests.engine.test_random_multiverse import random_orders

    rng = random.Random(name)
    gen = OrderGenerator(MAP, rng)
    mv = dataclasses.replace(classic_opening(MAP), players=tuple(MAP.powers), options=Settings.of(options))
    game = new_game(mv)
    for _ in range(steps):
        orders = random_orders(game.mv, gen, rng, option_orders=bool(options.get("jump_assists")))
        for power, lines in orders.items():
            game = submit(game, power, lines, add=True)
        game, _ = adjudicate(game)
        if after_step is not None:
            after_step(game)
        if game.mv.winner:
            break
    return game


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, Game]:
    """The multiversal game of test_game.py (15 steps: forks, a retreat, builds, a waive, civil
    disorder) and two random games, one with open convoys and jump assists."""
    folder = tmp_path_factory.mktemp("verify")
    played, _ = play_in_memory(opening(folder), GAME)
    out = {"test_game": played}
    for seed, options in ((1, {}), (3, {"open_convoys": True, "jump_assists": True})):
        out[f"random {seed}"] = random_game(f"fivedp-verify/{seed}", options)
    assert all(len(g.mv.timelines) > 1 for g in out.values()), "every game should have forked"
    return out


# -- game files as a hand edit writes them ----------------------------------------------------------


def _format_3(data: dict) -> str:
    """A game (``game_data``'s one document) written in format 3 and sealed, as a hand edit sealed
    again is: its ``checked`` line no longer matches, so the loader reads and checks all of it."""
    boards = data["boards"]
    last: dict[int, int] = {}
    for name in boards:
        t, n = board_name_readings(name)[0]
        last[t] = max(last.get(t, n), n)
    latest = {name: b for name, b in boards.items() if board_name_readings(name)[0][1] == last[board_name_readings(name)[0][0]]}
    top = {k: v for k, v in data.items() if k not in ("boards", "history", "end")}
    top["latest"] = latest
    top["checked"] = "sha256:" + "0" * 64
    past = "".join(f"  {name}: {json_line(b)}\n" for name, b in boards.items() if name not in latest)
    history = "".join(f"- {json_line(h)}\n" for h in data["history"])
    # libyaml's dumper where PyYAML has it: the same text as the pure-Python one, several times faster
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    written = yaml.dump(top, Dumper=dumper, sort_keys=False, allow_unicode=True)
    text = ("# fivedp game file (docs/game-format.md)\n" + written
            + ("past:\n" + past if past else "past: {}\n") + ("history:\n" + history if history else "history: []\n")
            + "end: fivedp-game\n")
    return reseal(text)


def _names(boards: dict) -> list[str]:
    return sorted(boards, key=lambda n: board_name_readings(n)[0])


def _unit_province(text: str) -> str:
    return MAP.province_of(MAP.province(text.split()[1].split("/")[0]))


@dataclasses.dataclass(frozen=True)
class Edit:
    kind: str
    what: str
    data: dict
    board: str | None = None  # the board the replay must name, when the edit is on one board
    step: int | None = None  # the step it must name, when the edit is of one step
    # an order dropped from the history with its result that, by the rules, changed nothing: the file
    # is then the honest record of the game played without it, and replay cannot tell
    no_effect: bool = False


def _changes_nothing(phase: str, result: dict) -> bool:
    """Whether an order, by the rules (docs/rules.md §2, §4, §5), may leave no trace that its absence
    would not leave too: an illegal order is ignored; a failed retreat or adjustment order changes
    nothing; a disband or a waive may do what no order does (a dislodged unit without an order
    disbands, civil disorder may remove the same unit, builds not made are waived). A legal movement
    order is kept in its board's record, so it always leaves a trace."""
    from fivedp_asp.model import orders as o
    from fivedp_asp.model.notation import parse_order

    if result["result"] == "invalid":
        return True
    if phase == "movement":
        return False
    return result["result"] == "fails" or isinstance(parse_order(result["order"], MAP), (o.Disband, o.Waive))


def _edits(data: dict, rng: random.Random) -> list[Edit]:
    """Systematic edits of a game, at most ``EDITS_PER_KIND`` of each kind, each keeping the file's
    shape (names, units and places a file may hold)."""
    out: list[Edit] = []
    boards = data["boards"]
    players = data["players"]

    def pick(candidates: list, kind: str, make) -> None:
        for c in rng.sample(candidates, min(EDITS_PER_KIND, len(candidates))):
            edit = make(copy.deepcopy(data), c)
            if edit is not None:
                out.append(edit)

    units = [(name, power, i) for name in _names(boards) for power, us in boards[name]["units"].items()
             for i in range(len(us))]

    def moved(d, c):
        name, power, i = c
        board = d["boards"][name]
        text = board["units"][power][i]
        kind = "army" if text.startswith("A ") else "fleet"
        loc = MAP.unit_location(kind, MAP.province(text[2:].split("/")[0]),
                                text.split("/")[1] if "/" in text else None)
        taken = {_unit_province(u) for us in board["units"].values() for u in us}
        free = sorted(x for x in MAP.neighbours.get((kind, loc), ()) if "/" not in x and MAP.province_of(x) not in taken)
        if not free:
            return None
        new = f"{text[0]} {MAP.short_name(rng.choice(free))}"
        board["units"][power][i] = new
        return Edit("moved unit", f"{name}: {power} {text} to {new}", d, board=name)

    def removed(d, c):
        name, power, i = c
        text = d["boards"][name]["units"][power].pop(i)
        return Edit("removed unit", f"{name}: {power} {text}", d, board=name)

    pick(units, "moved unit", moved)
    pick(units, "removed unit", removed)

    def added(d, name):
        board = d["boards"][name]
        taken = {_unit_province(u) for us in board["units"].values() for u in us}
        land = sorted(p for p, prov in MAP.provinces.items() if prov.type in ("land", "coast") and p not in taken)
        power = rng.choice(players)
        text = f"A {MAP.short_name(rng.choice(land))}"
        board["units"].setdefault(power, []).append(text)
        return Edit("added unit", f"{name}: {power} {text}", d, board=name)

    pick(_names(boards), "added unit", added)
    centres = [(name, power, i) for name in _names(boards) for power, cs in boards[name]["centers"].items()
               for i in range(len(cs))]

    def centre(d, c):
        name, power, i = c
        board = d["boards"][name]
        prov = board["centers"][power].pop(i)
        other = rng.choice([p for p in players if p != power] + [None])
        if other is not None:
            board["centers"].setdefault(other, []).append(prov)
        return Edit("changed centre", f"{name}: {prov} from {power} to {other or 'nobody'}", d, board=name)

    pick(centres, "changed centre", centre)
    results = [(i, j) for i, h in enumerate(data["history"]) for j in range(len(h.get("results", ())))]

    def flipped(d, c):
        i, j = c
        r = d["history"][i]["results"][j]
        old = r["result"]
        r["result"] = {"succeeds": "fails", "fails": "succeeds", "invalid": "succeeds"}[old]
        return Edit("flipped result", f"step {i + 1}: {r['order']} {old} -> {r['result']}", d, step=i + 1)

    def dropped(d, c):
        # the order and its result both gone: the step still reads as a complete one
        i, j = c
        h = d["history"][i]
        r = h["results"].pop(j)
        lines = h["orders"].get(r["power"], [])
        if r["order"] in lines:
            lines.remove(r["order"])
        return Edit("dropped order", f"step {i + 1}: {r['power']}: {r['order']}", d, step=i + 1,
                    no_effect=_changes_nothing(h["phase"], r))

    pick(results, "flipped result", flipped)
    pick(results, "dropped order", dropped)
    recorded = [(name, power, i) for name in _names(boards) for power, xs in
                (boards[name].get("record") or {}).get("orders", {}).items() for i in range(len(xs))]

    def unrecorded(d, c):
        name, power, i = c
        text = d["boards"][name]["record"]["orders"][power].pop(i)
        return Edit("dropped recorded order", f"{name}: {power}: {text}", d, board=name)

    pick(recorded, "dropped recorded order", unrecorded)
    decisions = [(name, k) for name in _names(boards) for k in (boards[name].get("record") or {}).get("decisions", {})]

    def decision(d, c):
        name, k = c
        decided = d["boards"][name]["record"]["decisions"]
        decided[k] = not decided[k]
        return Edit("flipped decision", f"{name}: {k} -> {decided[k]}", d, board=name)

    pick(decisions, "flipped decision", decision)
    fought = [n for n in _names(boards) if "record" in boards[n]]

    def fork(d, t):
        parent = d["forks"][t]
        d["forks"][t] = rng.choice([n for n in fought if n != parent])
        return Edit("changed fork", f"forks: {t} from {parent} to {d['forks'][t]}", d)

    pick(sorted(data["forks"]), "changed fork", fork)
    made = [(i, t) for i, h in enumerate(data["history"]) for t in (h.get("new_timelines") or {})]

    def recorded_fork(d, c):
        i, t = c
        forks = d["history"][i]["new_timelines"]
        old = forks[t]
        forks[t] = rng.choice([n for n in fought if n != old])
        return Edit("changed fork in history", f"step {i + 1}: {t} from {old} to {forks[t]}", d, step=i + 1)

    pick(made, "changed fork in history", recorded_fork)
    return out


@pytest.mark.slow
def test_every_edit_of_a_played_game_is_refused_or_reported(games, tmp_path):
    """The corpus: each edit sealed again is refused as damaged or reported by the replay, at the
    edited board or step; the unedited files replay as recorded."""
    rng = random.Random("fivedp-verify-edits")
    loaded: list[tuple[str, Edit | None, Game]] = []
    made, damaged = Counter(), Counter()
    for label, game in games.items():
        data = game_data(game)
        path = tmp_path / "control.yaml"
        path.write_text(_format_3(data), encoding="utf-8")
        control = load_game(path)  # the unedited file written the same way loads as the same game
        assert game_data(control) == data, label
        loaded.append((label, None, control))
        for edit in _edits(data, rng):
            made[edit.kind] += 1
            path.write_text(_format_3(edit.data), encoding="utf-8")
            try:
                loaded.append((label, edit, load_game(path)))
            except InputError as exc:
                assert "damaged game file" in str(exc), (label, edit.what, str(exc))
                damaged[edit.kind] += 1
    reports = verify_games([g for _, _, g in loaded])
    reported, unseen = Counter(), Counter()
    for (label, edit, _), report in zip(loaded, reports):
        if edit is None:
            assert report.honest, (label, report.divergence)
            continue
        if report.honest and edit.no_effect:
            unseen[edit.kind] += 1
            continue
        assert not report.honest, f"{label}: {edit.kind} not noticed: {edit.what}"
        reported[edit.kind] += 1
        d = report.divergence
        if edit.board is not None:
            assert d.board == edit.board, (label, edit.what, d.text())
        if edit.step is not None:
            assert d.step == edit.step, (label, edit.what, d.text())
    table = "\n".join(f"  {kind:26} {made[kind]:3} made, {damaged[kind]:3} refused as damaged, "
                      f"{reported[kind]:3} reported by the replay"
                      + (f", {unseen[kind]} changed nothing the rules see" if unseen[kind] else "")
                      for kind in sorted(made))
    print(f"\nedits of {len(games)} games:\n{table}")
    assert all(made[k] for k in ("moved unit", "removed unit", "added unit", "changed centre", "flipped result",
                                 "dropped order", "dropped recorded order", "flipped decision", "changed fork",
                                 "changed fork in history")), made
    assert made == damaged + reported + unseen
    assert unseen["dropped order"] < made["dropped order"] and set(unseen) <= {"dropped order"}, unseen


# -- unedited games replay as recorded --------------------------------------------------------------


def _scenario_games(tmp_path: Path) -> list[tuple[str, Game]]:
    """Every scenario of cases/ played as a game from its start (as ``fivedp game new --from CASE``
    and each step's orders given and adjudicated), in lockstep; saved and loaded back. A scenario
    whose game is won before its last step stops there (a won game takes no more orders), as its
    run does: each step's report is the one ``check_scenarios`` gave (``tests/scenario_runs.py``),
    which adjudicates the scenarios in lockstep as ``step_many`` does a server's games."""
    out = []
    for scenario, run in zip(every_scenario(), every_scenario_checked()):
        assert not isinstance(run, Exception), (scenario.path, run)
        game = new_game(scenario.start)
        for s, report in zip(scenario.steps, run.reports):
            assert not game.mv.winner and report.before == game.mv, scenario.path
            game = dataclasses.replace(game, pending={
                MAP.power(str(p)) or str(p): [str(x) for x in lines or ()] for p, lines in s.orders.items()})
            game, _ = adjudicate(game, report)
        assert len(run.reports) == len(scenario.steps) or game.mv.winner, scenario.path
        path = tmp_path / "case-game.yaml"
        save_game(path, game)
        out.append((scenario.path, load_game(path)))
    return out


@pytest.mark.slow
@pytest.mark.shares(SHARED)
def test_unedited_games_replay_as_recorded(games, tmp_path):
    """No false alarm: the games played here, and every scenario of cases/ played as a game, replay
    exactly as their files record them."""
    named = [(label, g) for label, g in games.items()] + _scenario_games(tmp_path)
    assert len(named) > 300
    reports = verify_games([g for _, g in named])
    for (label, game), report in zip(named, reports):
        assert report.honest, f"{label}: {report.divergence.text()}"
        assert report.steps == len(game.history) and report.boards == len(game.mv.boards), label


# -- the command, accept, and the consistency checks ------------------------------------------------


@pytest.fixture(scope="module")
def five(tmp_path_factory) -> tuple[Path, str]:
    """The first five steps of test_game.py's game: forks b (from a0) and c (from a1), Vienna
    dislodged on a1 and retreated, builds; a3 is Fall 1902."""
    folder = tmp_path_factory.mktemp("verify-cli")
    g, _ = play_in_memory(opening(folder), GAME[:5])
    path = folder / "g.yaml"
    save_game(path, g)
    return path, path.read_text(encoding="utf-8")


def _edited(path: Path, text: str, name: str, old: str, new: str, count: int = 1) -> Path:
    assert old in text, old
    target = path.parent / name
    target.write_text(reseal(text.replace(old, new, count)), encoding="utf-8")
    return target


@pytest.mark.slow
def test_verify_reports_an_honest_record_and_the_first_divergence(five, cli):
    path, text = five
    status, out, err = cli("game", "verify", str(path))
    assert status == 0, err
    assert out == f"{path}: 5 steps replayed, 7 boards and every result as recorded\n"
    status, out, _ = cli("game", "verify", str(path), "--json")
    doc = json.loads(out)
    assert status == 0 and doc["honest"] and doc["steps"] == 5 and doc["divergence"] is None
    assert not schema_errors(doc, load_schema())
    # Vienna's hold failed in step 2 (the army was dislodged): the record says it succeeded
    line = next(x for x in text.splitlines() if x.startswith('- {"phase": "movement", "boards": ["a1"]'))
    flipped = line.replace('"order": "A Vie H", "qualified": "A a-Vie@1 H", "board": "a1", "result": "fails"',
                           '"order": "A Vie H", "qualified": "A a-Vie@1 H", "board": "a1", "result": "succeeds"')
    assert flipped != line
    bad = _edited(path, text, "flipped.yaml", line, flipped)
    status, out, err = cli("game", "verify", str(bad))
    assert status == 2 and out == ""
    assert err == (f"error: {bad}: not an honest record: step 2, board a1: Austria: A Vie H: "
                   "recorded succeeds, replayed fails\n")
    status, out, err = cli("game", "verify", str(bad), "--json")
    doc = json.loads(out)
    assert status == 2 and not doc["honest"] and "not an honest record" in err
    assert (doc["divergence"]["step"], doc["divergence"]["board"]) == (2, "a1")
    assert not schema_errors(doc, load_schema())


def test_verify_names_a_moved_unit_on_a_past_board(five, cli):
    path, text = five
    # a1 was made by step 1 (Spring 1901), in which Turkey gave no orders: its army stayed in Constantinople
    past_a1 = next(x for x in text.splitlines() if x.startswith("  a1: "))
    moved = _edited(path, text, "moved.yaml", past_a1, past_a1.replace('"A Con", ', '"A Bul", ', 1))
    status, _, err = cli("game", "verify", str(moved))
    assert status == 2
    assert err == f"error: {moved}: not an honest record: step 1, board a1: units: recorded Turkey: A Bul, replayed Turkey: A Con\n"


@pytest.mark.slow
def test_accept_refuses_an_edit_of_what_was_played_and_takes_an_edit_of_waiting_orders(five, cli):
    path, text = five
    past_a1 = next(x for x in text.splitlines() if x.startswith("  a1: "))
    target = path.parent / "accept.yaml"
    edited = text.replace(past_a1, past_a1.replace('"A Con", ', '"A Bul", ', 1))
    target.write_text(edited, encoding="utf-8")
    status, out, err = cli("game", "accept", str(target))
    assert status == 2 and out == ""
    assert err.startswith(f"error: {target}: not an honest record: step 1, board a1: units: "), err
    assert target.read_text(encoding="utf-8") == edited  # left as it was
    # waiting orders are not part of what was played: replay does not cover them
    edited = text.replace("pending: {}\n", "pending:\n  Germany:\n  - A Sil - Pru\n")
    target.write_text(edited, encoding="utf-8")
    status, out, err = cli("game", "accept", str(target))
    assert status == 0, err
    assert out.startswith(f"Accepted {target}: 7 boards in 3 timelines, 5 steps played; checked, replayed")
    assert load_game(target).pending == {"Germany": ["A Sil - Pru"]}


@pytest.mark.parametrize("name, old, new, problem", [
    # a3 is Fall 1902: adjustments come after a Fall battle, before a Spring board's movement
    ("fall-adjustment.yaml", "  a3:\n    units:\n", "  a3:\n    adjustment_due: true\n    units:\n",
     "board a3 waits for adjustments, but it is Fall 1902: adjustments come after a Fall battle, before the "
     "next Spring's movement"),
    ("unknown-power.yaml", '"record": {"orders": {"Germany": ["A a-Boh@1 - a-Vie@1"',
     '"record": {"orders": {"Atlantis": ["A a-Boh@1 - a-Vie@1"',
     "board a1: recorded order 'A a-Boh@1 - a-Vie@1' of unknown power 'Atlantis'"),
    ("undesignated.yaml", '"Germany": ["A a-Boh@1 - a-Vie@1"', '"Germany": ["A Boh - a-Vie@1"',
     "board a1: recorded order 'A Boh - a-Vie@1' does not designate its unit's board"),
    ("other-board.yaml", '"Germany": ["A a-Boh@1 - a-Vie@1"', '"Germany": ["A a-Mun@0 - a-Boh@0"',
     "board a1: recorded order 'A a-Mun@0 - a-Boh@0' is for a unit on a0"),
    ("foreign-unit.yaml", '"Germany": ["A a-Boh@1 - a-Vie@1", "F a-Den@1 H"', '"Germany": ["A a-Boh@1 - a-Vie@1", "A a-Ser@1 H"',
     "board a1: recorded order 'A a-Ser@1 H' of Germany names no unit of Germany there"),
])
def test_the_full_check_refuses_impossible_adjustments_and_records(five, cli, name, old, new, problem):
    path, text = five
    bad = _edited(path, text, name, old, new)
    for command in (["show"], ["verify"], ["accept"]):
        status, out, err = cli("game", command[0], str(bad))
        assert status == 2 and out == "", (command, err)
        assert err == f"error: {bad}: damaged game file: {problem}\n", (command, err)


def test_the_api_verifies_a_game(five):
    path, _ = five
    report = api.verify_game(api.load_game(path))
    assert report.honest and report.steps == 5 and report.boards == 7
    assert report.summary("g") == "g: 5 steps replayed, 7 boards and every result as recorded"


def test_a_game_begun_in_an_adjustment_phase_on_any_turn_loads(tmp_path):
    """The start of a scenario may be an adjustment phase on any turn (docs/case-format.md): the
    first board of a game begun there waits for adjustments whatever its season."""
    scenario = tmp_path / "case.yaml"
    scenario.write_text("id: x\nstart:\n  turn: 1\n  phase: adjustment\n  units: {Germany: [A Mun]}\n"
                    "  centers: {Germany: [Mun, Ber, Kie]}\nsteps: []\n", encoding="utf-8")
    game = api.game_from_scenario(scenario)
    assert game.mv.heads[0].adjustment_due
    api.save_game(game, tmp_path / "g.yaml")
    game, _ = api.adjudicate(api.submit_orders(api.load_game(tmp_path / "g.yaml"), ["Build A Ber"]).game)
    api.save_game(game, tmp_path / "g.yaml")
    assert api.verify_game(api.load_game(tmp_path / "g.yaml")).honest


@pytest.mark.slow
def test_a_game_replays_as_recorded_in_another_process(games, tmp_path, program):
    """The replay compares the words of every reason: they must not depend on the process (a set's
    order under another hash seed). Written here, verified by another process with its own seed."""
    for n, label in enumerate(("test_game", "random 3")):
        save_game(tmp_path / f"g{n}.yaml", games[label])
    for n, seed in enumerate(("1", "4242")):
        p = program(tmp_path, "game", "verify", f"g{n}.yaml", env={"PYTHONHASHSEED": seed})
        assert p.returncode == 0 and "every result as recorded" in p.stdout, p.stderr


def test_a_game_without_a_start_cannot_prove_itself(five, cli):
    """A file without ``start`` (only a program writes one) cannot be replayed: verify and accept say so."""
    path, text = five
    begin, end = text.index("\nstart:\n") + 1, text.index("\npending:")
    bad = path.parent / "no-start.yaml"
    bad.write_text(reseal(text[:begin] + "start: {}" + text[end:]), encoding="utf-8")
    for command in ("verify", "accept"):
        status, out, err = cli("game", command, str(bad))
        assert status == 2 and out == "", (command, err)
        assert err == (f"error: {bad}: not an honest record: the start: no start position is recorded, so the "
                       "game cannot be replayed\n"), (command, err)


def test_recorded_orders_the_replay_refuses_stop_it_at_their_step(five, cli):
    """A step's order line the rules cannot read: the replay stops there, with the reason."""
    path, text = five
    line = next(x for x in text.splitlines() if x.startswith('- {"phase": "movement", "boards": ["a1"]'))
    bad = _edited(path, text, "refused.yaml", line, line.replace('"Russia": ["A Ukr - a-Gal@0"]',
                                                                  '"Russia": ["A Ukr - a-Gal@0", "A Mos - Narnia"]'))
    status, _, err = cli("game", "verify", str(bad))
    assert status == 2
    assert err.startswith(f"error: {bad}: not an honest record: step 2: the recorded orders cannot be adjudicated: "), err
    assert "Narnia" in err, err


@pytest.mark.slow
def test_a_game_with_sustain_phases_replays_as_recorded(tmp_path):
    """Sustain phases (votes, dissolved timelines) and every option on: the replay gives the same
    votes, dissolutions and boards; a dissolution or the year of the last phase edited in the top is
    refused or reported."""
    game = random_game("fivedp-verify/4", {"sustain": True, "open_convoys": True, "jump_assists": True}, steps=20)
    assert any(h["phase"] == "sustain" for h in game.history)
    path = tmp_path / "g.yaml"
    save_game(path, game)
    report = api.verify_game(load_game(path))
    assert report.honest, report.divergence.text()
    assert report.steps == len(game.history)
    assert 7 in game.mv.dissolved and game.mv.sustain_held is not None  # timeline h voted out
    text = path.read_text(encoding="utf-8")
    held = f"  held: {1901 + game.mv.sustain_held}\n"
    for what, old, new in (("dissolved timelines", "  - h\n", ""),
                           ("sustain held", held, f"  held: {1900 + game.mv.sustain_held}\n")):
        assert text.count(old) == 1, old
        path.write_text(reseal(text.replace(old, new)), encoding="utf-8")
        try:
            report = api.verify_game(load_game(path))
        except InputError as exc:
            assert "damaged game file" in str(exc)
            continue
        assert not report.honest and report.divergence.what == what, report.divergence


@pytest.mark.slow
def test_a_game_adjudicated_without_reasons_replays_as_recorded_and_its_results_are_still_checked(tmp_path):
    """``adjudicate(..., reasons=False)`` records legal orders' results without reason or explanation:
    the replay (with reasons) compares every result but not the reasons the record does not have; a
    flipped result of such a game is still found."""
    g = new_game(opening(tmp_path))
    for plan in GAME[:5]:
        for sub in plan.subs:
            g = submit(g, sub.power, list(sub.lines), add=sub.add)
        g, _ = adjudicate(g, reasons=False)
    legal = [r for h in g.history for r in h.get("results", ()) if r.get("result") != "invalid"]
    assert legal and not any(r.get("reason") or r.get("explanation") for r in legal)
    assert any(r.get("result") == "fails" for r in legal)  # results that a reason would have explained
    path = tmp_path / "no-reasons.yaml"
    save_game(path, g)
    report = verify_games([load_game(path)])[0]
    assert report.honest, report.divergence.text()
    assert report.steps == 5
    text = path.read_text(encoding="utf-8")
    flipped = next(r for h in g.history for r in h["results"] if r.get("result") == "fails")
    old = json.dumps({"result": "fails"})[1:-1]
    assert old in text
    edited = tmp_path / "flipped.yaml"
    edited.write_text(reseal(text.replace(old, json.dumps({"result": "succeeds"})[1:-1], 1)), encoding="utf-8")
    report = verify_games([load_game(edited)])[0]
    assert not report.honest
    assert report.divergence.step == next(n for n, h in enumerate(g.history, 1) if flipped in h["results"])
