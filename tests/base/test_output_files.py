"""Output files are never replaced unasked (docs/limits.md, "Files"; docs/game-format.md).

Every command that writes a file the user names (`game show --html`, `render -o`, `explore --html`,
`game export -o`, `explore --random-games --out DIR`, `compare --games --out DIR`; `game new` has its
own tests in tests/files/test_game.py) refuses a file that is already there, or a symbolic link
to one, with exit status 2 and the old file byte for byte as it was, unless given `--force`; a
dangling symbolic link is refused too (with `--force` its target is created, the link kept); and no
output is ever written over the file the command reads, `--force` or not.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
from pathlib import Path

import pytest

from fivedp_asp import inputs
from fivedp_asp.cli import main
from fivedp_asp.errors import InputError
from fivedp_asp.files.games import save_game
from fivedp_asp.game.play import submit_orders
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening

ROOT = Path(__file__).resolve().parent.parent.parent
SCENARIO = ROOT / "cases" / "mdatc" / "3.A.2.yaml"
OLD = b"a page the user saved, not to be lost\n"


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def refused(result: tuple[int, str, str], *fragments: str) -> str:
    """Exit status 2, one ``error:`` line holding every fragment, nothing on standard output."""
    code, out, err = result
    assert code == 2, (code, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    assert "Wrote" not in out, out
    return lines[0]


def no_temporary_files(folder: Path) -> bool:
    return not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """A game file g.yaml (one step played) and a scenario case.yaml."""
    g = submit_orders(new_game(opening(load_map("standard"))), "Germany", ["A Mun - Tyr", "F Kie - Den"]).game
    save_game(tmp_path / "g.yaml", g)
    assert run("game", "adjudicate", str(tmp_path / "g.yaml"))[0] == 0
    shutil.copy(SCENARIO, tmp_path / "case.yaml")
    return tmp_path


# Each command that writes one file the user names, with the file's name as {out}.
WRITERS = {
    "game show --html": (["game", "show", "g.yaml", "--html", "{out}"], "out.html"),
    "game show BOARD --html": (["game", "show", "g.yaml", "a1", "--html", "{out}"], "out.html"),
    "render -o": (["render", "case.yaml", "-o", "{out}"], "out.html"),
    "game export -o": (["game", "export", "g.yaml", "-o", "{out}"], "out.yaml"),
    "render --board -o svg": (["render", "g.yaml", "--board", "a1", "-o", "{out}"], "out.svg"),
    "explore --html": (["explore", "case.yaml", "--option", "adjacency=any", "--html", "{out}"], "out.html"),
    "explore --random-games --html": (["explore", "--random-games", "1", "--years", "1",
                                       "--option", "adjacency=any", "--html", "{out}"], "out.html"),
}


def argv_of(folder: Path, name: str, out: Path, *extra: str) -> list[str]:
    argv, _ = WRITERS[name]
    return [str(out) if a == "{out}" else str(folder / a) if a in ("g.yaml", "case.yaml") else a
            for a in argv] + list(extra)


@pytest.mark.parametrize("name", WRITERS)
def test_an_existing_output_is_refused_without_force_and_replaced_with_it(folder, name):
    out = folder / WRITERS[name][1]
    out.write_bytes(OLD)
    refused(run(*argv_of(folder, name, out)), f"{out}: already exists (use --force to replace it)")
    assert out.read_bytes() == OLD and no_temporary_files(folder)
    code, printed, err = run(*argv_of(folder, name, out, "--force"))
    assert code == 0, err
    assert out.read_bytes() != OLD and out.read_text(encoding="utf-8").startswith(("<!DOCTYPE html>", "<?xml", "id: "))
    assert no_temporary_files(folder)


@pytest.mark.parametrize("name", WRITERS)
def test_a_symlink_to_an_existing_file_is_refused_and_written_through_with_force(folder, name):
    (folder / "real").mkdir()
    real = folder / "real" / ("kept" + Path(WRITERS[name][1]).suffix)
    real.write_bytes(OLD)
    link = folder / ("link" + real.suffix)
    link.symlink_to(Path("real") / real.name)
    refused(run(*argv_of(folder, name, link)), f"{link}: already exists (a symbolic link to {real};",
            "use --force to replace that file")
    assert real.read_bytes() == OLD and link.is_symlink()
    code, _, err = run(*argv_of(folder, name, link, "--force"))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(Path("real") / real.name)
    assert real.read_bytes() != OLD and no_temporary_files(folder / "real")


@pytest.mark.parametrize("name", ["game show --html", "render -o", "explore --html"])
def test_a_dangling_symlink_is_refused_and_its_target_made_with_force(folder, name):
    link = folder / "dangling.html"
    link.symlink_to("made.html")
    refused(run(*argv_of(folder, name, link)),
            f"{link}: a symbolic link to {folder / 'made.html'}, which does not exist",
            "use --force to write the")
    assert not (folder / "made.html").exists() and link.is_symlink()
    code, _, err = run(*argv_of(folder, name, link, "--force"))
    assert code == 0, err
    assert link.is_symlink() and (folder / "made.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("name", WRITERS)
def test_a_new_output_needs_no_force(folder, name):
    out = folder / "sub" / WRITERS[name][1]
    out.parent.mkdir()
    code, printed, err = run(*argv_of(folder, name, out))
    assert code == 0, err
    assert out.read_text(encoding="utf-8").startswith(("<!DOCTYPE html>", "<?xml", "id: "))


# -- never over the file being read -------------------------------------------------------------------


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["", "--force"])
def test_game_show_never_writes_its_picture_over_the_game(folder, force):
    """Before: ``game show g.yaml --html g.yaml`` printed ``Wrote g.yaml`` and the game was gone."""
    game = folder / "g.yaml"
    before = game.read_bytes()
    refused(run("game", "show", str(game), "--html", str(game), *force),
            f"{game}: the picture cannot be written over {game}, the file it is made from",
            "--force never allows this")
    assert game.read_bytes() == before and no_temporary_files(folder)
    assert run("game", "show", str(game))[0] == 0


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["", "--force"])
def test_no_output_is_written_over_its_input_by_any_name(folder, force):
    game, scenario = folder / "g.yaml", folder / "case.yaml"
    game_bytes, scenario_bytes = game.read_bytes(), scenario.read_bytes()
    (folder / "to-game.html").symlink_to("g.yaml")
    os.link(scenario, folder / "hard-case.html")
    (folder / "sub").mkdir()
    attempts = [
        (["render", str(scenario), "-o", str(scenario)], scenario),
        (["render", str(game), "-o", str(folder / "to-game.html")], game),
        (["render", str(scenario), "-o", str(folder / "hard-case.html")], scenario),  # a hard link: the same file
        (["render", str(game), "--board", "a1", "-o", str(folder / "sub" / ".." / "g.yaml")], game),
        (["game", "show", str(folder / "to-game.html"), "--html", str(game)], game),
        (["explore", str(scenario), "--option", "adjacency=any", "--html", str(scenario)], scenario),
        (["explore", str(folder), "--option", "adjacency=any", "--html", str(folder / "hard-case.html")], scenario),
    ]
    for argv, source in attempts:
        line = refused(run(*argv, *force), "cannot be written over", "the file it is made from")
        assert str(source.name) in line or "hard-case" in line, line
    assert game.read_bytes() == game_bytes and scenario.read_bytes() == scenario_bytes
    assert (folder / "to-game.html").is_symlink()


def test_render_never_writes_its_default_picture_over_its_input(folder, monkeypatch):
    """The default output is the input's name with .html, in the current folder: a scenario named
    x.html would be replaced by its own picture."""
    monkeypatch.chdir(folder)
    page = folder / "x.html"
    shutil.copy(SCENARIO, page)
    before = page.read_bytes()
    refused(run("render", "x.html", "--force"), "x.html: the picture cannot be written over x.html")
    refused(run("render", str(page), "--force"), "the picture cannot be written over")
    assert page.read_bytes() == before


def test_render_refuses_an_existing_default_output_without_force(folder, monkeypatch):
    monkeypatch.chdir(folder)
    Path("case.html").write_bytes(OLD)
    refused(run("render", "case.yaml"), "case.html: already exists (use --force to replace it)")
    assert Path("case.html").read_bytes() == OLD
    assert run("render", "case.yaml", "--force")[0] == 0
    assert Path("case.html").read_bytes() != OLD


def test_the_check_comes_before_the_work(folder, monkeypatch):
    """A refused output costs nothing: the exploring (or drawing) is never started."""
    import fivedp_asp.lab.explore.exploration as exploration
    import fivedp_asp.report.render as render

    def never(*args, **kwargs):
        raise AssertionError("the work was started")

    monkeypatch.setattr(exploration, "explore_paths", never)
    monkeypatch.setattr(render, "render_file", never)
    (folder / "out.html").write_bytes(OLD)
    refused(run("explore", str(folder / "case.yaml"), "--option", "adjacency=any", "--html", str(folder / "out.html")),
            "already exists")
    refused(run("render", str(folder / "case.yaml"), "-o", str(folder / "out.html")), "already exists")
    refused(run("game", "show", str(folder / "g.yaml"), "--html", str(folder / "out.html")), "already exists")


def test_a_file_made_while_the_picture_was_drawn_is_not_replaced(folder, monkeypatch):
    """The write itself never replaces a file when --force was not given: a file that appears between
    the check and the write (another program, a long exploration) is kept, and the command says so."""
    import fivedp_asp.report.render as render

    real = render.render_file
    out = folder / "out.html"

    def drawn_while_another_program_writes(*args, **kwargs):
        out.write_bytes(OLD)
        return real(*args, **kwargs)

    monkeypatch.setattr(render, "render_file", drawn_while_another_program_writes)
    refused(run("render", str(folder / "case.yaml"), "-o", str(out)), f"{out}: already exists (use --force")
    assert out.read_bytes() == OLD and no_temporary_files(folder)


def test_write_output_checks_its_arguments(tmp_path):
    with pytest.raises(InputError):
        inputs.write_output(tmp_path / "x", "text", "file", force=False, reading=[tmp_path / "x"])
    with pytest.raises(TypeError):
        inputs.write_output(tmp_path / "x", "text", "file", force="yes")
    assert inputs.write_output(tmp_path / "x", "text", "file", force=False) == tmp_path / "x"
    assert (tmp_path / "x").read_text() == "text"


# -- folders: files inside would be replaced ---------------------------------------------------------


@pytest.mark.slow
def test_a_study_folder_holding_its_scenarios_is_refused_without_force(tmp_path):
    # two games of two years in which support_results parts the games at once (in the second game's
    # first step): ten games of four years under datc_4e1 parted only in the ninth, at ten times the cost
    argv = ["explore", "--random-games", "2", "--seed", "3", "--years", "2", "--all-values", "support_results"]
    out = tmp_path / "study"
    code, printed, err = run(*argv, "--out", str(out))
    assert code == 0, err
    written = sorted(out.glob("*.yaml"))
    assert written, "the study wrote no first divergence: choose another seed"
    for f in written:
        f.write_bytes(OLD)
    line = refused(run(*argv, "--out", str(out)), f"{out}: already holds {written[0].name}",
                   "use --force to replace")
    assert all(f.read_bytes() == OLD for f in written)
    # a file of another game or seed is no obstacle; a link (even a dangling one) named like an output is
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "study-s4-g001-step2.yaml").write_bytes(OLD)
    (tmp_path / "other" / "study-s3-g011-step2.yaml").write_bytes(OLD)
    assert run(*argv, "--out", str(tmp_path / "other"))[0] == 0
    (tmp_path / "links").mkdir()
    (tmp_path / "links" / "study-s3-g002-step9.yaml").symlink_to("nowhere.yaml")
    refused(run(*argv, "--out", str(tmp_path / "links")), "already holds study-s3-g002-step9.yaml")
    code, printed, err = run(*argv, "--out", str(out), "--force")
    assert code == 0, err
    assert sorted(out.glob("*.yaml")) == written and all(f.read_bytes() != OLD for f in written)
    assert line.count("error:") == 1


def test_an_out_folder_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "f").write_bytes(OLD)
    refused(run("explore", "--random-games", "1", "--years", "1", "--option", "adjacency=any",
                "--out", str(tmp_path / "f")), f"{tmp_path / 'f'}: not a folder")
    refused(run("compare", "--games", "1", "--out", str(tmp_path / "f")), f"{tmp_path / 'f'}: not a folder")
    assert (tmp_path / "f").read_bytes() == OLD


class _Silent:
    """A reference that is never asked anything: the engine fails first (below)."""

    name, version = "silent", ""
    emulators: tuple = ()
    deviations: dict = {}
    found_by_compare = frozenset()
    title = "silent"

    def __init__(self, game_map):
        pass

    def load(self, position):
        pass

    def adjudicate(self, orders):
        raise AssertionError("not reached")


def test_a_compare_folder_holding_its_scenarios_is_refused_without_force(tmp_path, monkeypatch):
    """``compare --games`` writes s<seed>-g<game>-<season>.yaml: a run that may write a file the folder
    holds is refused before it starts. Here the engine is made to fail at once, so that the run
    writes the phase it failed on (its -engine-error.yaml) without a reference adjudicator."""
    from fivedp_asp.lab.compare import reference
    from fivedp_asp.engine import batch
    from fivedp_asp.errors import AdjudicationError

    monkeypatch.setitem(reference._REGISTRY, "silent", _Silent)
    monkeypatch.setattr(batch, "step_many", lambda requests, **kw: [AdjudicationError("no model") for _ in requests])
    out = tmp_path / "found"
    out.mkdir()
    kept = out / "s1-g001-S1901M-engine-error.yaml"
    kept.write_bytes(OLD)
    other = out / "s2-g001-S1901M.yaml"
    other.write_bytes(OLD)
    argv = ["compare", "--reference", "silent", "--games", "1", "--years", "1", "--out", str(out)]
    refused(run(*argv), f"{out}: already holds {kept.name}", "use --force to replace")
    assert kept.read_bytes() == OLD
    code, printed, err = run(*argv, "--force")
    assert code == 1, err
    assert kept.read_bytes() != OLD and b"fivedp could not adjudicate" in kept.read_bytes()
    assert other.read_bytes() == OLD
    assert re.search(r"s1-g001-S1901M-engine-error\.yaml", printed + err)
