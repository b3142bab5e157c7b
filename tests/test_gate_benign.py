"""Benign queries the gate refused, or printed so Kuzu could not read them (issue 47), and an
allow-list of functions Kuzu 0.11.3 really has."""

from __future__ import annotations

import random

import kuzu
import pytest

from glm_dspy.graphs.cypher import QueryRefused, gate
from glm_dspy.graphs.cypher.gate import FUNCTIONS

# in Kuzu 0.11.3's grammar a query may name a variable SET, USE, UPDATE, ... (only at a clause's
# start is the word the clause)
BENIGN = [("WITH 1 AS set RETURN set AS x", 1), ("WITH 1 AS use RETURN use AS x", 1),
          ("WITH 1 AS update RETURN update AS x", 1), ("WITH 2 AS load RETURN load + 1 AS x", 3),
          ("WITH 1 AS call RETURN call AS x ORDER BY call", 1), ("UNWIND [1, 2] AS set WITH set WHERE set > 1 RETURN set AS x", 2),
          ("RETURN 1e16 AS x", 1e16), ("RETURN .5 AS x", 0.5), ("RETURN -.5e3 AS x", -500.0), ("RETURN 1E-5 AS x", 1e-5)]


@pytest.fixture(scope="module")
def connection():
    return kuzu.Connection(kuzu.Database(":memory:", max_db_size=1 << 30))


@pytest.mark.parametrize("text, value", BENIGN)
def test_a_benign_query_passes_the_gate_and_runs(connection, text, value):
    assert connection.execute(gate(text).text).get_all() == [[value]]


@pytest.mark.parametrize("text, word", [("MATCH (l) WITH l AS set SET set.x = 1 RETURN set", "SET"),
                                        ("WITH 1 AS x UPDATE x RETURN x", "UPDATE"),
                                        ("MATCH (l) RETURN l ORDER BY l.x SET l.x = 1", "SET"),
                                        ("USE db MATCH (a) RETURN a", "USE"), ("LOAD FROM 'f.csv' RETURN *", "LOAD")])
def test_the_same_words_where_a_clause_starts_are_still_refused(text, word):
    with pytest.raises(QueryRefused, match=f"^{word} is not allowed"):
        gate(text)


def test_floats_are_printed_as_kuzu_reads_them_and_read_back_the_same(connection):
    """Python writes 1e+16; Kuzu 0.11.3 reads only 1e16."""
    rng = random.Random(1)
    values = [1e16, 1e22, 1.5e300, 2.5e-300, 5e-324, 1.7976931348623157e308, 0.1, 123456789.125, 1e-05, 7.0, 0.0]
    values += [rng.uniform(-1, 1) * 10 ** rng.randint(-300, 300) for _ in range(300)]
    for value in values:
        text = gate(f"RETURN {repr(value).replace('e+', 'e')} AS x").text
        assert "e+" not in text
        (read,) = connection.execute(text).get_next()
        assert read == value, (value, text, read)


def test_every_allow_listed_function_exists_in_kuzu(connection):
    known = {row[0].lower() for row in connection.execute("CALL show_functions() RETURN *").get_all()}
    assert sorted(FUNCTIONS - known) == []


def test_the_functions_kuzu_does_not_have_are_refused_by_name():
    for name in ("day", "exp", "head", "last", "month", "power", "tail", "tostring", "year", "tointeger", "tofloat",
                 "toboolean", "jaro_winkler_similarity"):
        with pytest.raises(QueryRefused, match=f"the function {name}\\(\\) is not allowed"):
            gate(f"RETURN {name}(1) AS x")
