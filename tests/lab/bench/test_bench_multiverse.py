"""`fivedp bench multiverse`: the reference's share of a step, one head board at a time."""

from __future__ import annotations

import pytest

from fivedp_asp.lab.bench.positions import board_orders, step_orders, synthetic_multiverse
from fivedp_asp.lab.bench.benchmarks import reference_per_board
from fivedp_asp.cli import main
from fivedp_asp.model.notation import timeline_name


def test_board_orders_keep_each_heads_own_moves_and_hold_the_travellers():
    mv = synthetic_multiverse(4, 20)
    orders, made = step_orders(mv, 6, 1)
    per_board = board_orders(orders)
    assert set(per_board) == {(timeline_name(h.timeline), h.turn) for h in mv.heads}
    lines = [line for power in orders.values() for line in power]
    classic = [line for board in per_board.values() for power in board.values() for line in power]
    assert len(classic) == len(lines)  # one line per unit, on the board it stands on

    def board(where: str) -> tuple[str, str]:  # "a-Mun@3" -> ("a", "3")
        return where.split("-")[0], where.split("@")[1]

    travelling = [line for line in lines
                  if " - " in line and board(line.split(" ")[1]) != board(line.split(" - ")[1])]
    assert made == 6 and len(travelling) >= 1
    # every unit of a head has exactly one order there, and a time-travel order is a hold
    for (tl, turn), board in per_board.items():
        head = next(h for h in mv.heads if (timeline_name(h.timeline), h.turn) == (tl, turn))
        ordered = [line.split(" ")[1] for power in board.values() for line in power]
        assert sorted(ordered) == sorted(mv.game_map.short_name(u.location) for u in head.units.values())
    holds = sum(line.endswith(" H") for line in classic)
    assert holds == sum(line.endswith(" H") for line in lines) + len(travelling)


@pytest.mark.slow
def test_reference_per_board_times_every_head():
    mv = synthetic_multiverse(2, 10)
    orders, _ = step_orders(mv, 2, 1)
    ms = reference_per_board(mv, orders, 1)
    assert ms is not None and ms > 0


def test_the_multiverse_table_has_the_ratio_per_board(capsys):
    assert main(["bench", "multiverse", "--heads", "2", "--history", "10", "--repeat", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("heads"))
    assert header.split()[-4:] == ["ms/board", "ref", "ms", "ratio"]
    row = lines[lines.index(header) + 1].split()
    assert float(row[-1]) > 0 and float(row[-2]) > 0
