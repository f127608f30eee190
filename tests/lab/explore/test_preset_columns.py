"""explore's columns of presets (``--preset P1,P2``): a column's preset takes the place of the one the
settings play (``own_preset``), under the values they give beyond it (docs/explore.md)."""

from __future__ import annotations

from fivedp_asp.engine.userrules import validated
from fivedp_asp.lab.explore.exploration import asked_values, column_settings, columns_for, own_preset
from fivedp_asp.model.settings import Settings

NAMES = ("preset",)


def test_a_scenario_of_the_defaults_plays_seeds():
    mine = Settings.of({"sustain": True})
    assert own_preset(mine) == "seeds"
    assert column_settings(mine, NAMES, ("seeds",)) == mine
    assert column_settings(mine, NAMES, ("oliveriver",)) == validated({"preset": "oliveriver", "sustain": True})


def test_settings_that_give_every_value_of_a_preset_play_it():
    mine = validated({"preset": "oliveriver", "sustain": True})
    assert own_preset(mine) == "oliveriver"
    assert column_settings(mine, NAMES, ("oliveriver",)) == mine
    assert column_settings(mine, NAMES, ("seeds",)) == Settings.of({"sustain": True})
    columns, own = columns_for(mine, asked_values([], [], (), "seeds,oliveriver"))
    assert columns == (("seeds",), ("oliveriver",)) and own == 1


def test_a_value_written_beside_the_preset_is_kept_in_every_column():
    # one of the preset's values overridden: the settings no longer give them all, they play seeds
    mine = validated({"preset": "oliveriver", "diagonals": True})
    assert own_preset(mine) == "seeds"
    assert column_settings(mine, NAMES, ("oliveriver",)).chosen("diagonals") is True
    # with --option beside --preset, the option goes over the column's preset
    both = column_settings(Settings(), ("preset", "winner"), ("oliveriver", "none"))
    assert both.chosen("winner") == "none" and both.chosen("adjacency") == "distance"
