"""The rules of play (``fivedp_asp.game``) on their own: orders submitted without a file, each line
read once per submission, and a package that reads and writes no file."""

from __future__ import annotations

import ast
from pathlib import Path

from fivedp_asp.game import play
from fivedp_asp.game.play import qualify, submit_orders
from fivedp_asp.game.state import new_game
from fivedp_asp.model.map import load_map
from fivedp_asp.model.multiverse import opening

GAME_PACKAGE = Path(play.__file__).resolve().parent


def _opening_game():
    return new_game(opening(load_map("standard")))


def _holds(game, power: str) -> list[str]:
    """A hold for every unit of ``power`` on the opening board."""
    head = game.mv.heads[0]
    return [f"{u.letter} {game.mv.game_map.short_name(u.location)} H"
            for u in sorted(head.units.values(), key=lambda u: u.location) if u.power == power]


def test_each_line_is_resolved_a_bounded_number_of_times_however_many_orders_wait(monkeypatch):
    """A line given is resolved for its phase check and once more for what it orders and how it is
    designated; each waiting line once per submission, not once for every line given."""
    calls = []
    real = play.resolve

    def counted(*args, **kwargs):
        calls.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(play, "resolve", counted)
    game = _opening_game()
    lines = [line for power in game.mv.game_map.powers for line in _holds(game, power)]
    assert len(lines) == 22
    first = submit_orders(game, None, lines)
    assert len(calls) <= 2 * len(lines), len(calls)  # the phase check; what it orders and its designation
    calls.clear()
    # every line again: each replaces its own waiting line, found among all that wait
    again = submit_orders(first.game, None, lines)
    assert len(calls) <= 3 * len(lines), len(calls)
    assert again.game.pending == first.game.pending
    assert all(a.replaces is None for a in again.accepted)  # the same line replacing itself says nothing


def test_each_accepted_line_is_designated_as_qualify_designates_it():
    game = submit_orders(_opening_game(), "Germany", ["A Mun - Ruh", "F Kie - Den", "A b-Mun H"],
                         check_phase=False).game
    given = ["A Mun - Bur", "A Ber H", "A b-Ber H", "A a-Ber@7 H", "F Kie - Den", "A b-Mun H"]
    sub = submit_orders(game, "Germany", given, check_phase=False)
    got = [(a.text, a.qualified, a.replaces) for a in sub.accepted]
    assert got == [(line, qualify(game.mv, "Germany", line)[0], replaced) for line, replaced in
                   zip(given, ["A Mun - Ruh", None, None, None, None, None])]
    assert [a.qualified for a in sub.accepted] == [
        "A a-Mun@0 - a-Bur@0", "A a-Ber@0 H", None, "A a-Ber@7 H", "F a-Kie@0 - a-Den@0", None]
    # a line naming no board of this multiverse is taken, undesignated, and neither replaces a waiting
    # line nor is replaced: it is the same as no other line, itself included
    # (a line given again takes its own place, at the end)
    assert sub.game.pending["Germany"] == ["A b-Mun H", "A Mun - Bur", "A Ber H", "A b-Ber H", "A a-Ber@7 H",
                                           "F Kie - Den", "A b-Mun H"]


def _imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports (at the top or inside a function), relative names made absolute."""
    package = "fivedp_asp.game"
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[:len(package.split(".")) - node.level + 1] if node.level else []
            out.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
    return out


def test_the_game_package_imports_neither_the_files_nor_the_reports():
    """game/ lies below files/ and report/: a game is played without reading or writing anything."""
    found = [(path.name, line, module) for path in sorted(GAME_PACKAGE.glob("*.py"))
             for line, module in _imported_modules(path)
             if module.startswith(("fivedp_asp.files", "fivedp_asp.report"))]
    assert found == []
    # the walk sees relative imports: play's own import of the state is found as what it is
    assert "fivedp_asp.game.state" in [module for _, module in _imported_modules(GAME_PACKAGE / "play.py")]
