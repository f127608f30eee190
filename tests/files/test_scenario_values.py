"""Scenario values read exactly: booleans only as booleans (the message says what is allowed), unknown
keys refused at every depth, duplicates refused."""

from __future__ import annotations

import textwrap

import pytest

from fivedp_asp.files.scenarios import read_scenario
from fivedp_asp.errors import InputError


def refused(tmp_path, text: str) -> str:
    path = tmp_path / "case.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    with pytest.raises(InputError) as exc:
        read_scenario(path)
    return str(exc.value)


RETREAT_START = """\
    id: x
    start:
      turn: 0
      phase: retreat
      units:
        Germany: [A Mun, A Ber]
        France: [A Par]
      dislodged:
        Austria:
        - {unit: A Tyr, attacker_from: Mun}
        {extra}
    steps: []
    """


@pytest.mark.parametrize("value, written", [("0", "0"), ("1", "1"), ("'false'", "'false'"), ("'true'", "'true'"),
                                             ("yes_please", "'yes_please'"), ("null", "null")])
def test_a_boolean_option_takes_only_a_boolean(tmp_path, value, written):
    err = refused(tmp_path, f"id: x\noptions: {{implicit_main_timeline: {value}}}\nsteps: []\n")
    assert f"option implicit_main_timeline cannot be {written}" in err, err
    # the message lists exactly what is allowed, and says how it is written
    assert "one of true, false (a boolean, unquoted)" in err, err


def test_a_mistyped_key_inside_dislodged_is_refused(tmp_path):
    text = RETREAT_START.replace("{unit: A Tyr, attacker_from: Mun}", "{unit: A Tyr, attacker: Mun}").replace("{extra}", "")
    err = refused(tmp_path, text)
    assert "unknown key 'attacker'" in err and "attacker_from" in err, err


def test_the_same_unit_dislodged_twice_is_refused(tmp_path):
    err = refused(tmp_path, RETREAT_START.replace("{extra}", "- {unit: A Tyr, attacker_from: Mun}"))
    assert "two dislodged units in Tyrolia" in err, err


def test_one_centre_owned_by_two_powers_is_refused(tmp_path):
    err = refused(tmp_path, """\
        id: x
        start:
          units: {Germany: [A Mun], France: [A Par]}
          centers: {Germany: [Mun, Par], France: [Par]}
        steps: []
        """)
    assert "Paris is owned twice (by Germany and France)" in err, err


def test_a_centre_listed_twice_for_one_power_is_refused(tmp_path):
    err = refused(tmp_path, """\
        id: x
        start:
          units: {Germany: [A Mun]}
          centers: {Germany: [Mun, Mun]}
        steps: []
        """)
    assert "Munich is owned twice (by Germany)" in err, err


def test_a_boolean_option_given_a_list_names_the_allowed_values(tmp_path):
    err = refused(tmp_path, "id: x\noptions: {implicit_main_timeline: [true]}\nsteps: []\n")
    assert "option implicit_main_timeline cannot be [true]: one of true, false (a boolean, unquoted)" in err, err


def test_a_duplicate_key_is_refused(tmp_path):
    err = refused(tmp_path, "id: x\noptions: {sustain: true}\noptions: {sustain: false}\nsteps: []\n")
    assert "duplicate key 'options'" in err, err
