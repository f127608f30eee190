"""Damaged game files: a played multiversal game file cut short, with a line deleted, with bytes
flipped and with inconsistent hand edits is refused with a message (exit status 2), never crashes
and never loads as a different game; ``fivedp game accept`` takes a deliberate, consistent edit.
The game is played here, through the API, with two forks (timelines b and c)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from fivedp_asp.cli import commands as cli
from fivedp_asp.errors import InputError
from fivedp_asp.files.games import game_data, load_game, save_game
from fivedp_asp.game.play import submit
from fivedp_asp.files.integrity import reseal

from tests.files.test_game import GAME, format_2_text, opening, play_in_memory  # the multiversal game of test_game.py
from tests.files.test_game import fivedp  # a command as a process of its own, forked (tests/forked.py)


def _written(path: Path, g, version: int) -> None:
    if version == 3:
        save_game(path, g)
    else:  # format 2, as earlier versions of fivedp wrote it: still read
        path.write_text(format_2_text(g), encoding="utf-8")


@pytest.fixture(scope="module", params=[3, 2])
def played(request, tmp_path_factory) -> tuple[Path, str, dict]:
    """Five steps (forks b from a0 and c from a1, a retreat, builds), then an order waiting; written
    in format 3 and in format 2."""
    folder = tmp_path_factory.mktemp("integrity")
    g, _ = play_in_memory(opening(folder), GAME[:5])
    g = submit(g, "Germany", ["A Sil - War"])
    path = folder / "g.yaml"
    _written(path, g, request.param)
    return path, path.read_text(encoding="utf-8"), game_data(load_game(path))


@pytest.fixture(scope="module", params=[3, 2])
def retreating(request, tmp_path_factory) -> tuple[Path, str]:
    """Two steps: an Austrian army dislodged from Vienna waits to retreat on a2."""
    folder = tmp_path_factory.mktemp("retreating")
    g, _ = play_in_memory(opening(folder), GAME[:2])
    path = folder / "g.yaml"
    _written(path, g, request.param)
    return path, path.read_text(encoding="utf-8")


def version_of(text: str) -> int:
    return int(re.search(r"^version: (\d+)$", text, re.MULTILINE)[1])


def refused_or_same(path: Path, whole: dict, what: str) -> str | None:
    """The file is refused (the message) or loads as the very same game (None); anything else fails."""
    try:
        got = game_data(load_game(path))
    except InputError as exc:
        assert str(exc).startswith(f"{path}: "), (what, str(exc))
        return str(exc)
    assert got == whole, f"{what}: loads as a different game"
    return None


def test_the_played_game_has_forks(played):
    _, text, whole = played
    assert whole["forks"] == {"b": "a0", "c": "a1"}
    assert text.splitlines()[-1].startswith("checksum: sha256:")


@pytest.mark.slow
def test_every_single_line_deletion_is_refused(played):
    path, text, whole = played
    lines = text.splitlines(keepends=True)
    bad = path.with_name("deleted.yaml")
    for i in range(len(lines)):
        bad.write_text("".join(lines[:i] + lines[i + 1:]), encoding="utf-8")
        assert refused_or_same(bad, whole, f"line {i + 1} deleted") is not None, f"line {i + 1} deleted"


@pytest.mark.slow
def test_every_truncation_is_refused(played):
    path, text, whole = played
    data = text.encode("utf-8")
    bad = path.with_name("cut.yaml")
    for n in range(len(data)):
        bad.write_bytes(data[:n])
        assert refused_or_same(bad, whole, f"cut at byte {n}") is not None, f"cut at byte {n}"


@pytest.mark.slow
def test_flipped_bytes_are_refused(played):
    path, text, whole = played
    data = bytearray(text.encode("utf-8"))
    bad = path.with_name("flipped.yaml")
    rng = random.Random(14)
    for n in sorted(rng.sample(range(len(data)), 300)):
        for bit in (0x01, 0x20):
            copy = bytearray(data)
            copy[n] ^= bit
            bad.write_bytes(bytes(copy))
            assert refused_or_same(bad, whole, f"byte {n} ^ {bit:#x}") is not None, f"byte {n} ^ {bit:#x}"


def _top_edits(v: int) -> list:
    """Edits of the part every format writes alike (forks, standing, version, players, waiting orders,
    start), for a file of format ``v``."""
    return [
        ("a fork pointing at a missing board", lambda t: t.replace("\n  b: a0\n", "\n  b: a9\n"),
         "forked from a9, which is no board"),
        ("a fork pointing at the wrong board", lambda t: t.replace("\n  b: a0\n", "\n  b: a1\n"),
         "timeline b forked from a1 starts at b1, not b2"),
        ("a fork from a later timeline", lambda t: t.replace("\n  b: a0\n", "\n  b: c2\n"),
         "a board of a later timeline"),
        ("a fork removed", lambda t: t.replace("\n  b: a0\n", "\n"), "timeline b is not in forks"),
        ("winner: Atlantis", lambda t: t.replace("\nwinner: null\n", "\nwinner: Atlantis\n"), "'Atlantis'"),
        ("a winner the boards do not make", lambda t: t.replace("\nwinner: null\n", "\nwinner: Germany\n"),
         "winner: the boards do not give Germany the victory"),
        ("version: 0", lambda t: t.replace(f"\nversion: {v}\n", "\nversion: 0\n"), "unknown game format version 0"),
        ("version: -5", lambda t: t.replace(f"\nversion: {v}\n", "\nversion: -5\n"), "unknown game format version -5"),
        ("version: 1 with a checksum", lambda t: t.replace(f"\nversion: {v}\n", "\nversion: 1\n"),
         "unknown game format version 1"),
        ("version: two", lambda t: t.replace(f"\nversion: {v}\n", "\nversion: two\n"), "no version"),
        ("version: true", lambda t: t.replace(f"\nversion: {v}\n", "\nversion: true\n"), "no version"),
        ("an unknown power in players", lambda t: t.replace("\n- Austria\n", "\n- Atlantis\n", 1), "'Atlantis'"),
        ("a player removed", lambda t: t.replace("\n- Austria\n", "\n", 1), "Austria is not a player"),
        ("an unknown power eliminated", lambda t: t.replace("\neliminated: []\n", "\neliminated: [Atlantis]\n"),
         "'Atlantis'"),
        ("a power eliminated that still has units", lambda t: t.replace("\neliminated: []\n", "\neliminated: [France]\n"),
         "France still has units or centres"),
        ("waiting orders of an unknown power", lambda t: t.replace("\npending:\n  Germany:", "\npending:\n  Atlantis:"),
         "pending: unknown power 'Atlantis'"),
        ("the start turn changed", lambda t: t.replace("\nstart:\n  turn: 0\n", "\nstart:\n  turn: 1\n"),
         "start: turn 1 is not the turn of the first board a0"),
    ]


def _between(text: str, start: str, end: str) -> str:
    """The text with the part from ``start`` up to (not including) ``end`` removed."""
    i = text.index(start)
    return text[:i] + text[text.index(end, i):]


def _past_line_removed(text: str, name: str) -> str:
    """A format-3 text without the ``past`` line of board ``name``."""
    return re.sub(rf"\n  {name}: \{{[^\n]*\n", "\n", text, count=1)


def _latest_removed(text: str, name: str) -> str:
    """A format-3 text without the block of the latest board ``name``."""
    return re.sub(rf"\n  {name}:\n(?:    [^\n]*\n)+", "\n", text, count=1)


def _in_past(text: str, old: str, new: str) -> str:
    """The first ``old`` in the ``past`` and ``history`` sections replaced (format 3)."""
    at = text.index("\npast:\n")
    return text[:at] + text[at:].replace(old, new, 1)


# (description, edit of the played game's text in format 3, a fragment of the message)
EDITS_3 = [
    ("the last board of a timeline deleted", lambda t: _latest_removed(t, "a3"),
     "board a2 is its timeline's last board but has a record"),
    ("a board in the middle of a timeline deleted", lambda t: _past_line_removed(t, "a2"), "timeline a has no board a2"),
    ("the first board of a forked timeline deleted", lambda t: _past_line_removed(t, "b1"),
     "timeline b forked from a0 starts at b2, not b1"),
    ("every board of a forked timeline deleted", lambda t: _latest_removed(t, "c2"), "forks: timeline c has no board"),
    *_top_edits(3),
    ("one centre owned twice on a latest board",
     lambda t: t.replace("\n      France:\n      - Bre\n", "\n      France:\n      - Bre\n      - Ber\n", 1),
     "centre Ber is owned twice"),
    ("one centre owned twice on a past board", lambda t: _in_past(t, '"France": ["Bre", ', '"France": ["Bre", "Ber", '),
     "centre Ber is owned twice"),
    ("a unit of two powers", lambda t: _in_past(t, '"France": ["F Bre", ', '"France": ["F Bre", "A Mun", '),
     "two units in one province"),
    ("a fleet inland", lambda t: _in_past(t, '"A Mun"', '"F Mun"'), "a fleet cannot stand"),
    ("an army at sea", lambda t: _in_past(t, '"F Lon"', '"A Nth"'), "cannot stand"),
    ("a centre that is not a supply centre", lambda t: t.replace("\n      - Bre\n", "\n      - Pic\n", 1),
     "'Pic' is not a supply centre"),
    ("a decision that is not true or false", lambda t: _in_past(t, ": true", ': "maybe"'),
     "must be true or false, not 'maybe'"),
    ("an unknown decision", lambda t: _in_past(t, '"moves ', '"flies '), "bad decision"),
    ("a record naming a board that does not exist", lambda t: _in_past(t, '"incoming": []', '"incoming": ["f-Mun@0"]'),
     "its record names board f0"),
    ("a past board without its record", lambda t: re.sub(r'(\n  a2: \{[^\n]*?), "record": \{[^\n]*\}\n', r"\1}\n", t, count=1),
     "board a2 has no record, but later boards of its timeline exist"),
    ("a past board that is not JSON", lambda t: _in_past(t, '{"units": ', "{units: "), "not valid JSON"),
    ("a past board written twice", lambda t: re.sub(r"(\n  a1: \{[^\n]*)", r"\1\1", t, count=1),
     "board a1 is written twice"),
    ("a latest board written again as a past board",
     lambda t: t.replace("\nhistory:\n", "\n  a3: {\"units\": {}, \"centers\": {}, \"record\": {}}\nhistory:\n", 1),
     "board a3 is written twice"),
    ("a line that belongs to no section", lambda t: t.replace("\nhistory:\n", "\nsomething: else\nhistory:\n", 1),
     "is not a line of the 'past' section"),
    ("a history entry without its order", lambda t: re.sub(r'\{"power": "(\w+)", "order": "[^"]*", ', r'{"power": "\1", ', t, count=1),
     "(missing 'order')"),
    ("a history entry without its result", lambda t: re.sub(r', "result": "\w+"', "", t, count=1), "(missing 'result')"),
    ("a history result that is no result", lambda t: t.replace('"result": "succeeds"', '"result": "perhaps"', 1),
     "a result needs"),
    ("a history phase that is no phase", lambda t: t.replace('\n- {"phase": "movement"', '\n- {"phase": "winter"', 1),
     "unknown phase 'winter'"),
    ("a history entry naming no board", lambda t: t.replace('"boards": ["a0"]', '"boards": ["a9"]', 1),
     "board a9 is no board"),
    ("a dissolved timeline that does not exist",
     lambda t: t.replace("\nstart:\n", "\nsustain:\n  dissolved: [z]\n  due: null\n  held: null\nstart:\n"),
     "dissolved timeline z has no board"),
    ("the end line removed", lambda t: t.replace("\nend: fivedp-game\n", "\n"), "it ends early"),
    ("the history section removed", lambda t: t[:t.index("\nhistory:\n") + 1] + "end: fivedp-game\n",
     "the 'history' section is missing"),
]

# the same for a file of format 2
EDITS_2 = [
    ("the last board of a timeline deleted", lambda t: _between(t, "\n  a3:\n", "\n  b1:\n"),
     "board a2 is its timeline's last board but has a record"),
    ("a board in the middle of a timeline deleted", lambda t: _between(t, "\n  a2:\n", "\n  a3:\n"),
     "timeline a has no board a2"),
    ("the first board of a forked timeline deleted", lambda t: _between(t, "\n  b1:\n", "\n  b2:\n"),
     "timeline b forked from a0 starts at b2, not b1"),
    ("every board of a forked timeline deleted", lambda t: _between(t, "\n  c2:\n", "\nstart:\n"),
     "forks: timeline c has no board"),
    *_top_edits(2),
    ("one centre owned twice", lambda t: t.replace("\n      France:\n      - Bre\n", "\n      France:\n      - Bre\n      - Ber\n", 1),
     "centre Ber is owned twice"),
    ("a unit of two powers", lambda t: t.replace("\n      France:\n      - F Bre\n", "\n      France:\n      - F Bre\n      - A Mun\n", 1),
     "two units in one province"),
    ("a fleet inland", lambda t: t.replace("\n      - A Mun\n", "\n      - F Mun\n", 1), "a fleet cannot stand"),
    ("an army at sea", lambda t: t.replace("\n      - F Lon\n", "\n      - A Nth\n", 1), "cannot stand"),
    ("a centre that is not a supply centre", lambda t: t.replace("\n      - Bre\n", "\n      - Pic\n", 1),
     "'Pic' is not a supply centre"),
    ("a decision that is not true or false", lambda t: t.replace(": true\n", ": maybe\n", 1), "must be true or false, not 'maybe'"),
    ("an unknown decision", lambda t: re.sub(r"\n        moves ", "\n        flies ", t, count=1), "bad decision"),
    ("a record naming a board that does not exist", lambda t: t.replace("incoming: []", "incoming: [f-Mun@0]", 1),
     "its record names board f0"),
    ("a history entry without its order", lambda t: re.sub(r"\n  - power: (\w+)\n    order: [^\n]*\n", r"\n  - power: \1\n", t, count=1),
     "(missing 'order')"),
    ("a history entry without its result", lambda t: re.sub(r"\n    result: \w+\n", "\n", t, count=1), "(missing 'result')"),
    ("a history result that is no result", lambda t: re.sub(r"\n    result: succeeds\n", "\n    result: perhaps\n", t, count=1),
     "a result needs"),
    ("a history phase that is no phase", lambda t: t.replace("\n- phase: movement\n", "\n- phase: winter\n", 1),
     "unknown phase 'winter'"),
    ("a dissolved timeline that does not exist",
     lambda t: t.replace("\nboards:\n", "\nsustain:\n  dissolved: [z]\n  due: null\n  held: null\nboards:\n"),
     "dissolved timeline z has no board"),
    ("the end line removed", lambda t: t.replace("\nend: fivedp-game\n", "\n"), "it ends early"),
]

RETREAT_EDITS = [
    ("a retreat barred from a province that does not exist",
     lambda t: t.replace("barred: []", "barred: [Narnia]", 1), "unknown province 'Narnia'"),
    ("a retreat from an attacker in no province",
     lambda t: re.sub(r"attacker_from: \w+", "attacker_from: Narnia", t, count=1), "unknown province 'Narnia'"),
    ("a retreat on a board that is not a head", lambda t: t.replace("\n  a2:\n", "\n  a1x:\n"), "bad board name"),
    ("the same unit retreating twice",
     lambda t: re.sub(r"(\n    retreats:\n)((?:    [- ] [^\n]*\n)+)", r"\1\2\2", t, count=1),
     "two units retreat from one province"),
]


def _check_edits(path: Path, text: str, edits) -> None:
    bad = path.with_name("edited.yaml")
    for what, edit, fragment in edits:
        edited = edit(text)
        assert edited != text, f"{what}: the edit did not apply"
        # as the disk has it: the checksum refuses it
        bad.write_text(edited, encoding="utf-8")
        with pytest.raises(InputError, match="checksum"):
            load_game(bad)
        # sealed again (what `accept` would do): the checks of the content refuse it
        bad.write_text(reseal(edited), encoding="utf-8")
        with pytest.raises(InputError) as exc:
            load_game(bad)
        assert fragment in str(exc.value), (what, str(exc.value))
        if what.startswith("version: 1 with a checksum"):
            continue  # `accept` reads format 1 on purpose: it is how a format 1 file is upgraded
        with pytest.raises(InputError) as exc:
            load_game(bad, verify=False)  # as `accept` reads it
        assert fragment in str(exc.value), (what, str(exc.value))


@pytest.mark.slow
def test_inconsistent_hand_edits_are_refused(played):
    path, text, _ = played
    _check_edits(path, text, EDITS_3 if version_of(text) == 3 else EDITS_2)


def test_inconsistent_retreats_are_refused(retreating):
    path, text = retreating
    assert "\n    retreats:\n" in text
    _check_edits(path, text, RETREAT_EDITS)


@pytest.mark.slow
def test_damaged_files_through_the_command(played):
    """Exit status 2, one message naming the file, no traceback, the file left as it is."""
    path, text, _ = played
    folder = path.parent
    samples = {
        "deleted line": "".join(text.splitlines(keepends=True)[:40] + text.splitlines(keepends=True)[41:]),
        "cut short": text[: len(text) // 2],
        "resealed bad fork": reseal(text.replace("\n  b: a0\n", "\n  b: a9\n")),
    }
    for what, damaged in samples.items():
        (folder / "cmd.yaml").write_text(damaged, encoding="utf-8")
        for command in (["show"], ["orders", "--power", "Germany", "A Mun H"], ["adjudicate"], ["export"]):
            p = fivedp(folder, "game", command[0], "cmd.yaml", *command[1:])
            assert p.returncode == 2, (what, command, p.stderr)
            assert "Traceback" not in p.stderr and p.stderr.startswith("error: cmd.yaml: "), (what, p.stderr)
            assert (folder / "cmd.yaml").read_text(encoding="utf-8") == damaged, (what, command)


@pytest.mark.slow
def test_accept_takes_a_consistent_edit_and_refuses_an_inconsistent_one(played):
    path, text, whole = played
    folder = path.parent
    target = folder / "accept.yaml"
    # a consistent edit: the waiting order changed by hand
    edited = text.replace("- A Sil - War\n", "- A Sil - Pru\n", 1)
    assert edited != text
    target.write_text(edited, encoding="utf-8")
    p = fivedp(folder, "game", "show", "accept.yaml")
    assert p.returncode == 2 and "fivedp game accept accept.yaml" in p.stderr, p.stderr
    p = fivedp(folder, "game", "accept", "accept.yaml")
    assert p.returncode == 0 and "Accepted accept.yaml" in p.stdout, p.stderr
    g = load_game(target)
    assert g.pending == {"Germany": ["A Sil - Pru"]}
    assert {k: v for k, v in game_data(g).items() if k != "pending"} == {k: v for k, v in whole.items() if k != "pending"}
    # an inconsistent one: refused, the file left as it is
    bad = text.replace("\nwinner: null\n", "\nwinner: Germany\n")
    target.write_text(bad, encoding="utf-8")
    p = fivedp(folder, "game", "accept", "accept.yaml")
    assert p.returncode == 2 and "the boards do not give Germany the victory" in p.stderr, p.stderr
    assert target.read_text(encoding="utf-8") == bad


@pytest.mark.slow
def test_a_format_1_file_is_refused_with_the_upgrade_command_and_upgraded_by_accept(played):
    path, text, whole = played
    folder = path.parent
    old = re.sub(r"checksum: [^\n]*\n\Z", "", format_2_text(load_game(path))).replace("\nversion: 2\n", "\nversion: 1\n")
    (folder / "old.yaml").write_text(old, encoding="utf-8")
    p = fivedp(folder, "game", "show", "old.yaml")
    assert p.returncode == 2
    assert "game format 1" in p.stderr and "fivedp game accept old.yaml" in p.stderr, p.stderr
    p = fivedp(folder, "game", "accept", "old.yaml")
    assert p.returncode == 0, p.stderr
    assert game_data(load_game(folder / "old.yaml")) == whole


def test_an_unexpected_failure_exits_3_with_a_short_message(monkeypatch, capsys):
    def boom(path):
        raise RuntimeError("something no input explains")

    monkeypatch.setattr(cli, "read_scenario", boom)  # the command reading its file fails as no input explains
    assert cli.main(["adjudicate", "x.yaml"]) == 3
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: something no input explains" in err
    assert "README.md" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("seed, options", [(1, {}), (2, {"sustain": True, "open_convoys": True, "jump_assists": True})])
def test_random_games_pass_their_own_checks(tmp_path, seed, options):
    """No false alarm: random multiversal games (forks, retreats, builds, sustain phases, eliminations),
    saved and loaded after every step, always load, and load as the game that was saved."""
    from tests.files.test_verify import random_game

    path = tmp_path / "g.yaml"

    def saved_and_loaded(game):
        save_game(path, game)
        assert game_data(load_game(path)) == game_data(game)

    game = random_game(f"fivedp-integrity/{seed}", options, steps=24, after_step=saved_and_loaded)
    assert len(game.mv.timelines) > 1


def test_an_engine_defect_in_check_exits_3(tmp_path, monkeypatch, capsys):
    """`fivedp check`: a scenario the engine cannot adjudicate is a defect (3), not a failed scenario (1)."""
    from fivedp_asp.lab.check import checking
    from fivedp_asp.errors import AdjudicationError

    scenario = tmp_path / "case.yaml"
    scenario.write_text("id: x\nsteps: []\n", encoding="utf-8")

    def defect(scenarios):
        return [AdjudicationError("no adjudication satisfies the rules") for _ in scenarios]

    monkeypatch.setattr(checking, "check_scenarios", defect)
    assert cli.main(["check", str(scenario)]) == 3
    out, err = capsys.readouterr()
    assert f"DEFECT {scenario}: the engine could not adjudicate" in out and "0 passed, 1 failed" in out
    assert "README.md" in err


@pytest.mark.slow
def test_a_new_game_whose_start_already_has_a_majority_loads(tmp_path):
    """The victory rules run after each step, not on the start: a game begun from a scenario in which
    one power already holds most centres is a game, and loads; a winner written before any step is not."""
    scenario = tmp_path / "case.yaml"
    scenario.write_text("id: x\noptions: {victory: majority}\nstart:\n  units: {Germany: [A Mun], France: [A Par]}\n"
                    "  centers: {Germany: [Ber, Kie, Mun, Hol, Bel, Den, Swe, Nwy, Edi, Lon, Lvp, Bre, Mar, Spa, Por, "
                    "Tun, Nap, Rom], France: [Par]}\nsteps: []\n", encoding="utf-8")
    p = fivedp(tmp_path, "game", "new", "g.yaml", "--from", "case.yaml")
    assert p.returncode == 0, p.stderr
    assert load_game(tmp_path / "g.yaml").mv.winner is None
    text = (tmp_path / "g.yaml").read_text(encoding="utf-8")
    (tmp_path / "g.yaml").write_text(reseal(text.replace("\nwinner: null\n", "\nwinner: Germany\n")), encoding="utf-8")
    with pytest.raises(InputError, match="winner: Germany, but no step has been played"):
        load_game(tmp_path / "g.yaml")
