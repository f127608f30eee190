"""The players' chapter (docs/playing.md) points at scenarios that exist and is linked from the README; the
README's outputs and transcripts (its example, "Play a game", playing.md §16) are what the commands print."""

import re
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
PLAYING = (ROOT / "docs" / "playing.md").read_text(encoding="utf-8")


def test_every_scenario_named_exists():
    named = set(re.findall(r"cases/[a-z]+/[\w.-]+\.yaml", PLAYING))
    named |= {f"cases/multiverse/{n}" for n in re.findall(r"`(4\.\d\d-[\w.-]+\.yaml)`", PLAYING)}
    assert len(named) >= 20
    missing = sorted(n for n in named if not (ROOT / n).is_file())
    assert not missing, missing


def test_linked_from_the_readme():
    assert "(docs/playing.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_example_output_is_what_the_command_prints(capsys):
    """The README's first screen shows one output: it must be the program's, line for line."""
    import os

    from fivedp_asp.cli import main

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("```text\n", 1)[1].split("```", 1)[0]
    assert "fivedp adjudicate cases/mdatc/3.A.2.yaml" in readme.split("```text\n", 1)[0]
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(["adjudicate", "cases/mdatc/3.A.2.yaml"]) == 0
    finally:
        os.chdir(here)
    assert capsys.readouterr().out == shown


def _session(text: str) -> list[tuple[list[str], list[str]]]:
    """A ``console`` block as (command's arguments after ``fivedp``, the lines it prints)."""
    import shlex

    out: list[tuple[list[str], list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ fivedp "):
            out.append((shlex.split(line[len("$ fivedp "):]), []))
        else:
            out[-1][1].append(line)
    return out


def _matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, a ``...`` line standing for any lines."""
    if not shown:
        return not printed
    if shown[0] == "...":
        return any(_matches(shown[1:], printed[k:]) for k in range(len(printed) + 1))
    return bool(printed) and printed[0] == shown[0] and _matches(shown[1:], printed[1:])


def _run_session(block: str, folder: Path, capsys) -> int:
    """Runs a transcript command by command in ``folder``; how many commands it held."""
    import os

    from fivedp_asp.cli import main

    session = _session(block)
    here = os.getcwd()
    os.chdir(folder)
    try:
        for argv, shown in session:
            assert main(argv) == 0, argv
            printed = capsys.readouterr().out.splitlines()
            assert _matches(shown, printed), (argv, printed)
    finally:
        os.chdir(here)
    return len(session)


def test_the_readme_game_is_what_the_commands_print(tmp_path, capsys):
    """"Play a game" in the README, run command by command in an empty folder."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Play a game", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    assert _run_session(block, tmp_path, capsys) >= 8
    assert (tmp_path / "g.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_the_readme_comparison_is_what_the_command_prints(capsys):
    """"Compare with a reference adjudicator" in the README: its output is the command's, but for the
    time the run took."""
    import os
    import shlex

    import pytest

    from fivedp_asp.cli import main

    pytest.importorskip("diplomacy", reason="the reference extra is not installed")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Compare with a reference adjudicator", 1)[1].split("```text\n", 1)[1].split("```", 1)[0]
    command, shown = block.split("\n", 1)
    assert command.startswith("$ fivedp compare ")
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        assert main(shlex.split(command[len("$ fivedp "):])) == 0
    finally:
        os.chdir(here)
    timeless = re.compile(r"^  time: [0-9.]+ s$", re.M)
    printed = capsys.readouterr().out
    assert timeless.search(shown) and "excused: 6.G.8" in shown
    assert timeless.sub("  time: -", printed) == timeless.sub("  time: -", shown)


def test_two_players_views_in_playing_md_are_what_the_commands_print(tmp_path, capsys):
    """The transcript of docs/playing.md §16: neither player's view holds the other's orders."""
    block = PLAYING.split("## 16. At the table", 1)[1].split("```console\n", 1)[1].split("```", 1)[0]
    assert _run_session(block, tmp_path, capsys) == 6
    france, germany = block.split("$ fivedp game show g.yaml --power France")[1].split("$ fivedp game adjudicate")[0] \
        .split("$ fivedp game show g.yaml --power Germany")
    assert "Mun - Bur" not in france and "Par - Bur" not in germany


# -- docs/architecture.md and the citations of docs/rules.md -------------------------------------

ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
SOURCES = ("fivedp_asp", "asp", "docs", "tests", "cases", "tools")


def _texts():
    """Every text file of the repository that may cite the rules: code, logic programs, documents,
    tests, scenarios, and the README."""
    yield ROOT / "README.md"
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and path.suffix in (".py", ".lp", ".md", ".yaml", ".yml", ".json"):
                yield path


def test_every_link_of_the_readme_and_its_pages_resolves():
    """The README is a door to docs/: every page it links to exists, and so does every page those link
    to (a section moved out of the README takes its links with it)."""
    pages = {ROOT / "README.md": re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", (ROOT / "README.md").read_text(encoding="utf-8"))}
    for link in list(pages[ROOT / "README.md"]):
        page = ROOT / link
        if page.suffix == ".md" and page.is_file():
            pages[page] = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8"))
    assert len(pages) >= 15
    missing = sorted(f"{page.relative_to(ROOT)}: {link}" for page, links in pages.items() for link in links
                     if not (page.parent / link).exists())
    assert not missing, missing


def test_architecture_linked_from_the_readme():
    assert "(docs/architecture.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_every_file_the_architecture_names_exists():
    """A path in backquotes names a file or folder of the repository (from its root, or inside
    ``fivedp_asp/``); a bare ``name.lp`` or ``name.py`` is somewhere under ``asp/`` or ``fivedp_asp/``.
    Only a line that says the module is planned may name one that does not exist yet."""
    named, missing = 0, []
    for line in ARCHITECTURE.splitlines():
        for token in re.findall(r"`([^`\s]+)", line):
            if "<" in token or "*" in token or "(" in token or "://" in token:
                continue
            if "/" in token and token.split("/", 1)[0] in SOURCES + ("engine", "model", "solver", "files",
                                                                     "report", "lab", "cli", "game", "serve"):
                found = (ROOT / token).exists() or (ROOT / "fivedp_asp" / token).exists()
            elif "/" not in token and token.endswith((".lp", ".py")):
                found = any(next((ROOT / top).rglob(token), None) for top in ("asp", "fivedp_asp"))
            else:
                continue
            named += 1
            if not found and "planned" not in line:
                missing.append(token)
    assert named >= 60
    assert not missing, missing


def test_every_link_of_the_architecture_resolves():
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", ARCHITECTURE)
    assert len(links) >= 8
    missing = sorted(link for link in links if not (ROOT / "docs" / link).is_file())
    assert not missing, missing


def test_no_citation_names_a_rules_file_outside_the_repository():
    """The rules are docs/rules.md; a citation of the rule specification by its own file name points
    at nothing a reader of the repository has."""
    outside = re.compile("RULES" + r"(\.md| §)")
    cited = [f"{p.relative_to(ROOT)}:{n}" for p in _texts()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if outside.search(line)]
    assert not cited, cited


def test_every_citation_of_docs_rules_names_one_of_its_sections():
    """``docs/rules.md §6.8.3`` (and the ends of a range, ``§6.4–§6.5``) must be a numbered heading."""
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^#+ (\d+[a-z]?(?:\.\d+)*)\.? ", rules, re.M))
    assert {"1", "3.2", "6.1", "6.8", "6.8.1", "6.8.2", "6.8.3", "8", "9"} <= sections
    cite = re.compile(r"rules\.md\]?\)? ?§(\d+[a-z]?(?:\.\d+)*)(?:[–-]§?(\d+(?:\.\d+)*))?")
    count, wrong = 0, []
    for path in _texts():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for match in cite.finditer(line):
                for section in filter(None, match.groups()):
                    count += 1
                    if section not in sections:
                        wrong.append(f"{path.relative_to(ROOT)}:{n}: §{section}")
    assert count >= 150
    assert not wrong, wrong


def test_the_architecture_picture_is_the_package_as_it_is():
    """docs/architecture.svg names the modules of each floor as the package holds them: a module
    added, moved or gone means drawing it again (``python tools/draw_architecture.py``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("draw_architecture", ROOT / "tools" / "draw_architecture.py")
    drawing = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(drawing)
    drawn = drawing.draw()
    assert "engine/" in drawn and "predicates" in drawn and "lab/" in drawn
    assert (ROOT / "docs" / "architecture.svg").read_text(encoding="utf-8") == drawn, \
        "docs/architecture.svg differs from the package: run python tools/draw_architecture.py"
    assert "](architecture.svg)" in ARCHITECTURE.split("\n## ")[0], "the picture comes first in docs/architecture.md"


def test_the_readme_installs_for_its_tests_every_extra_ci_installs():
    """The README's test command installs the extras `.ci/run` installs: a study's tests need SciPy
    (the `stats` extra) and fail, not skip, without it."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = re.search(r"pip install '\.\[([a-z,]+)\]' && \.venv/bin/python -m pytest", (root / "README.md").read_text())
    ci = re.search(r"install --quiet '\.\[([a-z,]+)\]'", (root / ".ci" / "run").read_text())
    assert readme and ci and set(readme[1].split(",")) == set(ci[1].split(","))
