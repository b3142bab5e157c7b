"""The gate on hostile text (issue 47): linear-time parsing, only its two errors for any string,
the inputs Kuzu 0.11.3 crashes on refused on the parse, benign queries it used to refuse run, and
an allow-list of functions Kuzu really has."""

from __future__ import annotations

import math
import random
import subprocess
import sys
import time

import kuzu
import pytest

from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, gate
from glm_dspy.graphs.cypher.gate import FUNCTIONS
from glm_dspy.graphs.store import GraphStore

CRASHERS = [  # each segfaults Kuzu 0.11.3 (exit -11), found by running each in its own process
    "RETURN nodes(NULL) AS x", "RETURN id(NULL) AS x", "RETURN properties(NULL, 'name') AS x",
    "MATCH (l:laureate) WHERE l.id IN NULL RETURN l.name", "RETURN list_sum(NULL) AS x", "RETURN label(NULL) AS x",
    "RETURN labels(NULL) AS x", "RETURN rels(NULL) AS x", "RETURN list_contains(NULL, 1) AS x",
    "RETURN list_has(NULL, 'a') AS x", "RETURN array_contains(NULL, 1) AS x", "RETURN list_product(NULL) AS x",
    "RETURN list_reverse_sort(NULL) AS x", "RETURN list_any_value(NULL) AS x", "RETURN CAST(NULL AS STRING) IN NULL AS x",
    "RETURN date('10000-01-01') AS d", "RETURN date('0000-01-01') AS d", "RETURN CAST('10000-01-01' AS DATE) AS d",
    "RETURN timestamp('10000-01-01 00:00:00') AS d",
    "RETURN date('2020-01-01') + CAST('3000000 days' AS INTERVAL) AS d",
    "RETURN date('2020-01-01') + CAST('100000000 hours' AS INTERVAL) AS d", "RETURN date('2020-01-01') + 3000000 AS d",
    "RETURN date('9999-12-31') + CAST('1 day' AS INTERVAL) AS d", "RETURN date('0001-01-01') - CAST('1 day' AS INTERVAL) AS d",
    "RETURN regexp_extract('abc', '(a)', -1) AS x", "RETURN size(regexp_extract('abc', '(a)', -1)) AS x",
]
BENIGN = ["WITH 1 AS set RETURN set AS x", "WITH 1 AS use RETURN use AS x", "WITH 1 AS update RETURN update AS x",
          "RETURN 1e16 AS x", "RETURN .5 AS x", "RETURN coalesce(NULL, 1) AS x", "RETURN date('2020-01-01') + 2000 AS x",
          "RETURN date('2020-01-01') + CAST('3 days' AS INTERVAL) AS x", "RETURN regexp_extract('abc', '(a)', 1) AS x",
          "RETURN 1 + 3000000 AS x"]


def nested_maps(levels: int, doubled: bool) -> str:
    opening, closing = ("(({x: ", "}))") if doubled else ("({x: ", "})")
    return "RETURN " + opening * levels + "1" + closing * levels + " AS v"


@pytest.mark.parametrize("levels", [16, 30, 60])
@pytest.mark.parametrize("doubled", [False, True])
def test_nested_maps_cost_the_parser_milliseconds_not_minutes(levels, doubled):
    """Each level was parsed twice (a pattern first, then an expression): 16 levels took 15-22 s."""
    started = time.perf_counter()
    try:
        assert gate(nested_maps(levels, doubled)).text.count("{x:") == levels
    except CypherSyntaxError as error:  # past the nesting budget
        assert "nests deeper" in str(error)
    assert time.perf_counter() - started < 0.2


def test_the_longest_query_the_lexer_takes_is_gated_in_well_under_a_second():
    for text in ("RETURN [" + ",".join(["1"] * 9000) + "] AS x",
                 "RETURN " + "({x: " * 30 + "[" + ",".join(["1"] * 3000) + "]" + "})" * 30 + " AS v"):
        started = time.perf_counter()
        gate(text)
        assert time.perf_counter() - started < 1.0


def test_any_string_gets_only_a_refusal_or_a_syntax_error_and_each_costs_little():
    pieces = ["(", ")", "{x: ", "}", "[", "]", "(a)-[:r]->(b)", "1", "+", ",", " AS ", "'s'", "\\", "'", "`", "MATCH ",
              "RETURN ", "WHERE ", "\ud800", "\x01", "'\\U00110000'", "'\\ud800'", "-", "<", ">", ":", "..", "*", ".5",
              "1e16", "NULL", "CASE WHEN ", " THEN ", " END", "EXISTS {", "COUNT {", "1+" * 300, "((" * 40, "SET ",
              "LOAD FROM ", "date('10000-01-01')", "nodes(NULL)"]
    rng = random.Random(0)
    for _ in range(3000):
        text = ("RETURN " if rng.random() < 0.5 else "") + "".join(rng.choice(pieces) for _ in range(rng.randint(1, 60)))
        started = time.perf_counter()
        try:
            gate(text)
        except (QueryRefused, CypherSyntaxError):
            pass
        assert time.perf_counter() - started < 0.5, text[:200]


@pytest.mark.parametrize("text", ["RETURN " + "+".join(["1"] * 1500) + " AS x", "RETURN '\\U00110000' AS x",
                                  "RETURN '\\ud800' AS x", "RETURN '\ud800' AS x", "RETURN 'a\u0001' AS x"])
def test_what_escaped_as_a_python_error_is_one_refusal_or_syntax_error(text):
    with pytest.raises((QueryRefused, CypherSyntaxError)) as raised:
        gate(text)
    assert len(str(raised.value).splitlines()) == 1


@pytest.mark.parametrize("text", CRASHERS)
def test_an_input_kuzu_crashes_on_is_refused_saying_why(text):
    with pytest.raises(QueryRefused, match="Kuzu 0.11.3|NULL"):
        gate(text)


def test_the_refused_inputs_really_crash_kuzu(nobel_db):
    """Three of the list, each in its own process: without the check they kill the process."""
    for text in ("RETURN nodes(NULL) AS x", "MATCH (l:laureate) WHERE l.id IN NULL RETURN l.name",
                 "RETURN date('2020-01-01') + 3000000 AS d"):
        code = (f"import kuzu; c = kuzu.Connection(kuzu.Database({str(nobel_db / 'graph.kuzu')!r}, read_only=True, "
                f"max_db_size=1 << 30)); c.execute({text!r}).get_all()")
        assert subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == -11, text


@pytest.mark.parametrize("text", BENIGN)
def test_a_benign_query_passes_the_gate_and_runs(nobel_db, text):
    store = GraphStore.open(nobel_db)
    try:
        assert store.read(text).rows
    finally:
        store.close()


def test_floats_are_printed_as_kuzu_reads_them_and_read_back_the_same():
    database = kuzu.Database(":memory:", max_db_size=1 << 30)
    connection = kuzu.Connection(database)
    rng = random.Random(1)
    values = [1e16, 1.5e300, 2.5e-300, 0.1, 123456789.125, 1e-05, 7.0] + [rng.uniform(-1, 1) * 10 ** rng.randint(-30, 30)
                                                                         for _ in range(200)]
    for value in values:
        text = gate(f"RETURN {repr(value).replace('e+', 'e')} AS x").text  # as Kuzu's grammar writes one
        (read,) = connection.execute(text).get_next()
        assert math.isclose(read, value, rel_tol=1e-15), (value, text, read)


def test_every_allow_listed_function_exists_in_kuzu():
    database = kuzu.Database(":memory:", max_db_size=1 << 30)
    known = {row[0].lower() for row in kuzu.Connection(database).execute("CALL show_functions() RETURN *").get_all()}
    assert sorted(FUNCTIONS - known) == []
