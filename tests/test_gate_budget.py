"""The parser's budgets (issue 47): linear time in the query's length, at most MAX_QUERY_CHARS
characters, MAX_TOKENS tokens and MAX_DEPTH levels, and each level refused before Python's own
stack runs out (the gate's RecursionError backstop never fires for what the budgets let in)."""

from __future__ import annotations

import gc
import random
import time

import pytest

from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, gate
from glm_dspy.graphs.cypher.lexer import MAX_QUERY_CHARS, MAX_TOKENS

# times are this process's CPU time (time.process_time): the machine's other work does not count
BACKSTOP = "too deeply to check"  # gate.py's message for a RecursionError


def nested_maps(levels: int, doubled: bool) -> str:
    opening, closing = ("(({x: ", "}))") if doubled else ("({x: ", "})")
    return "RETURN " + opening * levels + "1" + closing * levels + " AS v"


@pytest.mark.parametrize("levels", [16, 30, 60])
@pytest.mark.parametrize("doubled", [False, True])
def test_nested_maps_cost_the_parser_milliseconds_not_minutes(levels, doubled):
    """Each level was parsed twice (a pattern first, then an expression): 16 levels took 15-22 s,
    `(({x: ...}))` grew 3x a level."""
    started = time.process_time()
    try:
        assert gate(nested_maps(levels, doubled)).text.count("{x:") == levels
    except CypherSyntaxError as error:  # past the nesting budget
        assert "nests deeper than 64 levels" in str(error)
    assert time.process_time() - started < 0.2


def test_sixteen_nested_maps_parse_to_the_same_text():
    assert gate(nested_maps(16, False)).text == nested_maps(16, False).replace("({x: ", "{x: ").replace("})", "}")


def _nested_expression(rng: random.Random, depth: int) -> str:
    if depth == 0:
        return rng.choice(["1", "'s'", "x", "(a)-[:r]->(b)"])
    form = rng.choice(["({x: %s})", "(({x: %s}))", "[%s]", "{x: %s}", "(%s)", "abs(%s)", "(%s + 1)", "[(%s), 2]"])
    return form % _nested_expression(rng, depth - 1)


def test_random_nesting_of_two_thousand_characters_costs_milliseconds():
    """A list of nestings 11 to 14 deep: 40-60 ms here, 0.5-0.7 s each before (a `(({x: ...}))`
    10 deep alone was 3^10 parses, 7 s)."""
    rng = random.Random(7)
    for _ in range(10):
        items = []
        while sum(map(len, items)) < 2000:
            items.append(_nested_expression(rng, rng.randint(11, 14)))
        text = "RETURN [" + ", ".join(items) + "] AS v"
        started = time.process_time()
        try:
            gate(text)
        except CypherSyntaxError as error:  # the depth budget
            assert "nests deeper" in str(error)
        assert time.process_time() - started < 0.2, text[:120]


def test_a_query_past_the_token_budget_is_refused_by_name_and_quickly():
    text = "RETURN [" + ",".join(["1"] * (MAX_TOKENS // 2 + 10)) + "] AS x"
    assert len(text) < MAX_QUERY_CHARS
    started = time.process_time()
    with pytest.raises(CypherSyntaxError, match=f"more than {MAX_TOKENS} tokens"):
        gate(text)
    assert time.process_time() - started < 0.5


def test_a_query_past_the_length_budget_is_refused_by_name():
    with pytest.raises(CypherSyntaxError, match=f"characters long \\(at most {MAX_QUERY_CHARS}\\)"):
        gate("RETURN '" + "a" * MAX_QUERY_CHARS + "' AS x")


def test_a_number_of_thousands_of_digits_is_a_syntax_error_not_pythons_value_error():
    with pytest.raises(CypherSyntaxError, match="a number of 5000 digits"):  # int() refuses 4,300+
        gate("RETURN " + "1" * 5000 + " AS x")


def test_the_largest_queries_the_budgets_let_in_are_gated_in_well_under_a_second():
    for text in ("RETURN [" + ",".join(["1"] * 4900) + "] AS x",
                 "RETURN " + "({x: " * 12 + "[" + ",".join(["1"] * 3000) + "]" + "})" * 12 + " AS v"):
        started = time.process_time()
        gate(text)
        assert time.process_time() - started < 1.0


def _at_stack_depth(frames: int, call):
    return call() if frames == 0 else _at_stack_depth(frames - 1, call)


OPENINGS = [("(", ")"), ("[", "]"), ("{x: ", "}"), ("({x: ", "})"), ("(({x: ", "}))"), ("abs(", ")"), ("[1][", "]"),
            ("1 IN [", "]"), ("CASE WHEN true THEN ", " END"), ("CAST(", " AS INT64)"), ("-", ""), ("NOT ", ""),
            ("EXISTS { MATCH (a) WHERE ", "}")]


@pytest.mark.parametrize("opening, closing", OPENINGS)
def test_the_depth_budget_refuses_before_pythons_stack_does(opening, closing):
    """Called 300 frames deep (a caller's own stack), every nesting either parses or is refused by
    the depth budget: each level costs at most ~9 Python frames, 64 levels well under 1,000."""
    for levels in (20, 40, 63, 64, 65, 100, 300):
        text = "RETURN " + opening * levels + "1" + closing * levels + " AS v"
        try:
            _at_stack_depth(300, lambda: gate(text))
        except (CypherSyntaxError, QueryRefused) as error:
            assert BACKSTOP not in str(error), (opening, levels)


def test_a_long_chain_of_operators_is_refused_by_the_tree_depth_budget():
    with pytest.raises(QueryRefused, match="nests 200\\+ levels deep"):
        gate("RETURN " + "+".join(["1"] * 1500) + " AS x")
    assert gate("RETURN " + "+".join(["1"] * 150) + " AS x").text.count("+") == 149


def test_gating_leaves_no_reference_cycles_for_the_garbage_collector():
    """A class made per nesting level, a recursive closure per tree node and a raised error kept in
    a frame were cycles: a thousand gated queries left ~1M objects for the collector, whose pauses
    cost whole fractions of a second in a large process."""
    texts = [nested_maps(12, True), nested_maps(40, False), "RETURN " + "(" * 70 + "1" + ")" * 70 + " AS v",
             "MATCH (a)-[:r]->(b) WHERE (a)-[:s]->(:c) AND b.x IN [1, 2] RETURN a.name AS x ORDER BY x LIMIT 3"]
    gc.collect()
    gc.disable()
    try:
        for _ in range(50):
            for text in texts:
                try:
                    gate(text)
                except CypherSyntaxError:
                    pass
        assert gc.collect() == 0
    finally:
        gc.enable()
