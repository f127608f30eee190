"""The players' chapter (docs/playing.md) points at scenarios that exist and are linked from the README."""

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
