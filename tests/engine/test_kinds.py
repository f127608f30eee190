"""The closed sets the code speaks of are enums that own their names: an order's verb (``OrderKind``)
and the backup rules (``BackupRule``), each of whose two sentences is written once
(``engine.answer.backup_words``)."""

from __future__ import annotations

import pytest

from fivedp_asp.engine.answer import backup_words
from fivedp_asp.engine.resolve import resolve
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening
from fivedp_asp.model.notation import parse_order
from fivedp_asp.model.orders import OrderKind, ResolvedOrder
from fivedp_asp.solver.backup import BackupRule


def test_every_resolved_order_has_its_kind_as_a_member():
    mv = opening(load_map("standard"))
    for line, kind in (("A Mun - Tyr", OrderKind.MOVE), ("A Mun H", OrderKind.HOLD), ("F Kie S A Mun - Ruh",
                       OrderKind.SUPPORT_MOVE), ("A Ber S A Mun", OrderKind.SUPPORT_HOLD), ("Build A Mun", OrderKind.BUILD)):
        r = resolve(parse_order(line, mv.game_map), "Germany", line, mv)
        assert r.kind is kind and r.kind == kind.value
    # a kind given by its name is read as the member; a name that is no kind is refused
    assert ResolvedOrder("Germany", "", None, "waive", None).kind is OrderKind.WAIVE
    with pytest.raises(ValueError):
        ResolvedOrder("Germany", "", None, "fly", None)


def test_each_backup_rule_is_said_in_words_once():
    for rule in BackupRule:
        reason, note = backup_words(rule, "A Mun (a0)", 1), backup_words(rule, "A Mun (a0)", 1, note=True)
        assert "A Mun (a0)" in reason and "A Mun (a0)" in note
    assert backup_words(BackupRule.SZYKMAN, "F Nth", 1) == "convoy paradox, Szykman rule: F Nth holds"
    assert backup_words(BackupRule.FAIL, "A Mun", 1, note=True) == "paradox, DATC 5.B.9: the orders of A Mun in the cycle fail"
