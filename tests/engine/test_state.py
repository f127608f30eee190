"""Unit tests of the state: resolving omitted designations (docs/rules.md §6.2), the multiverse (§6.1) and the
phase bookkeeping of a step (§5.4: which phase comes next, supply centres and adjustments).

Multiverses are built by hand with ``make_board``; the two-timeline one has boards a0, a1 and b1,
timeline b having forked from a0.
"""

from __future__ import annotations

from types import MappingProxyType

import pytest

from fivedp_asp.errors import InputError
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import (
    ADJUSTMENT, MOVEMENT, RETREAT, Multiverse, Retreat, Unit, make_board, season_name,
)
from fivedp_asp.model.notation import parse_order
from fivedp_asp.engine.resolve import Place, resolve
from fivedp_asp.engine.adjustment import needs_adjustment, settle
from fivedp_asp.engine.step import next_phase
from fivedp_asp.model.settings import Settings


@pytest.fixture(scope="module")
def game_map():
    return load_map("standard")


def army(power: str, loc: str) -> Unit:
    return Unit("army", power, loc)


def fleet(power: str, loc: str) -> Unit:
    return Unit("fleet", power, loc)


def multiverse(game_map, boards, forks=None, **options) -> Multiverse:
    return Multiverse(game_map, MappingProxyType({b.key: b for b in boards}),
                      MappingProxyType(dict(forks or {})), Settings.of(options))


@pytest.fixture()
def two_timelines(game_map):
    """a0 → a1, and b1 forked from a0. Germany has A Munich and A Bohemia on every board."""
    units = [army("Germany", "mun"), army("Germany", "boh"), army("Austria", "vie")]
    return multiverse(game_map, [make_board(0, 0, units, {}), make_board(0, 1, units, {}),
                                 make_board(1, 1, units, {})], forks={1: (0, 0)})


def resolved(mv: Multiverse, text: str, power: str = "Germany"):
    return resolve(parse_order(text, mv.game_map), power, text, mv)


# -- resolve: omitted timelines and turns (docs/rules.md §6.2) ---------------------------------


def test_omitted_timeline_is_a_and_omitted_turn_is_latest(two_timelines):
    r = resolved(two_timelines, "A Munich hold")
    assert r.kind == "hold"
    assert r.unit == Place(0, 1, "mun")


def test_given_timeline_takes_its_latest_turn(two_timelines):
    assert resolved(two_timelines, "A b-Munich hold").unit == Place(1, 1, "mun")
    assert resolved(two_timelines, "A b:Mun hold").unit == Place(1, 1, "mun")


def test_given_turn_is_kept(two_timelines):
    assert resolved(two_timelines, "A Munich@0 hold").unit == Place(0, 0, "mun")
    assert resolved(two_timelines, "A a:Munich:Spring 1901 hold").unit == Place(0, 0, "mun")


def test_implicit_main_timeline_off(game_map):
    mv = multiverse(game_map, [make_board(0, 0, [army("Germany", "mun")], {})], implicit_main_timeline=False)
    with pytest.raises(InputError, match="implicit_main_timeline"):
        resolved(mv, "A Munich hold")
    assert resolved(mv, "A a-Munich hold").unit == Place(0, 0, "mun")


def test_unknown_timeline_is_an_input_error(two_timelines):
    with pytest.raises(InputError, match="no timeline"):
        resolved(two_timelines, "A c-Munich hold")


def test_move_destination_takes_the_units_board(two_timelines):
    r = resolved(two_timelines, "A b-Munich - Tyrolia")
    assert (r.kind, r.unit, r.dest) == ("move", Place(1, 1, "mun"), Place(1, 1, "tyr"))
    r = resolved(two_timelines, "A Munich@0 - Tyrolia")
    assert r.dest == Place(0, 0, "tyr")


def test_move_destination_with_only_a_timeline_takes_its_latest_turn(two_timelines):
    r = resolved(two_timelines, "A Munich@0 - b-Munich")
    assert r.unit == Place(0, 0, "mun")
    assert r.dest == Place(1, 1, "mun")


def test_move_destination_with_only_a_turn_keeps_the_units_timeline(two_timelines):
    r = resolved(two_timelines, "A b-Munich - Munich@0")
    assert r.dest == Place(1, 0, "mun")


def test_move_destination_with_coast(two_timelines):
    r = resolved(two_timelines, "F b-Portugal - Spain(nc)", "France")
    assert r.dest == Place(1, 1, "spa", "nc")


def test_support_hold_target_takes_the_supporters_board(two_timelines):
    r = resolved(two_timelines, "A b-Bohemia Supports A Munich")
    assert r.kind == "support_hold"
    assert (r.unit, r.target, r.dest) == (Place(1, 1, "boh"), Place(1, 1, "mun"), None)


def test_support_move_destination_takes_the_supported_units_board(two_timelines):
    r = resolved(two_timelines, "A Bohemia Supports A b-Munich - Tyrolia")
    assert r.kind == "support_move"
    assert r.unit == Place(0, 1, "boh")
    assert r.target == Place(1, 1, "mun")
    assert r.dest == Place(1, 1, "tyr")
    r = resolved(two_timelines, "A Bohemia Supports A Munich@0 - Tyrolia")
    assert (r.target, r.dest) == (Place(0, 0, "mun"), Place(0, 0, "tyr"))


def test_support_move_target_defaults_to_the_supporters_board(two_timelines):
    r = resolved(two_timelines, "A b-Bohemia Supports A Munich - Tyrolia")
    assert (r.target, r.dest) == (Place(1, 1, "mun"), Place(1, 1, "tyr"))


def test_convoy_destination_takes_the_armys_board(two_timelines):
    r = resolved(two_timelines, "F b-North Sea Convoys A London - Norway", "England")
    assert r.kind == "convoy"
    assert (r.unit, r.target, r.dest) == (Place(1, 1, "nth"), Place(1, 1, "lon"), Place(1, 1, "nwy"))


def test_via_convoy_and_same_orders_share_a_signature(two_timelines):
    a = resolved(two_timelines, "A Munich - Tyrolia")
    b = resolved(two_timelines, "A a-Mun@1 - a-Tyr@1")
    assert a.signature == b.signature
    assert resolved(two_timelines, "A London - Norway via Convoy", "England").via_convoy


def test_adjustment_orders(two_timelines):
    r = resolved(two_timelines, "Build A Munich")
    assert (r.kind, r.unit, r.unit_kind) == ("build", Place(0, 1, "mun"), "army")
    r = resolved(two_timelines, "Disband A b-Munich")
    assert (r.kind, r.unit) == ("disband", Place(1, 1, "mun"))


# -- multiverse (docs/rules.md §6.1) -----------------------------------------------------------


def test_timelines_heads_and_latest_turn(two_timelines):
    mv = two_timelines
    assert mv.timelines == (0, 1)
    assert mv.latest_turn(0) == 1
    assert mv.latest_turn(1) == 1
    assert mv.latest_turn(2) is None
    assert [b.key for b in mv.heads] == [(0, 1), (1, 1)]
    assert mv.board(0, 0) is not None and mv.board(1, 0) is None


def test_heads_of_timelines_at_different_turns(game_map):
    mv = multiverse(game_map, [make_board(0, n, [], {}) for n in range(4)] + [make_board(1, 2, [], {})],
                    forks={1: (0, 1)})
    assert [b.name for b in mv.heads] == ["a3", "b2"]
    assert mv.latest_turn(0) == 3


@pytest.mark.parametrize("timeline, turn, name", [
    (0, 0, "a0"), (0, 1, "a1"), (1, 3, "b3"), (2, 12, "c12"), (25, 4, "z4"), (26, 2, "a1@2"), (27, 3, "b1@3"),
])
def test_board_name(timeline, turn, name):
    assert make_board(timeline, turn, [], {}).name == name


def test_find_board(two_timelines):
    assert two_timelines.find_board("b1").key == (1, 1)
    assert two_timelines.find_board("a0").key == (0, 0)
    assert two_timelines.find_board("b0") is None


def test_board_phase():
    u = army("Austria", "ser")
    assert make_board(0, 1, [], {}).phase == MOVEMENT
    assert make_board(0, 1, [], {}, retreats=(Retreat(u, "bul"),)).phase == RETREAT
    assert make_board(0, 2, [], {}, adjustment_due=True).phase == ADJUSTMENT
    assert make_board(0, 2, [], {}, retreats=(Retreat(u),), adjustment_due=True).phase == RETREAT


def test_make_board_indexes_units_by_province():
    b = make_board(0, 0, [fleet("Russia", "stp/sc"), army("Russia", "mos")], {"mos": "Russia"})
    assert set(b.units) == {"stp", "mos"}
    assert b.units["stp"].location == "stp/sc" and b.units["stp"].province == "stp"
    assert b.units["stp"].letter == "F" and b.units["mos"].letter == "A"
    assert b.key == (0, 0)
    assert dict(b.centers) == {"mos": "Russia"}


def test_with_boards_is_a_new_multiverse(two_timelines):
    mv = two_timelines
    after = mv.with_boards([make_board(0, 2, [], {}), make_board(2, 1, [], {})], forks={2: (0, 0)})
    assert after.timelines == (0, 1, 2)
    assert [b.name for b in after.heads] == ["a2", "b1", "c1"]
    assert dict(after.forks) == {1: (0, 0), 2: (0, 0)}
    assert mv.timelines == (0, 1) and (0, 2) not in mv.boards  # the original is unchanged


@pytest.mark.parametrize("turn, name", [(0, "Spring 1901"), (1, "Fall 1901"), (2, "Spring 1902"), (7, "Fall 1904")])
def test_season_name(turn, name):
    assert season_name(turn) == name


# -- next phase, supply centres and adjustments (docs/rules.md §5) -----------------------------


def test_next_phase_order(game_map):
    u = army("Austria", "ser")
    plain = make_board(0, 1, [], {})
    retreat = make_board(1, 1, [], {}, retreats=(Retreat(u),))
    adjust = make_board(2, 2, [], {}, adjustment_due=True)
    assert next_phase(multiverse(game_map, [plain])) == MOVEMENT
    assert next_phase(multiverse(game_map, [plain, adjust])) == ADJUSTMENT
    assert next_phase(multiverse(game_map, [plain, adjust, retreat])) == RETREAT
    assert next_phase(multiverse(game_map, [adjust, retreat])) == RETREAT


def test_next_phase_looks_at_heads_only(game_map):
    past = make_board(0, 1, [], {}, retreats=(Retreat(army("Austria", "ser")),))
    head = make_board(0, 2, [], {})
    assert next_phase(multiverse(game_map, [past, head])) == MOVEMENT


HOME = {"ber": "Germany", "kie": "Germany", "mun": "Germany"}


def test_centres_change_hands_after_a_fall_battle(game_map):
    # turn 2 (Spring 1902) is produced by the Fall 1901 battle
    units = [army("Germany", "hol"), army("Germany", "ber"), fleet("Germany", "kie"), army("France", "mun")]
    board = settle(make_board(0, 2, units, HOME), multiverse(game_map, []))
    assert dict(board.centers) == {"ber": "Germany", "kie": "Germany", "mun": "France", "hol": "Germany"}


def test_vacated_centre_keeps_its_owner(game_map):
    centers = dict(HOME, hol="Germany")
    units = [army("Germany", "ber"), fleet("Germany", "kie"), army("Germany", "mun"), army("Germany", "ruh")]
    board = settle(make_board(0, 4, units, centers), multiverse(game_map, []))
    assert dict(board.centers) == centers
    assert not board.adjustment_due  # 4 centres, 4 units


@pytest.mark.parametrize("turn", [0, 1, 3])
def test_centres_do_not_change_after_a_spring_battle(game_map, turn):
    # turns 1, 3 are produced by Spring battles; turn 0 by none
    units = [army("Germany", "hol"), army("France", "mun")]
    board = make_board(0, turn, units, HOME)
    assert settle(board, multiverse(game_map, [])) is board


def test_no_settling_while_retreats_are_pending(game_map):
    board = make_board(0, 2, [army("France", "mun")], HOME, retreats=(Retreat(army("Germany", "ber")),))
    assert settle(board, multiverse(game_map, [])) is board


def test_adjustment_when_a_power_must_disband(game_map):
    units = [army("Germany", "ber"), fleet("Germany", "kie"), army("Germany", "ruh"), army("France", "mun")]
    board = settle(make_board(0, 2, units, HOME), multiverse(game_map, []))
    assert board.centers["mun"] == "France"
    assert board.adjustment_due and board.phase == ADJUSTMENT


def test_adjustment_when_a_power_can_build(game_map):
    centers = dict(HOME, hol="Germany")
    units = [army("Germany", "ber"), fleet("Germany", "kie"), army("Germany", "hol")]
    board = settle(make_board(0, 2, units, centers), multiverse(game_map, []))
    assert board.adjustment_due  # 4 centres, 3 units, Munich free


def test_no_adjustment_without_a_free_home_centre(game_map):
    centers = dict(HOME, hol="Germany")
    units = [army("Germany", "ber"), fleet("Germany", "kie"), army("Germany", "mun")]
    board = settle(make_board(0, 2, units, centers), multiverse(game_map, []))
    assert not board.adjustment_due and board.phase == MOVEMENT


def test_no_adjustment_when_a_free_home_centre_is_not_owned(game_map):
    centers = {"ber": "Germany", "kie": "Germany", "mun": "France", "hol": "Germany", "bel": "Germany"}
    units = [army("Germany", "ber"), fleet("Germany", "kie"), army("Germany", "hol")]
    board = settle(make_board(0, 2, units, centers), multiverse(game_map, []))
    assert dict(board.centers)["mun"] == "France"
    # Germany: 4 centres, 3 units, but its one free home centre (Munich) is French; France owns
    # one centre and has no unit, but Munich is not a French home centre: nobody builds.
    assert not board.adjustment_due


def test_needs_adjustment_for_a_power_with_centres_only(game_map):
    # France owns Paris (home) and no units: it can build there
    board = make_board(0, 2, [army("Germany", "mun")], {"mun": "Germany", "par": "France"})
    assert needs_adjustment(board, multiverse(game_map, []))
    board = make_board(0, 2, [army("Germany", "mun")], {"mun": "Germany"})
    assert not needs_adjustment(board, multiverse(game_map, []))
