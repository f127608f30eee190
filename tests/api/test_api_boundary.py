"""The API's boundary (docs/api.md, "Errors"): every public function checks its arguments before it
does anything, and only the documented exceptions come out.

A property test throws wrong-typed and odd arguments — None, integers small and huge, floats, bytes,
names with NUL characters, a str where a list belongs, a mapping where a list belongs, deeply nested
lists, huge strings — mixed with good ones at every function of ``fivedp_asp.api``, and asserts that
each call either works or raises ``UsageError`` or ``InputError`` (``FileError`` is one), with a
short message. Hand-written cases pin down which of the two each misuse is, and the bounds of
``from_json`` and ``submit_orders``.
"""

from __future__ import annotations

import inspect
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fivedp_asp as fd
from fivedp_asp import api
from fivedp_asp.errors import FileError, FivedpError, InputError, UsageError
from fivedp_asp.limits import MAX_DEPTH, MAX_ORDERS

SCALE = int(os.environ.get("FIVEDP_FUZZ_EXAMPLES", "0"))
SCENARIO = Path(__file__).resolve().parent.parent.parent / "cases" / "mdatc" / "3.A.2.yaml"


def examples(n: int) -> settings:
    return settings(max_examples=SCALE or n, deadline=None, derandomize=not SCALE,
                    suppress_health_check=list(HealthCheck))


def deep_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


# -- the values thrown ----------------------------------------------------------------------------------

G0 = fd.new_game()
G_ORDERS = fd.submit_orders(G0, ["A Mun - Tyr", "F Kie - Den"], power="Germany").game
G1, R1 = fd.adjudicate(G_ORDERS)

BAD = [
    None, 0, -1, 7, 10**100, 2**64, True, 1.5, float("nan"),
    b"a.yaml", b"a\0b", bytearray(b"x"), "a\0b", Path("a\0b"), "", "x" * 100_000, "x" * 5_000 + ".yaml",
    "/dev/zero", ".", "../",
    "x.yaml",  # a str where a list belongs
    {"A Mun - Tyr": 1}, {}, {1: 2},  # a mapping where a list (or a str) belongs
    [1, 2], [None], ["A Mun - Tyr", 5], [b"A Mun - Tyr"], deep_list(5_000),
    ["A Mun - Tyr"] * (MAX_ORDERS + 1), (x for x in ["A Mun - Tyr"]),
    object(), G0.mv, R1, G0, {"adjacency": 5}, {"adjacency": None}, {5: "any"},
    "[" * 100_000, "{\"a\": " * 10_000, "[1" + "0" * 5_000 + "]", '{"a": 1, "a": 2}', "NaN",
]
"""Wrong types and odd values; some are right for one argument and wrong for another."""

GOOD: dict[str, list] = {
    "game": [G0, G_ORDERS, G1],
    "games": [[G0, G1], (G_ORDERS,), []],
    "report": [R1],
    "lines": [["A Mun - Tyr"], ("Germany: F Kie - Den", "# a comment"), []],
    "power": [None, "Germany", "Atlantis"],
    "unit": [None, "A Mun", "A Narnia"],
    "replace": [True, False],
    "check": [True, False],
    "force": [True, False],
    "reasons": [True, False],
    "name": ["a0", "a1", "z9", "standard"],
    "map": ["standard"],
    "options": [None, {}, {"adjacency": "any"}, {"adjacency": "weird"}, {"nothing": True}],
    "settings": [None, fd.settings(), fd.settings({"adjacency": "any"})],
    "text": [fd.to_json(G1), "{}", "[]", "not json"],
    "path": ["case.yaml", Path("case.yaml"), "missing.yaml", "saved.yaml"],
    "paths": [["case.yaml"], (Path("case.yaml"), "missing.yaml"), []],
    "kind": [None, "move", ["support", "convoy"], ("hold",), "teleport"],
    "to": [None, "a0", "b7"],
    "time_limit": [None, 600, 0.5],
}
"""Right types (and some bad values of the right type) per parameter name of the API."""

FUNCTIONS = {name: getattr(api, name) for name in api.__all__
             if inspect.isfunction(getattr(api, name)) and getattr(api, name).__module__ == api.__name__}


def test_every_api_function_has_good_values_for_its_parameters():
    assert len(FUNCTIONS) >= 20
    for name, func in FUNCTIONS.items():
        for param in inspect.signature(func).parameters:
            assert param in GOOD, (name, param)


@pytest.fixture(scope="module", autouse=True)
def in_a_scratch_folder(tmp_path_factory):
    """Calls that write (save_game) write into a folder of their own, with a copy of a scenario."""
    before = os.getcwd()
    folder = tmp_path_factory.mktemp("api")
    (folder / "case.yaml").write_bytes(SCENARIO.read_bytes())
    os.chdir(folder)
    yield
    os.chdir(before)


def arguments(draw, func) -> dict:
    out = {}
    for param in inspect.signature(func).parameters:
        pool = GOOD[param] + BAD
        out[param] = draw(st.sampled_from(pool))
    return out


def assert_documented(func, kwargs) -> None:
    """The call works, or raises UsageError or InputError with a short message; nothing else."""
    try:
        func(**kwargs)
    except (UsageError, InputError) as exc:
        assert isinstance(exc, FivedpError)
        assert len(str(exc)) < 1_000, str(exc)[:200]
        assert str(exc).strip(), type(exc)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_wrong_arguments_raise_only_documented_errors(name):
    func = FUNCTIONS[name]
    if not inspect.signature(func).parameters:
        func()
        return

    @examples(12 if name in ("adjudicate", "adjudicate_many", "check_orders", "legal_orders", "run_scenarios",
                             "run_scenario") else 40)
    @given(st.data())
    def check(data):
        assert_documented(func, arguments(data.draw, func))

    check()


PARAMETERS = [(name, param) for name, func in sorted(FUNCTIONS.items()) for param in inspect.signature(func).parameters]


WRONG_TYPES = [(name, param, label, value) for name, param in PARAMETERS
               for label, value in (("None", None), ("int", 5), ("bytes", b"bytes"), ("object", object()))
               # None is right where it is the argument's default, and a number is a time limit
               if not (value is None and inspect.signature(FUNCTIONS[name]).parameters[param].default is None)
               and not (param == "time_limit" and value == 5)]


@pytest.mark.parametrize("name, param, value", [(n, p, v) for n, p, _, v in WRONG_TYPES],
                         ids=[f"{label}-{n}-{p}" for n, p, label, _ in WRONG_TYPES])
def test_a_wrong_type_for_any_argument_is_a_usage_error(name, param, value):
    func = FUNCTIONS[name]
    params = inspect.signature(func).parameters
    others = {p.name: GOOD[p.name][0] for p in params.values() if p.name != param}
    with pytest.raises(UsageError) as info:
        func(**{param: value}, **others)
    assert isinstance(info.value, TypeError) and isinstance(info.value, FivedpError)
    assert f"{name}()" in str(info.value) and param in str(info.value)


@pytest.mark.slow
@pytest.mark.parametrize("name, param", PARAMETERS, ids=[f"{n}-{p}" for n, p in PARAMETERS])
def test_every_odd_value_for_any_argument_raises_only_documented_errors(name, param):
    func = FUNCTIONS[name]
    params = inspect.signature(func).parameters
    others = {p.name: GOOD[p.name][0] for p in params.values() if p.name != param}
    for value in BAD:
        assert_documented(func, {param: value, **others})


# -- which misuse is which ------------------------------------------------------------------------------


def test_exception_hierarchy():
    assert issubclass(UsageError, FivedpError) and issubclass(UsageError, TypeError)
    assert issubclass(InputError, FivedpError) and issubclass(InputError, ValueError)
    assert issubclass(FileError, InputError) and issubclass(FileError, OSError)
    assert issubclass(fd.AdjudicationError, FivedpError)
    assert fd.UsageError is UsageError and fd.FivedpError is FivedpError and fd.FileError is FileError


@pytest.mark.parametrize("call", [
    lambda: fd.run_scenarios(str(SCENARIO)),
    lambda: fd.run_scenarios(SCENARIO),
    lambda: fd.adjudicate_many(G0),
    lambda: fd.adjudicate_many("games"),
    lambda: fd.submit_orders(G0, "A Mun - Tyr"),
    lambda: fd.submit_orders(G0, {"A Mun - Tyr": "Germany"}),
    lambda: fd.submit_orders(G0, (line for line in ["A Mun - Tyr"])),
    lambda: fd.submit_orders(G0, ["A Mun - Tyr", 5]),
    lambda: fd.submit_orders(G0, ["A Mun - Tyr"], power=5),
    lambda: fd.submit_orders(G0, ["A Mun - Tyr"], replace="yes"),
    lambda: fd.load_game(b"g.yaml"),
    lambda: fd.save_game(G0, None),
    lambda: fd.save_game("g.yaml", G0),
    lambda: fd.from_json(b"{}"),
    lambda: fd.new_game(["adjacency"]),
    lambda: fd.new_game({"adjacency": "any"}),  # a mapping, not settings built from it
    lambda: fd.settings(["adjacency"]),
    lambda: fd.settings({"adjacency": 1}),
    lambda: fd.board(G0, 0),
    lambda: fd.legal_orders(G0, unit=["A Mun"]),
], ids=lambda c: "")
def test_wrong_types_are_usage_errors(call):
    with pytest.raises(UsageError):
        call()


def test_a_sequence_of_one_path_is_run_not_its_characters():
    runs = fd.run_scenarios([str(SCENARIO)])
    assert len(runs) == 1 and runs[0].passed


@pytest.mark.parametrize("call, fragment", [
    (lambda: fd.load_game("g\0.yaml"), "NUL"),
    (lambda: fd.load_scenario(Path("c\0.yaml")), "NUL"),
    (lambda: fd.save_game(G0, "g\0.yaml"), "NUL"),
    (lambda: fd.load_game(""), "empty"),
    (lambda: fd.load_game("no-such-game.yaml"), "no-such-game.yaml: cannot read the game file"),
    (lambda: fd.settings({"adjacency": "weird"}), "adjacency"),
    (lambda: fd.board(G0, "z9"), "no board 'z9'"),
    (lambda: fd.submit_orders(G0, ["A Mun -> Narnia"]), "Narnia"),
], ids=lambda c: "" if callable(c) else c)
def test_bad_values_are_input_errors(call, fragment):
    with pytest.raises(InputError) as info:
        call()
    assert not isinstance(info.value, UsageError)
    assert fragment in str(info.value)


def test_a_missing_file_is_a_file_error_with_its_errno():
    with pytest.raises(FileError) as info:
        fd.load_game("no-such-game.yaml")
    assert isinstance(info.value, OSError) and info.value.errno == 2
    assert info.value.filename == "no-such-game.yaml"


# -- submit_orders: the command line's limit ------------------------------------------------------------


def test_submit_orders_takes_the_command_lines_limit_of_lines():
    at_limit = ["# a comment"] * (MAX_ORDERS - 1) + ["A Mun - Tyr"]
    assert fd.submit_orders(G0, at_limit, power="Germany").game.pending == {"Germany": ["A Mun - Tyr"]}
    with pytest.raises(InputError, match=f"{MAX_ORDERS + 1:,} order lines \\(the limit is {MAX_ORDERS:,}\\)"):
        fd.submit_orders(G0, at_limit + ["A Ber - Kie"], power="Germany")
    with pytest.raises(InputError, match="the limit is"):
        fd.submit_orders(G0, ["A Mun - Tyr"] * 20_000)


@pytest.mark.parametrize("line, problem", [
    ("A Mun\n- Tyr", "order line 1 'A Mun\\n- Tyr': control character at column 6"),
    ("A Mun - Tyr\x00", "control character at column 12"),
    ("A Mun - \udc80", "order line 1: not UTF-8 text"),
])
def test_order_lines_pass_the_command_lines_checks(line, problem):
    with pytest.raises(InputError) as info:
        fd.submit_orders(G0, [line])
    assert problem in str(info.value)
    assert fd.submit_orders(G0, ["A Mun\t- Tyr"]).game.pending == {"Germany": ["A Mun\t- Tyr"]}


def test_an_overlong_order_line_is_quoted_by_its_start_and_length():
    line = "A Mun - " + "x" * 2_000_000
    with pytest.raises(InputError) as info:
        fd.submit_orders(G0, [line])
    message = str(info.value)
    assert len(message) < 400
    assert "'A Mun - xxx" in message and "(2,000,008 characters)" in message


# -- from_json: bounded ---------------------------------------------------------------------------------


def test_from_json_reads_back_what_to_json_wrote():
    text = fd.to_json(G1)
    assert fd.to_json(fd.from_json(text)) == text


def test_from_json_refuses_deep_nesting():
    for depth in (MAX_DEPTH + 1, 1_000, 100_000):
        with pytest.raises(InputError, match=f"nested more than {MAX_DEPTH} levels deep"):
            fd.from_json("[" * depth + "]" * depth)
    # a board's content nested deeper than the cap, inside an otherwise whole game
    data = json.loads(fd.to_json(G1))
    data["pending"] = {"Germany": deep_list(MAX_DEPTH)}
    with pytest.raises(InputError, match="nested more than"):
        fd.from_json(json.dumps(data))
    # unclosed: refused, by the nesting bound or as JSON that does not parse
    with pytest.raises(InputError):
        fd.from_json("[" * 100_000)


def test_from_json_refuses_huge_integers():
    data = json.loads(fd.to_json(G1))
    data["start"]["turn"] = 10**40
    with pytest.raises(InputError, match="41 digits is too large"):
        fd.from_json(json.dumps(data))
    with pytest.raises(InputError, match="too large"):
        fd.from_json("1" * 10_000)


def test_from_json_refuses_duplicate_keys():
    text = fd.to_json(G1)
    doubled = text.replace('"winner": null', '"winner": null,\n  "winner": null', 1)
    assert doubled != text
    with pytest.raises(InputError, match="duplicate key 'winner'"):
        fd.from_json(doubled)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_from_json_refuses_non_json_constants(constant):
    with pytest.raises(InputError, match="not a JSON value"):
        fd.from_json(f'{{"a": {constant}}}')


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20)


@pytest.mark.slow
@examples(150)
@given(st.data())
def test_from_json_of_a_game_with_a_value_replaced_is_a_game_or_an_input_error(data):
    """A random value put in place of a random value of a whole game's JSON."""
    doc = json.loads(fd.to_json(G1))
    spots = []

    def walk(value, path):
        spots.append(path)
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, path + (k,))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, path + (i,))

    walk(doc, ())
    path = data.draw(st.sampled_from(spots[1:]))
    new = data.draw(json_values)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    try:
        fd.from_json(json.dumps(doc))
    except InputError as exc:
        assert len(str(exc)) < 1_000
