"""The package's layers: a module imports only from its own layer or a lower one, nothing outside
``cli/`` imports the command line, and no modules import each other round a loop.

The layers, lowest first, follow the data from input to answers and back out:

0. base: ``errors``, ``limits``, ``inputs``, ``yaml_lines``, ``shapes``
1. ``solver/``: the clingo driver and the Python <-> ASP terms
2. ``model/``: the game's values (orders, notation, map, geometry, multiverse)
3. ``engine/``: options, facts, one step, batches, legal orders
4. ``game/``: the game's state and rules of play
5. ``files/``: scenario and game files
6. ``report/``: JSON, text and pictures of results
7. ``api`` and the package itself (its ``__init__`` re-exports the API); ``serve/``, the game server
8. ``lab/``: the tools that study the engine (``check``, ``explore``, ``compare``, ``bench``, ``bots``);
   nothing below imports them, so the core (layers 0 to 7) runs and ships without the lab
9. ``cli/``: argument parsing and printing

Imports are read from the source with ``ast`` rather than by importing: every import statement
counts, at module level, inside a function or under ``TYPE_CHECKING``, because an import inside a
function ties the two modules together as surely as one at the top (it only runs later). Relative
and absolute imports are both resolved to the module they name.

The imports that still break a rule (most of them in modules being split) are listed in
``ALLOWED_UP`` and ``ALLOWED_LOOPS``, each with its reason; everything else is held strictly, and
an entry that excuses nothing any more fails too, so the lists only shrink.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

import pytest

PACKAGE = "fivedp_asp"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE  # the source tree, read, never imported

LAYERS: Mapping[str, int] = {
    "errors": 0, "limits": 0, "inputs": 0, "yaml_lines": 0, "shapes": 0,
    "solver": 1,
    "model": 2,
    "engine": 3,
    "game": 4,
    "files": 5,
    "report": 6,
    "api": 7, "serve": 7, "": 7,
    "lab": 8,
    "cli": 9,
}
"""Layer of each top-level module or subpackage of the package ("" is the package's own ``__init__``)."""

CLI = "cli"

ALLOWED_UP: Mapping[tuple[str, str], str] = {}
"""Imports that point up a layer, (importer, imported) without the package's name, each with why it
is still there: none is, and a new one needs a reason written here."""

ALLOWED_LOOPS: Mapping[tuple[str, str], str] = {}
"""Imports that close a loop of modules importing each other, each with why it is still there: the
loops are looked for with these imports left out, so any other loop fails the test."""


@dataclass(frozen=True)
class Import:
    """One import statement's tie from the module that holds it to a module of the package."""

    importer: str  # dotted, without the package's name ("report.text"; "" for the package itself)
    imported: str
    line: int
    text: str  # the statement as written, for the message


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name without the package's name (a
    package by its own name, its ``__init__`` file standing for it)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _inside(dotted: str) -> str | None:
    """A dotted module name as the package calls it: without the package's name, or None when it
    is outside the package (clingo, yaml, the standard library)."""
    if dotted == PACKAGE:
        return ""
    if dotted.startswith(PACKAGE + "."):
        return dotted[len(PACKAGE) + 1:]
    return None


def _join(*parts: str) -> str:
    return ".".join(p for p in parts if p)


def imports_of(name: str, source: str, is_package: bool, known: Iterable[str]) -> list[Import]:
    """The imports of the module ``name`` that name modules of the package, wherever they stand in
    its source. ``from X import n`` ties to ``X.n`` when that is a module of the package, else to X."""
    known = set(known)
    full = _join(PACKAGE, name)
    # the package a relative import starts from: the module's own when it is a package's __init__
    here = full.split(".") if is_package else full.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(source)):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                inside = _inside(alias.name)
                if inside is not None:
                    # "import fivedp_asp.cli.commands" ties to the deepest module it names
                    parts = inside.split(".") if inside else []
                    while parts and ".".join(parts) not in known:
                        parts.pop()
                    targets.append(".".join(parts))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                # one dot is the package the module is in, each further dot one package up
                base = _join(".".join(here[:len(here) - (node.level - 1)]), node.module or "")
            else:
                base = node.module or ""
            inside = _inside(base)
            if inside is not None:
                for alias in node.names:
                    sub = _join(inside, alias.name)
                    targets.append(sub if sub in known else inside)
        for target in targets:
            out.append(Import(name, target, node.lineno, ast.unparse(node)))
    return out


def package_imports(root: Path = ROOT) -> list[Import]:
    """Every import of every module of the package under ``root``."""
    modules = module_names(root)
    out = []
    for name, path in modules.items():
        out += imports_of(name, path.read_text(encoding="utf-8"), path.name == "__init__.py", modules)
    return out


def layer_of(module: str, layers: Mapping[str, int] = LAYERS) -> int | None:
    """The layer of a module: that of its top-level module or subpackage; None when it has none."""
    return layers.get(module.split(".")[0] if module else "")


def _where(i: Import) -> str:
    return f"{_join(PACKAGE, i.importer)}:{i.line} `{i.text}`"


def layer_problems(imports: Iterable[Import], layers: Mapping[str, int] = LAYERS,
                   allowed: Mapping[tuple[str, str], str] = ALLOWED_UP) -> list[str]:
    """Each import that points up a layer or reaches the command line from outside it, and each
    module with no layer; imports listed in ``allowed`` are let through."""
    problems = []
    for i in imports:
        mine, theirs = layer_of(i.importer, layers), layer_of(i.imported, layers)
        if mine is None:
            problems.append(f"{_join(PACKAGE, i.importer)} belongs to no layer: add its top-level name to LAYERS")
            continue
        if theirs is None:
            problems.append(f"{_where(i)} imports {_join(PACKAGE, i.imported)}, which belongs to no layer")
            continue
        if (i.importer, i.imported) in allowed:
            continue
        in_cli = i.importer.split(".")[0] == CLI
        if i.imported.split(".")[0] == CLI and not in_cli:
            problems.append(f"{_where(i)} imports the command line ({_join(PACKAGE, i.imported)}): only cli/ may")
        elif theirs > mine:
            problems.append(f"{_where(i)} imports {_join(PACKAGE, i.imported)} (layer {theirs}) from layer {mine}")
    return list(dict.fromkeys(problems))  # a module in no layer is told once, not once per import


def strong_groups(graph: Mapping[str, Iterable[str]]) -> list[frozenset[str]]:
    """The groups of nodes that reach each other (Tarjan's strongly connected components, without
    recursion so that a long chain of imports cannot overflow the stack); a single node only when
    it reaches itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups = []
    nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                if len(group) > 1 or node in graph.get(node, ()):
                    groups.append(frozenset(group))
    return groups


def _graph(imports: Iterable[Import], leave_out: Iterable[tuple[str, str]] = ()) -> dict[str, set[str]]:
    """Who imports whom, without the ties in ``leave_out``."""
    left_out = set(leave_out)
    graph: dict[str, set[str]] = {}
    for i in imports:
        if (i.importer, i.imported) not in left_out:
            graph.setdefault(i.importer, set()).add(i.imported)
    return graph


def cycle_problems(imports: Iterable[Import], allowed: Mapping[tuple[str, str], str] = ALLOWED_LOOPS) -> list[str]:
    """Each group of modules that import each other round a loop, with the imports that tie them;
    the imports listed in ``allowed`` are left out before the loops are looked for."""
    imports = list(imports)
    problems = []
    for group in strong_groups(_graph(imports, allowed)):
        ties = sorted({(i.importer, i.line, _where(i)) for i in imports
                       if i.importer in group and i.imported in group and (i.importer, i.imported) not in allowed})
        problems.append(f"{', '.join(sorted(_join(PACKAGE, m) for m in group))} import each other: "
                        + "; ".join(t[2] for t in ties))
    return problems


def stale_exceptions(imports: Iterable[Import], up: Mapping[tuple[str, str], str] = ALLOWED_UP,
                     loops: Mapping[tuple[str, str], str] = ALLOWED_LOOPS) -> list[str]:
    """The entries of the allow-lists that excuse nothing any more: an import no longer made, or one
    that no longer closes a loop."""
    imports = list(imports)
    ties = {(i.importer, i.imported) for i in imports}
    stale = [f"ALLOWED_UP {pair}: no such import" for pair in up if pair not in ties]
    together = {m: group for group in strong_groups(_graph(imports)) for m in group}
    for pair in loops:
        if pair not in ties:
            stale.append(f"ALLOWED_LOOPS {pair}: no such import")
        elif together.get(pair[0]) is None or pair[1] not in together[pair[0]]:
            stale.append(f"ALLOWED_LOOPS {pair}: on no loop any more")
    return stale


# -- the package --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return package_imports()


def test_every_module_imports_only_from_its_own_layer_or_lower_ones(imports):
    problems = layer_problems(imports)
    assert not problems, "imports against the layers:\n" + "\n".join(problems)


def test_the_core_never_imports_the_lab(imports):
    """The engine, the game, files, reports, the API and the server run without the tools that study
    them: only the lab itself and the command line import ``lab/``."""
    found = [_where(i) for i in imports
             if i.imported.split(".")[0] == "lab" and i.importer.split(".")[0] not in ("lab", CLI)]
    assert not found, "the core imports the lab:\n" + "\n".join(found)
    assert any(i.importer.startswith("cli") and i.imported.startswith("lab.") for i in imports)


def test_no_modules_import_each_other(imports):
    problems = cycle_problems(imports)
    assert not problems, "import loops:\n" + "\n".join(problems)


def test_every_allowed_exception_still_occurs(imports):
    """An entry of the allow-lists that excuses nothing is taken out, so the lists only shrink."""
    stale = stale_exceptions(imports)
    assert not stale, "take out of the allow-lists:\n" + "\n".join(stale)


def test_every_module_has_a_layer():
    missing = [name for name in module_names(ROOT) if layer_of(name) is None]
    assert not missing, f"modules in no layer (add to LAYERS): {missing}"


def test_the_scan_sees_the_package_as_it_is(imports):
    """The scan finds what is known to be there: the command line importing the layers below it, and
    the public API under the package's own name."""
    ties = {(i.importer, i.imported) for i in imports}
    assert ("cli.commands", "report.text") in ties and ("", "api") in ties
    assert ("cli.game", "api") in ties  # "from .. import api": a module, not a name of the package


# -- the checks themselves, on imports that break the rules --------------------------------------


def _tree(root: Path, files: Mapping[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


BAD_TREE = {
    "__init__.py": "from .api import *\n",
    "api.py": "from .engine.step import step\n",
    "errors.py": "import os\n",
    "model/__init__.py": "",
    "model/map.py": """\
        from ..errors import InputError

        def load():
            from ..cli.commands import main  # a function-level import of the command line
            return main
        """,
    "engine/__init__.py": "",
    "engine/step.py": """\
        import fivedp_asp.report.text  # absolute, and up a layer
        from . import sustain

        def step():
            return sustain
        """,
    "engine/sustain.py": """\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from .step import step  # closes a loop with step.py
        """,
    "report/__init__.py": "",
    "report/text.py": "from ..model.map import load\n",
    "cli/__init__.py": "from .commands import main\nfrom .. import api\n",
    "cli/commands.py": "from ..report.text import load\n\ndef main():\n    return 0\n",
    "gadgets/__init__.py": "",
    "gadgets/tool.py": "from ..errors import InputError\nfrom ..model import map\n",
}
"""A package that breaks each rule once: an import up a layer (absolute), one into the command line
(inside a function), a module in no layer, and two loops (one through a TYPE_CHECKING import)."""


def test_the_scan_resolves_every_kind_of_import(tmp_path):
    found = package_imports(_tree(tmp_path / "fivedp_asp", BAD_TREE))
    assert {(i.importer, i.imported) for i in found} == {
        ("", "api"), ("api", "engine.step"), ("cli", "cli.commands"), ("cli", "api"),
        ("cli.commands", "report.text"), ("engine.step", "report.text"), ("engine.step", "engine.sustain"),
        ("engine.sustain", "engine.step"), ("gadgets.tool", "errors"), ("gadgets.tool", "model.map"), ("model.map", "errors"),
        ("model.map", "cli.commands"), ("report.text", "model.map")}


def test_a_tree_that_breaks_the_layers_is_told_module_by_module(tmp_path):
    found = package_imports(_tree(tmp_path / "fivedp_asp", BAD_TREE))
    assert layer_problems(found, allowed={}) == [
        "fivedp_asp.engine.step:1 `import fivedp_asp.report.text` imports fivedp_asp.report.text (layer 6) from layer 3",
        "fivedp_asp.gadgets.tool belongs to no layer: add its top-level name to LAYERS",
        "fivedp_asp.model.map:4 `from ..cli.commands import main` imports the command line (fivedp_asp.cli.commands): "
        "only cli/ may",
    ]


def test_a_tree_with_loops_is_told_with_the_imports_that_close_them(tmp_path):
    found = package_imports(_tree(tmp_path / "fivedp_asp", BAD_TREE))
    assert sorted(cycle_problems(found, allowed={})) == [
        "fivedp_asp.cli.commands, fivedp_asp.model.map, fivedp_asp.report.text import each other: "
        "fivedp_asp.cli.commands:1 `from ..report.text import load`; "
        "fivedp_asp.model.map:4 `from ..cli.commands import main`; "
        "fivedp_asp.report.text:1 `from ..model.map import load`",
        "fivedp_asp.engine.step, fivedp_asp.engine.sustain import each other: "
        "fivedp_asp.engine.step:2 `from . import sustain`; fivedp_asp.engine.sustain:4 `from .step import step`",
    ]
    # leaving out one import of a loop breaks that loop and no other
    assert [p.split(" import each other")[0] for p in cycle_problems(found, allowed={("engine.sustain", "engine.step"): "x"})] == [
        "fivedp_asp.cli.commands, fivedp_asp.model.map, fivedp_asp.report.text"]


def test_an_allowed_import_is_let_through_and_only_that_one(tmp_path):
    found = package_imports(_tree(tmp_path / "fivedp_asp", BAD_TREE))
    allowed = {("engine.step", "report.text"): "being moved"}
    assert [p.split(" ")[0] for p in layer_problems(found, allowed=allowed)] == ["fivedp_asp.gadgets.tool",
                                                                                  "fivedp_asp.model.map:4"]
    loops = {("engine.sustain", "engine.step"): "being split"}
    assert stale_exceptions(found, up=allowed, loops=loops) == []
    assert stale_exceptions(found, up={("model.map", "report.text"): "gone"},
                            loops={("engine.step", "report.text"): "x", ("report.text", "engine.step"): "y"}) == [
        "ALLOWED_UP ('model.map', 'report.text'): no such import",
        "ALLOWED_LOOPS ('engine.step', 'report.text'): on no loop any more",
        "ALLOWED_LOOPS ('report.text', 'engine.step'): no such import"]


def test_a_new_upward_import_in_the_package_fails(imports):
    """One import more than the package has, pointing up or into the command line, is reported by name."""
    up = Import("model.map", "report.text", 7, "from ..report.text import board_lines")
    assert layer_problems([*imports, up]) == [
        "fivedp_asp.model.map:7 `from ..report.text import board_lines` imports fivedp_asp.report.text (layer 6) "
        "from layer 2"]
    cli = Import("lab.bench.benchmarks", "cli.commands", 9, "from ...cli.commands import main")
    assert layer_problems([*imports, cli]) == [
        "fivedp_asp.lab.bench.benchmarks:9 `from ...cli.commands import main` imports the command line "
        "(fivedp_asp.cli.commands): only cli/ may"]


def test_a_new_loop_in_the_package_fails(imports):
    """An import from a module into one that already imports it (here, within one layer) is a loop."""
    back = Import("errors", "inputs", 3, "from .inputs import read_text")
    assert ("inputs", "errors") in {(i.importer, i.imported) for i in imports}
    problems = cycle_problems([*imports, back])
    assert len(problems) == 1 and problems[0].startswith("fivedp_asp.errors, fivedp_asp.inputs import each other")
    assert "fivedp_asp.errors:3 `from .inputs import read_text`" in problems[0]


def test_loops_are_found_in_a_graph_of_any_shape():
    assert strong_groups({"a": ["b"], "b": ["c"], "c": []}) == []
    assert strong_groups({"a": ["a"]}) == [frozenset({"a"})]
    assert sorted(map(sorted, strong_groups({"a": ["b"], "b": ["a", "c"], "c": ["d"], "d": ["c"], "e": ["a"]}))) == [
        ["a", "b"], ["c", "d"]]
    chain = {str(n): [str(n + 1)] for n in range(5000)}
    assert strong_groups(chain) == []
    chain["5000"] = ["0"]
    assert strong_groups(chain) == [frozenset(chain) | {"5000"}]
