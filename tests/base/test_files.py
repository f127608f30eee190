"""Files on odd file systems (docs/limits.md, "Files"; docs/game-format.md, "The atomic write").

Every command refuses at once a game file, scenario or order file that is not a regular file (a
FIFO, a device, a folder), never waiting on it; a game reached through a symbolic link is written
through to its target, the link kept; a write that fails (a full disk, no permission, a read-only file
system) names the file and leaves no file or the old one whole, for the game file and for every output
file (`game export -o`, `render -o`); a game file saved with CRLF line ends is read, and its checksum
still refuses any other edit; an error quotes only the start of an overlong input.

Commands that could hang run as programs with a timeout; the others run in process.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from fivedp_asp.files import games as game_module
from fivedp_asp import inputs
from fivedp_asp.cli import main
from fivedp_asp.errors import FileError, InputError
from fivedp_asp.files.games import game_data, load_game, save_game
from fivedp_asp.game.play import adjudicate, submit_orders
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIO = ROOT / "cases" / "mdatc" / "3.A.2.yaml"


ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def fivedp(cwd: Path, *args: str, stdin: bytes | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command as a program; a hang fails the test through the timeout."""
    return subprocess.run([sys.executable, "-m", "fivedp_asp.cli", *args], cwd=cwd, capture_output=True,
                          input=stdin, timeout=timeout, env=ENV)


def run(*argv: str) -> tuple[int, str, str]:
    """The command in process: exit status, standard output, standard error."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def one_error_line(code: int, err: str, *fragments: str) -> str:
    """Exit status 2 and one ``error:`` line holding every fragment, no traceback."""
    assert code == 2, (code, err)
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, err)
    return lines[0]


def a_game(folder: Path, name: str = "g.yaml") -> Path:
    path = folder / name
    g = submit_orders(new_game(opening(load_map("standard"))), "Germany", ["A Mun - Tyr", "F Kie - Den"]).game
    save_game(path, g)
    return path


def temporary_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


# -- not a regular file -----------------------------------------------------------------------------------


GAME_READERS = [
    ["game", "show", "F"], ["game", "orders", "F", "A Mun - Tyr"], ["game", "adjudicate", "F"],
    ["game", "export", "F"], ["game", "history", "F"], ["game", "possible", "F"], ["game", "accept", "F"],
    ["check", "F"], ["adjudicate", "F"], ["render", "F", "-o", "out.html"],
    ["explore", "F", "--option", "adjacency=any"],
]


@pytest.mark.slow
@pytest.mark.parametrize("argv", GAME_READERS, ids=lambda a: " ".join(a[:2]))
def test_a_fifo_is_refused_at_once_by_every_command(tmp_path, argv):
    os.mkfifo(tmp_path / "pipe.yaml")
    p = fivedp(tmp_path, *[("pipe.yaml" if a == "F" else a) for a in argv], timeout=60)
    assert p.returncode == 2, p.stderr
    err = p.stderr.decode()
    assert "Traceback" not in err
    assert "pipe.yaml" in err + p.stdout.decode() and "FIFO" in err + p.stdout.decode(), (err, p.stdout)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe.yaml").st_mode)  # left as it was
    assert not (tmp_path / "out.html").exists()


@pytest.mark.slow
def test_an_order_file_that_is_a_fifo_is_read_as_a_stream(tmp_path):
    """``--file <(make_orders)`` names a pipe on purpose: it is read to its end, like standard input
    (a game or scenario file that is a FIFO is refused, above)."""
    a_game(tmp_path)
    os.mkfifo(tmp_path / "orders.txt")
    proc = subprocess.Popen([sys.executable, "-m", "fivedp_asp.cli", "game", "orders", "g.yaml", "--file", "orders.txt"],
                            cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=ENV)
    with open(tmp_path / "orders.txt", "w", encoding="utf-8") as pipe:
        pipe.write("A Mun - Ruh\nF Kie - Den\n")
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "Germany: 2 orders waiting" in out.decode()


@pytest.mark.slow
def test_an_endless_device_as_order_file_stops_at_the_size_cap(tmp_path):
    a_game(tmp_path)
    p = fivedp(tmp_path, "game", "orders", "g.yaml", "--file", "/dev/zero", timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr.decode()
    assert "/dev/zero" in p.stderr.decode() and len(p.stderr) < 1000


SPECIALS = [(argv, special, kind)
            for argv in (["game", "show", "{}"], ["check", "{}"], ["adjudicate", "{}"], ["render", "{}"])
            for special, kind in (("/dev/zero", "a character device"), ("/dev/null", "a character device"),
                                  (".", "a directory"))
            if not (argv[0] == "check" and special == ".")]  # check reads a folder's scenarios


@pytest.mark.parametrize("argv, special, kind", SPECIALS,
                         ids=[f"{' '.join(a[:2] if a[0] == 'game' else a[:1])}-{s}" for a, s, _ in SPECIALS])
def test_devices_and_folders_are_refused(tmp_path, argv, special, kind):
    argv = [special if a == "{}" else a for a in argv]
    code, out, err = run(*argv)
    assert code == 2 and "Traceback" not in err
    assert f"{special}: cannot read the" in err + out and f"it is {kind}, not a regular file" in err + out, (err, out)


@pytest.mark.slow
def test_a_fifo_among_a_folders_scenarios_is_reported_not_waited_on(tmp_path):
    (tmp_path / "case.yaml").write_bytes(SCENARIO.read_bytes())
    os.mkfifo(tmp_path / "zz.yaml")
    p = fivedp(tmp_path, "check", ".")
    out = p.stdout.decode()
    assert p.returncode == 2 and "zz.yaml: cannot read the scenario: it is a FIFO" in out and "1 passed, 1 failed" in out


def test_read_bytes_never_opens_a_fifo_for_longer_than_a_look(tmp_path):
    os.mkfifo(tmp_path / "p")
    with pytest.raises(FileError) as info:
        inputs.read_bytes(tmp_path / "p", "game file")
    assert "it is a FIFO (named pipe), not a regular file" in str(info.value)


# -- symbolic links ------------------------------------------------------------------------------------


def test_a_game_behind_a_symlink_is_written_through_to_its_target(tmp_path):
    (tmp_path / "real").mkdir()
    target = a_game(tmp_path / "real", "game.yaml")
    os.chmod(target, 0o640)
    link = tmp_path / "link.yaml"
    link.symlink_to(Path("real") / "game.yaml")
    before = game_data(load_game(target))
    code, out, err = run("game", "adjudicate", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / "game.yaml")
    after = load_game(target)
    assert game_data(after) != before and len(after.history) == 1
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640  # the target keeps its mode
    assert temporary_files(tmp_path) == [] and temporary_files(tmp_path / "real") == []
    # the lock is the target's, beside it: every link to a game shares one lock
    assert (tmp_path / "real" / ".game.yaml.lock").exists() and not (tmp_path / ".link.yaml.lock").exists()


def test_a_chain_of_links_and_a_dangling_link(tmp_path):
    a_game(tmp_path, "g.yaml")
    (tmp_path / "l1").symlink_to("g.yaml")
    (tmp_path / "l2").symlink_to("l1")
    assert run("game", "orders", str(tmp_path / "l2"), "A Ber - Kie")[0] == 0
    assert (tmp_path / "l2").is_symlink() and (tmp_path / "l1").is_symlink()
    assert "A Ber - Kie" in load_game(tmp_path / "g.yaml").pending["Germany"]
    # a link to a file not there yet: the new game is made at the link's target
    (tmp_path / "new-link.yaml").symlink_to("made.yaml")
    code, out, err = run("game", "new", str(tmp_path / "new-link.yaml"))
    assert code == 0, err
    assert (tmp_path / "new-link.yaml").is_symlink() and load_game(tmp_path / "made.yaml").mv.heads


@pytest.mark.slow
def test_writing_over_a_fifo_or_a_folder_is_refused(tmp_path):
    a_game(tmp_path)
    os.mkfifo(tmp_path / "out.yaml")
    p = fivedp(tmp_path, "game", "export", "g.yaml", "-o", "out.yaml", "--force")
    assert p.returncode == 2 and "out.yaml: cannot write the scenario: it is a FIFO" in p.stderr.decode()
    p = fivedp(tmp_path, "render", "g.yaml", "-o", "out.yaml.html")
    assert p.returncode == 0, p.stderr
    os.mkfifo(tmp_path / "pic.html")
    p = fivedp(tmp_path, "render", "g.yaml", "-o", "pic.html")
    assert p.returncode == 2 and "pic.html: cannot write the picture: it is a FIFO" in p.stderr.decode()
    (tmp_path / "folder.yaml").mkdir()
    code, _, err = run("game", "new", str(tmp_path / "folder.yaml"), "--force")
    one_error_line(code, err, "folder.yaml: cannot write the game file: it is a directory")


# -- failed writes ---------------------------------------------------------------------------------------


def failing(number: int):
    def fail(*args, **kwargs):
        raise OSError(number, os.strerror(number))
    return fail


def half_then_enospc(real_write):
    """``os.write`` that writes half of what it is given, then finds the disk full."""
    def write(fd, data):
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    return write


@pytest.mark.parametrize("where, number", [("write", errno.ENOSPC), ("fsync", errno.EIO),
                                           ("replace", errno.EROFS), ("mkstemp", errno.EACCES)])
def test_a_failed_game_write_names_the_file_and_keeps_the_old_game(tmp_path, monkeypatch, where, number):
    path = a_game(tmp_path)
    before = path.read_bytes()
    target = inputs.tempfile if where == "mkstemp" else inputs.os
    monkeypatch.setattr(target, where, half_then_enospc(os.write) if where == "write" else failing(number))
    code, out, err = run("game", "adjudicate", str(path))
    monkeypatch.undo()
    line = one_error_line(code, err, f"{path}: cannot write the game file: {os.strerror(number)}")
    assert len(line) < 400 and out == ""
    assert path.read_bytes() == before
    assert temporary_files(tmp_path) == []


def test_enospc_through_the_api_is_a_file_error(tmp_path, monkeypatch):
    path = a_game(tmp_path)
    before = path.read_bytes()
    g, _ = adjudicate(load_game(path))
    monkeypatch.setattr(inputs.os, "write", half_then_enospc(os.write))
    with pytest.raises(FileError) as info:
        save_game(path, g)
    monkeypatch.undo()
    assert info.value.errno == errno.ENOSPC and isinstance(info.value, OSError) and isinstance(info.value, InputError)
    assert str(path) in str(info.value) and "No space left on device" in str(info.value)
    assert path.read_bytes() == before and temporary_files(tmp_path) == []


def test_a_failed_export_leaves_no_scenario(tmp_path, monkeypatch):
    """Before: a full disk left half a scenario, which then passed ``check`` as a shorter game."""
    path = a_game(tmp_path)
    g, _ = adjudicate(load_game(path))
    save_game(path, submit_orders(g, "Germany", ["A Tyr - Boh"]).game)
    save_game(path, adjudicate(load_game(path))[0])
    monkeypatch.setattr(inputs.os, "write", half_then_enospc(os.write))
    code, out, err = run("game", "export", str(path), "-o", str(tmp_path / "case.yaml"))
    monkeypatch.undo()
    one_error_line(code, err, "case.yaml: cannot write the scenario: No space left on device")
    assert not (tmp_path / "case.yaml").exists() and temporary_files(tmp_path) == []
    # over an old scenario (--force): the old one stays whole
    (tmp_path / "case.yaml").write_text("old scenario\n", encoding="utf-8")
    monkeypatch.setattr(inputs.os, "write", half_then_enospc(os.write))
    code, out, err = run("game", "export", str(path), "-o", str(tmp_path / "case.yaml"), "--force")
    monkeypatch.undo()
    assert code == 2 and (tmp_path / "case.yaml").read_text(encoding="utf-8") == "old scenario\n"
    # and when the disk has room, the scenario written replays the game
    assert run("game", "export", str(path), "-o", str(tmp_path / "case.yaml"), "--force")[0] == 0
    assert run("check", str(tmp_path / "case.yaml"))[0] == 0


def test_a_failed_render_leaves_no_picture(tmp_path, monkeypatch):
    monkeypatch.setattr(inputs.os, "write", half_then_enospc(os.write))
    code, out, err = run("render", str(SCENARIO), "-o", str(tmp_path / "p.html"))
    monkeypatch.undo()
    one_error_line(code, err, "p.html: cannot write the picture: No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_a_file_that_cannot_be_read_is_named(tmp_path, monkeypatch):
    path = a_game(tmp_path)
    monkeypatch.setattr(inputs.os, "read", failing(errno.EIO))
    code, out, err = run("game", "show", str(path))
    monkeypatch.undo()
    one_error_line(code, err, f"{path}: cannot read the game file: {os.strerror(errno.EIO)}")


# -- CRLF line ends -------------------------------------------------------------------------------------


def test_a_game_file_with_crlf_line_ends_is_read_and_written_back_with_lf(tmp_path):
    path = a_game(tmp_path)
    lf = path.read_bytes()
    code, shown_lf, _ = run("game", "show", str(path))
    path.write_bytes(lf.replace(b"\n", b"\r\n"))
    code, shown_crlf, err = run("game", "show", str(path))
    assert code == 0, err
    assert shown_crlf == shown_lf
    assert run("game", "orders", str(path), "A Ber - Kie")[0] == 0  # written again: with LF
    text = path.read_bytes()
    assert b"\r" not in text and "A Ber - Kie" in load_game(path).pending["Germany"]


def test_crlf_scenarios_and_order_files_are_read(tmp_path):
    (tmp_path / "c.yaml").write_bytes(SCENARIO.read_bytes().replace(b"\n", b"\r\n"))
    code, out, err = run("check", str(tmp_path / "c.yaml"))
    assert code == 0 and "1 passed, 0 failed" in out, (out, err)
    path = a_game(tmp_path)
    (tmp_path / "o.txt").write_bytes(b"A Ber - Kie\r\nF Lon - Nth\r\n")
    assert run("game", "orders", str(path), "--file", str(tmp_path / "o.txt"))[0] == 0
    pending = load_game(path).pending
    assert "A Ber - Kie" in pending["Germany"] and pending["England"] == ["F Lon - Nth"]


def test_the_checksum_of_a_crlf_game_file_still_refuses_edits(tmp_path):
    path = a_game(tmp_path)
    crlf = path.read_bytes().replace(b"\n", b"\r\n")
    edited = crlf.replace(b"A Mun - Tyr", b"A Mun - Boh")
    assert edited != crlf
    path.write_bytes(edited)
    code, out, err = run("game", "show", str(path))
    one_error_line(code, err, "the checksum does not match the content")


def test_a_crlf_game_is_not_rewritten_by_a_reader_and_writers_see_no_conflict(tmp_path):
    """``store.transact`` compares the checksum line read with the file's: CRLF must not look like a change."""
    path = a_game(tmp_path)
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    _, seal = game_module.read_game(path)
    assert game_module.checksum_line(path) == seal


# -- overlong input in messages ------------------------------------------------------------------------


@pytest.mark.slow
def test_a_20_mb_order_line_gives_a_short_message(tmp_path):
    a_game(tmp_path)
    line = b"A Mun - " + b"x" * 20_000_000 + b"\n"
    before = (tmp_path / "g.yaml").read_bytes()
    for args, stdin in ((["--file", "-"], line), (["--file", "orders.txt"], None)):
        (tmp_path / "orders.txt").write_bytes(line)
        p = fivedp(tmp_path, "game", "orders", "g.yaml", *args, stdin=stdin)
        err = p.stderr.decode()
        assert p.returncode == 2 and len(p.stderr) < 1_024, len(p.stderr)
        assert err.startswith("error: order 'A Mun - xxx") and "(20,000,008 characters)" in err
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (tmp_path / "g.yaml").read_bytes() == before


@pytest.mark.slow
def test_a_20_mb_order_in_a_scenario_gives_a_short_message(tmp_path):
    big = "A Mun - " + "x" * 20_000_000
    (tmp_path / "c.yaml").write_text(f"id: big\nstart:\n  turn: 0\n  units:\n    Germany: [A Mun]\nsteps:\n"
                                     f"  - orders:\n      Germany: [\"{big}\"]\n", encoding="utf-8")
    code, out, err = run("check", str(tmp_path / "c.yaml"))
    assert code == 2 and len(out) + len(err) < 1_024
    assert "c.yaml:8: Germany order 'A Mun - xxx" in out and "(20,000,008 characters)" in out


def test_long_file_names_and_values_are_cut_in_messages(tmp_path):
    name = "d" * 4_000 + "/g.yaml"
    code, out, err = run("game", "show", name)
    line = one_error_line(code, err, "d" * 200 + "… (4,007 characters)")
    assert len(line) < 400
    code, out, err = run("game", "new", str(tmp_path / "n.yaml"), "--option", "adjacency=" + "q" * 100_000)
    line = one_error_line(code, err, "option adjacency cannot be 'qqq", "(100,000 characters)")
    assert len(line) < 400
    a_game(tmp_path)
    code, out, err = run("game", "orders", str(tmp_path / "g.yaml"), "--power", "P" * 100_000, "A Mun - Tyr")
    line = one_error_line(code, err, "unknown power 'PPP", "(100,000 characters)")
    assert len(line) < 400


# -- the JSON lines of a game file: the bounds of from_json ---------------------------------------------


@pytest.mark.parametrize("edit, problem", [
    (lambda line: line.replace('{"units": ', '{"units": {}, "units": ', 1), "duplicate key 'units' in one object"),
    (lambda line: line.replace('"incoming": []', '"incoming": ' + "[" * 40 + "]" * 40, 1), "nested more than 32 levels deep"),
    (lambda line: line.replace('"incoming": []', '"incoming": ' + "[" * 5_000 + "]" * 5_000, 1), "nested more than 32"),
    (lambda line: line.replace('"incoming": []', '"incoming": [' + "9" * 40 + "]", 1), "40 digits is too large"),
    (lambda line: line.replace('"incoming": []', '"incoming": [NaN]', 1), "NaN is not a JSON value"),
], ids=["duplicate", "deep", "very deep", "huge integer", "NaN"])
def test_a_past_line_beyond_the_json_bounds_is_damage(tmp_path, edit, problem):
    from fivedp_asp.files.integrity import reseal

    path = a_game(tmp_path)
    save_game(path, adjudicate(load_game(path))[0])
    lines = path.read_text(encoding="utf-8").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("  a0: {"))
    lines[at] = "  a0: " + edit(lines[at][len("  a0: "):])
    path.write_text(reseal("\n".join(lines)), encoding="utf-8")
    code, out, err = run("game", "show", str(path))
    one_error_line(code, err, f"{path}: damaged game file", problem)
