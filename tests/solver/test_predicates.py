"""The declared table of predicates (fivedp_asp/solver/predicates.py) against the encodings that read and
show them: a predicate an encoding shows or reads from the facts, or a fact the Python side writes, that
the table does not declare with that arity fails here; and the readers generated from the declarations
read every answer as clingo's own symbols say."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import clingo
import pytest

from fivedp_asp.solver import predicates as P
from fivedp_asp.solver.encodings import _parsed_entry, asp_dir
from fivedp_asp.solver.terms import Game, OrderId, OrderIds, Timeline

PACKAGE = Path(P.__file__).resolve().parents[1]
_SHOW = re.compile(r"#show\s+([a-z_][A-Za-z0-9_]*)/(\d+)\s*\.")


def _encodings() -> list[str]:
    return sorted(str(p.relative_to(asp_dir())) for p in asp_dir().rglob("*.lp"))


def _reads_and_derives() -> tuple[dict[tuple[str, int], set[str]], set[tuple[str, int]]]:
    """Every predicate an encoding's statement reads (with the files reading it), and every predicate
    some statement derives (a rule's head, an external the driver may make true)."""
    read: dict[tuple[str, int], set[str]] = {}
    derived: set[tuple[str, int]] = set()
    for name in _encodings():
        for _, _, analyses in _parsed_entry(name):
            for a in analyses:
                assert a is not None, f"{name}: a statement the analysis cannot read"
                for sig in a.read:
                    read.setdefault(sig, set()).add(name)
                derived |= a.derived
    return read, derived


def test_every_shown_predicate_is_declared_with_its_arity():
    shows = {(m[1], int(m[2]), str(p)) for p in asp_dir().rglob("*.lp") for m in _SHOW.finditer(p.read_text())}
    # the Python side may add a #show to the facts it hands over (possible.py: board_adj/2)
    shows |= {(m[1], int(m[2]), str(p)) for p in PACKAGE.rglob("*.py") for m in _SHOW.finditer(p.read_text())}
    assert len({s[:2] for s in shows}) > 30
    missing = sorted(s for s in shows
                     if (d := P.declared(s[0], s[1])) is None or not d.role & P.SHOWN)
    assert not missing, f"shown but not declared as shown in solver/predicates.py: {missing}"


def test_every_input_the_encodings_read_is_declared_with_its_arity():
    read, derived = _reads_and_derives()
    inputs = {p.signature for p in P.PREDICATES if p.role & P.INPUT}
    only_from_facts = {sig for sig in read if sig not in derived}
    assert only_from_facts, "the analysis found no input predicate"
    missing = sorted(only_from_facts - inputs)
    assert not missing, f"read by the encodings, derived by none, not declared as an input: {missing}"
    # and the other way: a declared input no encoding reads with that arity is a wrong declaration
    unread = sorted(inputs - set(read))
    assert not unread, f"declared as inputs, read by no encoding with that arity: {unread}"


def test_the_inputs_the_headers_list_are_declared():
    """An encoding's header lists its input predicates (``% Input:`` up to ``% Output:``); each one no
    rule derives comes from the facts, and is declared with the arity the header writes."""
    _, derived = _reads_and_derives()
    terms = {"b", "p", "c"}  # boards, places and coasts are terms, not predicates
    listed: set[tuple[str, int, str]] = set()
    for path in asp_dir().rglob("*.lp"):
        header = re.search(r"^% Input:(.*?)^% Output:", path.read_text(), re.S | re.M)
        if header is None:
            continue
        for name, args in re.findall(r"\b([a-z_][a-z0-9_]*)\(([^()]*(?:\([^()]*\)[^()]*)*)\)", header[1]):
            listed.add((name, len(args.split(",")), path.name))
        for name, arity in re.findall(r"\b([a-z_][a-z0-9_]*)/(\d+)", header[1]):
            listed.add((name, int(arity), path.name))
    assert len(listed) > 100
    missing = sorted(s for s in listed if s[0] not in terms and s[:2] not in derived and P.declared(*s[:2]) is None)
    assert not missing, f"listed as inputs by a header, derived by no rule, not declared: {missing}"


def test_a_fact_of_a_predicate_not_declared_is_refused():
    with pytest.raises(ValueError, match="sub/1, which solver/predicates.py does not declare"):
        P.fact_lines([("board", (0, 1)), ("sub", "b")])
    with pytest.raises(ValueError, match="order/1"):  # a declared name with another arity
        P.fact_lines([("order", OrderId(0))])
    with pytest.raises(ValueError, match="legal/1, which"):  # a shown predicate is not an input
        P.fact_lines([("legal", OrderId(0))])


_VALUES = {P.BOARD: (3, 4), P.PLACE: (1, 2, "a-b"), P.LOCATION: "c(spa,nc)", P.NAME: "france", P.INT: 7,
           P.ORDER: OrderId(5), P.ORDERS: OrderIds(0, 2), P.TIMELINE: Timeline(1), P.GAME: Game(0),
           P.DECISION: ("moves", (0, 1, "mun")), P.TERM: ("h", 3)}


@pytest.mark.parametrize("pred", [p for p in P.PREDICATES if p.role & P.INPUT], ids=lambda p: f"{p.name}/{p.arity}")
def test_each_input_is_spelled_as_one_atom_of_its_arity_and_numbered_apart(pred):
    fact = (pred.name, *(_VALUES[k] for k in pred.args))
    alone, second = P.fact_lines([fact]), P.fact_lines([fact], 2)
    for line in alone + second:
        assert line.endswith(".")
        if P.ORDERS not in pred.args:  # an interval is not a term clingo parses alone
            sym = clingo.parse_term(line[:-1])
            assert (sym.name, len(sym.arguments)) == pred.signature, line
    moved = {P.BOARD, P.PLACE, P.ORDER, P.ORDERS, P.TIMELINE, P.GAME, P.DECISION}
    assert (alone != second) == bool(moved & set(pred.args)), (alone, second)


# argument texts as clingo spells them, plain and strange (names clingo writes as escaped strings)
_TEXTS = {
    P.BOARD: ["b(0,1)", "b(10002,37)"],
    P.PLACE: ["p(b(0,1),mun)", 'p(b(3,4),"a-b")', 'p(b(1,1),"q\\"x")'],
    P.NAME: ["france", '"a b"', '"x\\\\y"', "succeeds"],
    P.LOCATION: ["mun", "c(spa,nc)", 'c("a-b",sc)', '"n\\nl"'],
    P.INT: ["0", "-3", "2097152"], P.ORDER: ["0", "12"], P.TIMELINE: ["1", "20001"], P.GAME: ["0", "3"],
    P.DECISION: ["moves(p(b(0,1),mun))", 'given(p(b(2,0),"a,b"))'],
    P.OPTIONAL_PLACE: ["none", "p(b(0,1),mun)", 'p(b(0,1),"(x)")'],
    P.DETAIL: ["none", "s(hold,1,1)", "did(moves)", 'rule("x,y")', "szykman", "n(-2)"],
    P.TERM: ["succeeds", '"open convoy, needs the option"', "timelines_not_adjacent(b(0,1),b(2,1))"],
}


@pytest.mark.parametrize("pred", [p for p in P.PREDICATES if p.role & P.SHOWN], ids=lambda p: f"{p.name}/{p.arity}")
def test_each_answer_is_read_as_its_symbol_says(pred):
    """The generated reader (a regular expression over the atom's text) gives what the symbol's own
    arguments give, for plain and escaped names alike."""
    read = lambda text: P.reader(pred)([text])[0]
    combos = list(itertools.product(*(_TEXTS[k] for k in pred.args)))[:200]
    for args in combos:
        text = ",".join(args)
        sym = clingo.parse_term(f"{pred.name}({text})" if pred.args else pred.name)
        assert str(sym) == (f"{pred.name}({text})" if pred.args else pred.name)  # the texts are clingo's
        assert read(text) == P.decode_symbol(sym), text
    # the values are typed: numbers are ints, places and boards tuples
    for kind, value in zip(pred.args, read(",".join(a[0] for a in (_TEXTS[k] for k in pred.args)))):
        expected = {P.BOARD: tuple, P.PLACE: tuple, P.INT: int, P.ORDER: int, P.TIMELINE: int, P.GAME: int,
                    P.NAME: str, P.LOCATION: str, P.TERM: str, P.DECISION: tuple, P.DETAIL: tuple}
        assert kind is P.OPTIONAL_PLACE or isinstance(value, expected[kind])


def test_a_reason_is_read_into_its_parts():
    read = lambda text: P.reader(P.shown("reason"))([text])[0]
    assert read('3,cut,p(b(0,1),"a-b"),s(hold,1,1)') == (3, "cut", (0, 1, "a-b"), ("s", "hold", 1, 1))
    assert read("4,paradox,none,none") == (4, "paradox", None, ())
    assert read('5,rule,none,rule("x,y")') == (5, "rule", None, ("rule", "x,y"))
    assert P.reader(P.shown("arrives"))(["p(b(0,1),spa),c(spa,nc)", "p(b(0,2),mun),mun"]) == [
        ((0, 1, "spa"), "spa/nc"), ((0, 2, "mun"), "mun")]
    assert P.reader(P.shown("owner"))(["moves(p(b(0,1),mun)),b(0,2)"]) == [(("moves", (0, 1, "mun")), (0, 2))]
    with pytest.raises(KeyError, match="not a shown predicate"):
        P.shown("unit")
