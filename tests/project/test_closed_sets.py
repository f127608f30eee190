"""No module of the package compares a value with a name of a closed set spelled as a string: unit
kinds, order kinds, phases, results, duty kinds and the causes of results are enums
(``fivedp_asp/model/kinds.py``) that own their names, as the greedy bot's reading of an order is its
own (``lab/bots/greedy.py``, ``Choice``); a module compares with their members (``unit.kind ==
UnitKind.FLEET``), never with ``"fleet"``. A name spelled again in a module drifts from the set the
day the set changes; a member that is renamed or removed fails where it is used.

The source is read with ``ast``: every comparison (``==``, ``!=``, ``in``, ``not in``, ``is``, ``is
not``) with a string literal, or a tuple, list or set of them, on either side, and every ``case`` of
a ``match`` with a string literal. The names looked for are taken from the enums themselves. Option
values are another closed set, held by the option registry (``model/options.py``), and some share a
name with a result (``datc_4c5: invalid``): a comparison with the value of ``options.chosen(...)``,
directly or through a name it was assigned to in the same function, is an option's and not counted
here. Other words that happen to be spelled as a name of a set (a file's key ``orders``, the
``diplomacy`` package's ``dislodged``) are listed in ``ALLOWED`` with their reason; an entry that
excuses nothing any more fails too, so the list only shrinks.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from fivedp_asp.lab.bots.greedy import Choice
from fivedp_asp.model.kinds import CLOSED_SETS

ROOT = Path(__file__).resolve().parents[2] / "fivedp_asp"  # the source tree, read as text
HOMES = {"model/kinds.py", "lab/bots/greedy.py"}  # the modules that spell the names, in their enums
NAMES = frozenset(str(member) for enum in (*CLOSED_SETS, Choice) for member in enum)

ALLOWED: Mapping[tuple[str, str], str] = {
    ("files/starts.py", "orders"): "the key 'orders' of a past board in a scenario's start",
    ("files/starts.py", "dislodged"): "the key 'dislodged' of a board in a scenario's start",
    ("files/positions.py", "dislodged"): "the key 'dislodged' of a start",
    ("files/expectations.py", "dislodged"): "the key 'dislodged' of a step's expectations",
    ("model/notation.py", "support"): "the notation's verb that reads both supports (a group of its pattern)",
    ("solver/backup.py", "move"): "the shown predicate move/2 of an answer (LINKS)",
    ("solver/backup.py", "dislodged"): "the decision dislodged/1 of an answer",
    ("lab/compare/diplomacy_ref.py", "dislodged"): "the diplomacy package's own words for an order's fate",
    ("lab/compare/diplomacy_ref.py", "cut"): "the diplomacy package's own words for an order's fate",
    ("lab/compare/diplomacy_ref.py", "disband"): "the diplomacy package's own words for an order's fate",
}
"""(module, name) pairs whose comparisons with the name are not of a closed set, each with why."""
_OPS = (ast.Eq, ast.NotEq, ast.In, ast.NotIn, ast.Is, ast.IsNot)


@dataclass(frozen=True)
class Hit:
    """One comparison with a name of a closed set, spelled as a string."""

    module: str
    line: int
    names: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.module}:{self.line}: compares with {', '.join(map(repr, self.names))}: use the enum's member"


def _literals(node: ast.AST) -> list[str]:
    """The string literals a comparison operand spells: itself, or the items of a literal collection."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _is_option_value(node: ast.AST, option_names: set[str]) -> bool:
    """Whether the operand is an option's chosen value: ``x.chosen(...)``, or a name assigned one."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "chosen":
        return True
    return isinstance(node, ast.Name) and node.id in option_names


def _option_names(scope: ast.AST) -> set[str]:
    """The names a function (or module) assigns an option's chosen value to."""
    out = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _is_option_value(node.value, set()):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def comparisons(source: str, module: str) -> list[Hit]:
    """Every comparison in ``source`` with a closed set's name spelled as a string."""
    tree = ast.parse(source)
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    hits: dict[int, Hit] = {}
    for scope in scopes:
        options = _option_names(scope)
        for node in ast.walk(scope):
            if isinstance(node, ast.MatchValue) and _literals(node.value):
                names = tuple(s for s in _literals(node.value) if s in NAMES)
                if names:
                    hits[id(node)] = Hit(module, node.lineno, names)
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            for i, op in enumerate(node.ops):
                if not isinstance(op, _OPS):
                    continue
                left, right = operands[i], operands[i + 1]
                if _is_option_value(left, options) or _is_option_value(right, options):
                    continue
                names = tuple(sorted({s for s in _literals(left) + _literals(right) if s in NAMES}))
                if names:
                    hits[id(node)] = Hit(module, node.lineno, names)
    return sorted(hits.values(), key=lambda h: h.line)


def package_hits(root: Path = ROOT) -> list[Hit]:
    """Every comparison of the package with a closed set's name, ``ALLOWED`` or not."""
    out = []
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(root).as_posix()
        if module not in HOMES:
            out += comparisons(path.read_text(encoding="utf-8"), module)
    return out


def problems(hits: list[Hit], allowed: Mapping[tuple[str, str], str] = ALLOWED) -> list[str]:
    """The hits ``allowed`` does not excuse, and each entry of ``allowed`` that excuses none."""
    out = [str(h) for h in hits if any((h.module, n) not in allowed for n in h.names)]
    used = {(h.module, n) for h in hits for n in h.names}
    out += [f"ALLOWED {key!r} excuses nothing: take it out" for key in allowed if key not in used]
    return out


def test_no_module_compares_with_a_closed_sets_name_spelled_as_a_string():
    found = problems(package_hits())
    assert not found, f"{len(found)} comparisons with names of closed sets:\n" + "\n".join(found)


def test_the_names_come_from_the_enums():
    # every set the package compares with is in the list the check reads
    assert {"army", "fleet", "support_move", "retreat", "adjustment", "succeeds", "invalid", "orders"} <= NAMES


def test_a_spelled_name_is_found_in_every_form_of_comparison():
    source = '''
def f(unit, r, d, mv):
    a = unit.kind == "fleet"
    b = "invalid" != r.result
    c = r.kind in ("hold", "move")
    d = d.kind not in {"build", "disband"}
    e = r.kind is "convoy"
    reading = mv.options.chosen("datc_4c5")
    g = reading == "invalid" or mv.options.chosen("datc_4b5") == "fails"
    h = unit.name == "fleetwood" or r.kind in ("supports",)
    match r.kind:
        case "support_move" | "support_hold":
            pass
        case "moves":
            pass
'''
    hits = comparisons(source, "m.py")
    assert [(h.line, h.names) for h in hits] == [
        (3, ("fleet",)), (4, ("invalid",)), (5, ("hold", "move")), (6, ("build", "disband")), (7, ("convoy",)),
        (12, ("support_move",)), (12, ("support_hold",))]


def test_an_allowed_name_is_excused_in_its_module_only_and_a_stale_entry_fails():
    hits = [Hit("a.py", 1, ("orders",)), Hit("b.py", 2, ("orders",))]
    allowed = {("a.py", "orders"): "a key", ("c.py", "move"): "gone"}
    assert problems(hits, allowed) == [str(hits[1]), "ALLOWED ('c.py', 'move') excuses nothing: take it out"]


def test_a_comparison_with_a_member_is_not_counted():
    source = 'def f(unit):\n    return unit.kind == UnitKind.FLEET and unit.kind in (UnitKind.ARMY,)\n'
    assert comparisons(source, "m.py") == []
