"""The rules handed to the grounder are those that can fire on a phase's facts (program._statements): a
rule whose positive body names a predicate with no possible atom is left out. The answers must be
those of the whole program, on every kind of phase; and the rules left out must be the ones the facts
rule out (convoy rules without convoy orders, rules about past boards when every board is a head)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedp_asp.solver import driver, encodings, program
from fivedp_asp.engine import step as step_module
from fivedp_asp.files.scenarios import find_scenarios, read_scenario, check_scenario
from fivedp_asp.solver.driver import encoding_size, solve_decisions

CASES = Path(__file__).resolve().parents[2] / "cases"


def _heads(statements) -> set[str]:
    """The predicate names of the rule heads among ``statements``."""
    return {a.symbol.name for s in statements if s.ast_type.name == "Rule" for a in encodings._atoms(s.head)}


def _whole(programs, facts, static, names=None):
    return program._Statements(encodings._parsed_programs(tuple(programs)), None)  # every statement; any predicate read


def _recorded_queries(monkeypatch, paths):
    """Every program a run of these scenarios solves: (programs, facts, static, names), names the
    predicates the caller handed over with the facts (None: read off the text)."""
    seen = []
    real = driver._control

    def spy(programs, facts, static, names=None):
        seen.append((tuple(programs), facts, static, names))
        return real(programs, facts, static, names)

    monkeypatch.setattr(driver, "_control", spy)
    for path in paths:
        check_scenario(read_scenario(path))
    monkeypatch.setattr(driver, "_control", real)
    return seen


def _answer(programs, facts, static):
    s = solve_decisions(programs, facts, static)
    return sorted(map(str, s.atoms)), [(r, sorted(map(str, p))) for r, p in s.backups]


SCENARIOS = sorted(str(p) for p in find_scenarios([str(CASES / d) for d in ("multiverse", "options")]))[::3] + [
    str(CASES / "datc" / name) for name in ("6.F.14.yaml", "6.F.16.yaml", "6.C.01.yaml", "6.G.08.yaml")
    if (CASES / "datc" / name).is_file()]


@pytest.mark.slow
def test_answers_are_those_of_the_whole_program(monkeypatch):
    queries = _recorded_queries(monkeypatch, SCENARIOS)
    # the phases hand over their facts' predicates, known from the values: the very names the text has
    assert sum(q[3] is not None for q in queries) > len(queries) // 2
    for programs, facts, static, names in queries:
        assert names is None or names == program._fact_names(facts), (programs, facts[:400])
    kinds = {q[0][0] for q in queries}
    assert {"movement.lp", "retreat.lp", "adjustment.lp"} <= kinds
    smaller = 0
    for programs, facts, static, _ in queries:
        used = _answer(programs, facts, static)
        smaller += encoding_size(programs, facts, static) < encoding_size(programs)
        with monkeypatch.context() as m:
            m.setattr(program, "_statements", _whole)
            assert used == _answer(programs, facts, static), (programs, facts[:400])
            # across_boards is written whenever the rules about orders across boards can fire: with it
            # always there, the answers are the same
            if programs[0] == "movement.lp":
                assert used == _answer(programs, facts + "across_boards.\n", static), (programs, facts[:400])
    assert smaller > len(queries) // 2


def _movement_facts(mv, orders):
    query = next(step_module.steps(mv, orders))
    assert query.programs[0] == "movement.lp"
    return query


def test_convoy_rules_are_left_out_without_convoy_orders():
    from fivedp_asp.api import new_game

    mv = new_game().mv
    plain = _movement_facts(mv, {"France": ["A Paris - Burgundy"], "England": ["F London - North Sea"]})
    convoy = _movement_facts(mv, {"England": ["F London - North Sea", "A Liverpool - Yorkshire"],
                                  "France": ["F Brest - English Channel"]})
    with_convoy = _movement_facts(mv, {"England": ["A Liverpool - Yorkshire", "F Edinburgh Convoys A Liverpool - Yorkshire"]})
    used = program._statements(plain.programs, plain.text(), plain.static)
    whole = encodings._parsed_programs(plain.programs)
    assert len(used) < len(whole)
    # the convoy network (convoy.lp) needs convoys/2, which only convoy orders give
    assert not {"route_leg", "walk_from", "on_route", "carried"} & _heads(used)
    assert {"route_leg", "walk_from", "on_route", "carried"} <= _heads(
        program._statements(with_convoy.programs, with_convoy.text(), with_convoy.static))
    # a move that cannot step there still looks for a route through fleets (no convoy orders needed)
    assert {"sea_query", "near", "route_exists"} <= _heads(
        program._statements(convoy.programs, convoy.text(), convoy.static))
    # every board is a head: nothing about past boards is grounded
    assert not {"held", "past", "fork", "by_convoy_to", "was_dislodged"} & _heads(used)
    # and `not held(...)`, true on such a step, is gone from the bodies of the decisions
    assert not [s for s in used if any(a.symbol.name == "held" for a in encodings._atoms(s))]
    assert [s for s in whole if s.ast_type.name == "Rule" and "unopposed" in str(s.head)
            and any(a.symbol.name == "held" for a in encodings._atoms(s.body))]
    assert "past_board(" not in plain.text()


CROSSING = {"far", "jump", "pair_timelines", "timeline_adj"}


def test_rules_about_orders_across_boards_are_left_out_of_a_classic_phase():
    from fivedp_asp.api import new_game

    query = _movement_facts(new_game().mv, {
        "England": ["F London - North Sea", "F Edinburgh Convoys A Liverpool - Norway", "A Liverpool - Norway"],
        "France": ["A Paris - Burgundy", "A Marseilles Supports A Paris - Burgundy"]})
    assert "across_boards" not in query.text()
    used = program._statements(query.programs, query.text(), query.static)
    assert not CROSSING & _heads(used)
    # board adjacency of two boards (boards.lp) reads timeline_adj/2: it is gone
    assert not [s for s in used if any(a.symbol.name == "timeline_adj" for a in encodings._atoms(s))]
    whole = program._statements(query.programs, query.text() + "across_boards.\n", query.static)
    assert CROSSING <= _heads(whole)
    assert len(used) + 9 <= len(whole)


def test_rules_about_orders_across_boards_are_kept_when_an_order_crosses():
    from fivedp_asp.lab.bench.positions import step_orders, synthetic_multiverse

    mv = synthetic_multiverse(2, 20)
    orders, _ = step_orders(mv, 4, 1)
    query = _movement_facts(mv, orders)
    assert "across_boards." in query.text()
    assert CROSSING <= _heads(program._statements(query.programs, query.text(), query.static))


def test_rules_about_past_boards_are_kept_when_a_past_board_is_written():
    from fivedp_asp.lab.bench.positions import step_orders, synthetic_multiverse

    mv = synthetic_multiverse(2, 20)
    orders, _ = step_orders(mv, 4, 1)
    query = _movement_facts(mv, orders)
    assert "past_board(" in query.text()
    assert {"held", "past", "fork"} <= _heads(program._statements(query.programs, query.text(), query.static))


def test_a_program_with_rules_of_your_own_is_used_whole():
    from fivedp_asp.solver.driver import RuleText

    programs = ("movement.lp", RuleText("cut(S) :- supports(S,X,T), carried(F,X).\n", "mine.lp"))
    assert encoding_size(programs, "order(0,p(b(0,1),par),france).\n") == encoding_size(programs)
    assert encoding_size(("movement.lp",), "order(0,p(b(0,1),par),france).\n") < encoding_size(("movement.lp",))


@pytest.mark.parametrize("facts", ["board_pair(b(0,1),b(0,1)).\nboard(b(0,1)).\n#show board_adj/2.\n"])
def test_facts_of_a_derived_predicate_keep_the_rules_that_read_it(facts):
    # possible.py asks the legality program about board adjacency with board_pair/2 facts
    atoms = solve_decisions(("legality.lp", "options/adjacency_family.lp"), facts).atoms
    assert [str(a) for a in atoms] == ["board_adj(b(0,1),b(0,1))"]


def test_the_map_facts_predicates_read_line_by_line_are_those_of_their_syntax_trees():
    from fivedp_asp.engine.facts import adjustment_map_facts, map_facts
    from fivedp_asp.model.map import load_map

    m = load_map("standard")
    for static in (map_facts(m), adjustment_map_facts(m), adjustment_map_facts(m, civil_disorder=False),
                   'name(x,"a.b, c").\n#show name/2.\n'):
        parsed = encodings._parsed_facts(static)
        by_tree = tuple(encodings._signature(s.head.atom)
                        if s.ast_type == encodings.ast.ASTType.Rule and not s.body and encodings._plain_head(s) else None
                        for s in parsed)
        assert program._fact_signatures(static) == by_tree
        assert any(sig is not None for sig in by_tree)


def _parsed_together(programs: tuple[str, ...]) -> list:
    from clingo import ast

    statements: list = []
    ast.parse_files([str(encodings.asp_dir() / name) for name in programs], statements.append)
    return [s for s in statements if s.ast_type != ast.ASTType.Comment]


@pytest.mark.slow
def test_programs_assembled_from_files_parsed_once_are_those_parsed_together():
    """Each file of the encodings is parsed and analysed once (``encodings._parsed_entry``) and a program is
    assembled from its files: the statements, in order, and their dependencies are those of the files
    parsed together by clingo, a file that two of them include taken once."""
    options = sorted(str(p.relative_to(encodings.asp_dir())) for p in (encodings.asp_dir() / "options").glob("*.lp"))
    entries = ["movement.lp", "retreat.lp", "adjustment.lp", "victory.lp", "sustain.lp", "legality.lp"]
    programs = [(e,) for e in entries] + [("movement.lp", "movement/reasons.lp", o) for o in options]
    programs += [("legality.lp", "options/datc_4b4_calhamer.lp")]
    for p in programs:
        together = _parsed_together(p)
        assert [str(s) for s in encodings._parsed_programs(p)] == [str(s) for s in together], p
        assert encodings._dependencies(p) == encodings._Dependencies.of([encodings._analysed(s) for s in together]), p
    # a file listed beside one that includes it (no program of the engine does this) is taken once; the
    # parser marks the return from an include it skips with no ``#program base.``, which the assembly
    # keeps (a marker of the part every statement is in already)
    for p in [("movement.lp", "movement/convoy.lp"), ("movement/convoy.lp", "movement.lp"),
              ("legality.lp", "movement.lp")]:
        rules = [str(s) for s in encodings._parsed_programs(p) if str(s) != "#program base."]
        assert rules == [str(s) for s in _parsed_together(p) if str(s) != "#program base."], p


def _tree_signature(atom):
    """The predicate of a symbolic atom read off its syntax tree, node by node (the oracle for the
    driver's reading of its text)."""
    import clingo
    from clingo import ast

    term = atom.symbol
    if term.ast_type == ast.ASTType.Function and not term.external \
            and not any(a.ast_type == ast.ASTType.Pool for a in term.arguments):
        return term.name, len(term.arguments)
    if term.ast_type == ast.ASTType.SymbolicTerm and term.symbol.type == clingo.SymbolType.Function:
        return term.symbol.name, len(term.symbol.arguments)
    return None


@pytest.mark.slow
def test_an_atoms_predicate_read_off_its_text_is_the_one_its_syntax_tree_gives():
    from clingo import ast

    atoms = []
    for path in sorted(encodings.asp_dir().rglob("*.lp")):
        statements: list = []
        ast.parse_files([str(path)], statements.append)
        for s in statements:
            atoms += encodings._atoms(s)
    tricky: list = []
    ast.parse_string('a :- p(1;2), -q(X), r("a,b;c)\\"(",(x,y)), s, t(X,f(Y,Z)), u((1,2),"") : v(X).'
                     ' _w(X) :- x(X). w\'(1) :- c.', tricky.append)
    for s in tricky:
        atoms += encodings._atoms(s)
    assert len(atoms) > 1500
    for atom in atoms:
        assert encodings._signature(atom) == _tree_signature(atom), str(atom)
    read = {str(a): encodings._signature(a) for a in atoms}
    assert read['r("a,b;c)\\"(",(x,y))'] == ("r", 2) and read["p(1;2)"] is None and read["-q(X)"] is None
    assert read["u((1,2),\"\")"] == ("u", 2) and read["s"] == ("s", 0) and read["_w(X)"] == ("_w", 1)



def test_the_built_in_encodings_parsed_beforehand_are_those_a_program_reads():
    """``parse_builtin`` (what a server of forks runs before forking) reads every built-in file a
    program can name: a program of an entry encoding and option files assembled afterwards parses
    nothing more."""
    encodings._parsed_entry.cache_clear()
    encodings._assembled.cache_clear()
    encodings._dependencies.cache_clear()
    read = encodings.parse_builtin()
    assert read == encodings._parsed_entry.cache_info().currsize > 40
    for programs in (("movement.lp", "options/open_convoys.lp", "options/adjacency_any.lp"), ("legality.lp",),
                     ("retreat.lp",), ("adjustment.lp",), ("sustain.lp",), ("victory.lp",)):
        assert encodings._dependencies(programs) is not None
    assert encodings._parsed_entry.cache_info().currsize == read
