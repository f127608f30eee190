"""Many independent paradoxes in one step (issue 24): every copy of a DATC position, side by side on
one board of a map made of disjoint copies of its provinces, is adjudicated as the DATC says for the
single case, with the backup rule applied to that copy's units alone; and a step that cannot be
settled within the time limit stops with a clear message (exit status 2), never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedp_asp import api
from fivedp_asp.lab.bench.positions import _copy_tag, copied_position
from fivedp_asp.cli import main
from fivedp_asp.errors import InputError, TimeLimitError
from fivedp_asp.solver.driver import time_limit
from fivedp_asp.engine.step import step

BETRAYAL = str(Path(__file__).resolve().parent.parent.parent / "cases" / "datc" / "6.F.18.yaml")

# The DATC's stated results (v3.1, chapter 6), written in the copies' names: province ``lon`` of copy k
# is ``Lon`` + the copy's tag. 6.C.1: "All three units will move." 6.F.16 (Szykman rule): the support
# of London is not cut, the Channel is not dislodged, none of the units succeeds to move (the convoy of
# the paradox fails). 6.F.18 (Szykman rule): the convoy fails, so the move of London fails and the
# support of Belgium is not cut; the North Sea is not dislodged.
EXPECTED = {
    "6.C.1": {
        "F Ank{t} - Con{t}": "succeeds", "A Con{t} - Smy{t}": "succeeds", "A Smy{t} - Ank{t}": "succeeds"},
    "6.F.16": {
        "F Lon{t} Supports F Wal{t} - Eng{t}": "succeeds", "F Wal{t} - Eng{t}": "fails",
        "A Bre{t} - Lon{t}": "fails", "F Eng{t} Convoys A Bre{t} - Lon{t}": "fails",
        "F Nth{t} Supports F Bel{t} - Eng{t}": "succeeds", "F Bel{t} - Eng{t}": "fails"},
    "6.F.18": {
        "F Nth{t} Convoys A Lon{t} - Bel{t}": "fails", "A Lon{t} - Bel{t}": "fails",
        "F Eng{t} Supports A Lon{t} - Bel{t}": "succeeds", "F Bel{t} Supports F Nth{t}": "succeeds",
        "F Hel{t} Supports F Ska{t} - Nth{t}": "succeeds", "F Ska{t} - Nth{t}": "fails"},
}
# the backup rule of each copy, and the units it names (the single case's)
BACKUP = {
    "6.C.1": "circular movement: the moves of F Ank{t} (a0), A Con{t} (a0), A Smy{t} (a0) succeed",
    "6.F.16": "convoy paradox, Szykman rule: the convoy of F Eng{t} (a0) fails (the fleet holds)",
    "6.F.18": "convoy paradox, Szykman rule: the convoy of F Nth{t} (a0) fails (the fleet holds)",
}


@pytest.mark.parametrize("name,copies", [("6.C.1", 60), ("6.F.16", 25), ("6.F.18", 25)])
def test_every_copy_as_the_datc_says(name, copies):
    mv, orders, _ = copied_position(name, copies)
    report = step(mv, orders)
    got = {o.text: o.result for o in report.outcomes}
    assert len(got) == copies * len(EXPECTED[name])
    for k in range(copies):
        mine = {text.format(t=_copy_tag(k)): want for text, want in EXPECTED[name].items()}
        assert {text: got.get(text) for text in mine} == mine, f"copy {k}"
    assert sorted(report.backups) == sorted(BACKUP[name].format(t=_copy_tag(k)) for k in range(copies))
    # a paradox's reason names the units of its own copy only
    reasons = {o.text: o.reason for o in report.outcomes}
    first = next(iter(EXPECTED[name])).format(t=_copy_tag(copies - 1))
    assert _copy_tag(0) not in (reasons[first] or "")


def test_time_limit_exceeded_is_exit_2_with_the_size(capsys):
    status = main(["adjudicate", BETRAYAL, "--time-limit", "0.000001"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("error: this step is too big to settle within the time limit of 1e-06 s (1 board in play, 6 orders")
    assert "raise --time-limit" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["0", "-3", "soon", "inf"])
def test_time_limit_must_be_a_positive_number(capsys, value):
    with pytest.raises(SystemExit) as stop:
        main(["check", BETRAYAL, "--time-limit", value])
    assert stop.value.code == 2
    assert "--time-limit" in capsys.readouterr().err


def test_api_time_limit():
    game = api.game_from_scenario(BETRAYAL)
    with pytest.raises(TimeLimitError, match="time limit of 1e-06 s"):
        api.run_scenario(BETRAYAL, time_limit=1e-6)
    with pytest.raises(InputError, match="positive number"):
        api.adjudicate(game, time_limit=-1)
    assert api.run_scenario(BETRAYAL, time_limit=30).passed


def test_time_limit_is_scoped():
    mv, orders, _ = copied_position("6.F.18", 2)
    with time_limit(1e-6):
        with pytest.raises(TimeLimitError):
            step(mv, orders)
    assert len(step(mv, orders).backups) == 2  # the default again outside the block
