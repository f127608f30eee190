"""``fivedp_asp.settings`` takes a preset as a scenario's ``options:`` writes it (docs/api.md)."""

from __future__ import annotations

import pytest

import fivedp_asp as fd


def test_settings_with_a_preset_and_a_value_beside_it():
    s = fd.settings({"preset": "oliveriver", "winner": "none"})
    assert s.chosen("adjacency") == "distance" and s.chosen("winner") == "none"
    assert fd.settings({"preset": "seeds"}) == fd.settings()


def test_an_unknown_preset_is_an_input_error():
    with pytest.raises(fd.InputError, match="unknown preset 'nope'"):
        fd.settings({"preset": "nope"})
