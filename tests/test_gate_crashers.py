"""Inputs Kuzu 0.11.3 segfaults on are refused on the parse (graphs/cypher/crashers.py,
date_range.py), and their typed or in-range neighbours are not. Every query in CRASHERS killed a
Kuzu process (exit -11) when it was found, each run in a process of its own;
test_the_refused_inputs_really_crash_kuzu shows it again for a few."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from glm_dspy.graphs.cypher import QueryRefused, gate

# times are this process's CPU time (time.process_time): the machine's other work does not count
CRASHERS = [
    # a literal NULL as the list, node or path argument (every other allow-listed function is safe)
    "RETURN nodes(NULL) AS x", "RETURN id(NULL) AS x", "RETURN properties(NULL, 'name') AS x",
    "RETURN list_sum(NULL) AS x", "RETURN label(NULL) AS x", "RETURN labels(NULL) AS x", "RETURN rels(NULL) AS x",
    "RETURN relationships(NULL) AS x", "RETURN list_contains(NULL, 1) AS x", "RETURN list_has(NULL, 'a') AS x",
    "RETURN array_contains(NULL, 1) AS x", "RETURN list_product(NULL) AS x", "RETURN list_reverse_sort(NULL) AS x",
    "RETURN list_any_value(NULL) AS x",
    # IN NULL
    "MATCH (l:laureate) WHERE l.id IN NULL RETURN l.name", "RETURN CAST(NULL AS STRING) IN NULL AS x",
    "RETURN 1 IN (NULL) AS x", "RETURN COUNT { MATCH (l:laureate) WHERE l.id IN NULL } AS x",
    # dates outside years 1..9999, written
    "RETURN date('10000-01-01') AS d", "RETURN date('0000-01-01') AS d", "RETURN date(' 10000-01-01') AS d",
    "RETURN date('10000/01/01') AS d", "RETURN date('10000-1-1') AS d", "RETURN CAST('10000-01-01' AS DATE) AS d",
    "RETURN CAST('10000-01-01 00:00:00' AS TIMESTAMP) AS d", "RETURN CAST('9999-12-31 23:00:00-05:00' AS TIMESTAMP) AS d",
    "RETURN CAST('0001-01-01 01:00:00+05:00' AS TIMESTAMP) AS d",
    # ... reached by arithmetic, or built where it cannot be read
    "RETURN date('2020-01-01') + CAST('3000000 days' AS INTERVAL) AS d",
    "RETURN date('2020-01-01') - CAST('3000000 days' AS INTERVAL) AS d",
    "RETURN date('2020-01-01') + CAST('100000000 hours' AS INTERVAL) AS d",
    "RETURN date('2020-01-01') + CAST('100 centuries' AS INTERVAL) AS d",
    "RETURN date('2020-01-01') + 3000000 AS d", "RETURN 3000000 + date('2020-01-01') AS d",
    "RETURN date('2020-01-01') - 3000000 AS d", "RETURN date('2020-01-01') + (-3000000) AS d",
    "RETURN date('2020-01-01') + 300000 * 10 AS d",
    "RETURN date('9999-12-31') + CAST('1 day' AS INTERVAL) AS d", "RETURN date('9999-01-01') + CAST('12 months' AS INTERVAL) AS d",
    "RETURN date('9999-12-31') + CAST('24:00:00' AS INTERVAL) AS d",
    "RETURN date('0001-01-01') - CAST('1 day' AS INTERVAL) AS d",
    "RETURN date('9999-12-01') + CAST('20 days' AS INTERVAL) + CAST('20 days' AS INTERVAL) AS d",
    "RETURN date_trunc('year', date('2020-01-01') + 3000000) AS d",
    "RETURN date(concat('1000', '0-01-01')) AS d",
    "RETURN date('2020-01-01') + CAST(CAST('3000000 days' AS STRING) AS INTERVAL) AS d",
    "MATCH (l:laureate) RETURN date(l.birth_date) + 3000000 AS d",
    # a negative regex group
    "RETURN regexp_extract('abc', '(a)', -1) AS x", "RETURN size(regexp_extract('abc', '(a)', -1)) AS x",
    "RETURN regexp_extract_all('abc', '(a)', -1) AS x", "RETURN regexp_extract('abc', '(a)', 0 - 1) AS x",
]
NEIGHBOURS = [  # each runs in Kuzu 0.11.3 without crashing (test_the_neighbours_run_in_kuzu)
    "RETURN coalesce(NULL, 1) AS x", "RETURN ifnull(NULL, 1) AS x", "RETURN lower(CAST(NULL AS STRING)) AS x",
    "RETURN CAST(NULL AS STRING) IN ['a'] AS x", "RETURN 1 IN [1, NULL] AS x", "RETURN NULL IS NULL AS x",
    "RETURN date('9999-12-31') AS d", "RETURN date('0001-01-01') AS d", "RETURN date('2020-01-01') + 365000 AS d",
    "RETURN date('2020-01-01') + CAST('100 years' AS INTERVAL) AS d", "RETURN date('2020-01-01') - 30 AS d",
    "RETURN date('9999-12-31') - date('0001-01-01') AS d", "RETURN CAST('2020-01-01 10:00:00' AS TIMESTAMP) AS t",
    "RETURN regexp_extract('abc', '(a)', 1) AS x", "RETURN regexp_extract('abc', '(a)', 0) AS x",
    "RETURN CAST(date('9999-12-31') AS TIMESTAMP) AS t", "MATCH (l:laureate) RETURN date(l.birth_date) + 365 AS d",
]


@pytest.mark.parametrize("text", CRASHERS)
def test_an_input_kuzu_crashes_on_is_refused_saying_why(text):
    with pytest.raises(QueryRefused, match="Kuzu 0.11.3"):
        gate(text)


@pytest.mark.parametrize("text", NEIGHBOURS)
def test_a_typed_null_or_a_date_in_range_is_not_refused(text):
    assert gate(text).text


def test_a_long_chain_of_date_arithmetic_is_checked_in_linear_time():
    """Each node's constant value is worked out once: `a - a - ...` was exponential in a first draft."""
    for op in ("+", "-"):
        text = "RETURN date('2020-01-01') " + f"{op} 1 " * 180 + "AS d"
        started = time.process_time()
        gate(text)
        assert time.process_time() - started < 0.2
    with pytest.raises(QueryRefused, match="moves outside years"):
        gate("RETURN date('9999-12-01') " + "+ 1 " * 180 + "AS d")


def _run_in_kuzu(texts: list[str]) -> int:
    """The exit code of a process running `texts` in an in-memory Kuzu database (-11: it crashed)."""
    code = ("import kuzu\n"
            "connection = kuzu.Connection(kuzu.Database(':memory:', max_db_size=1 << 30))\n"
            "connection.execute('CREATE NODE TABLE laureate(id STRING, name STRING, birth_date STRING, PRIMARY KEY (id))')\n"
            "connection.execute(\"CREATE (:laureate {id: 'l1', name: 'a', birth_date: '2020-01-01'})\")\n"
            f"for text in {texts!r}:\n"
            "    connection.execute(text).get_all()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode


@pytest.mark.parametrize("text", [
    "RETURN nodes(NULL) AS x", "MATCH (l:laureate) WHERE l.id IN NULL RETURN l.name",
    "RETURN date('2020-01-01') + 3000000 AS d", "MATCH (l:laureate) RETURN date(l.birth_date) + 3000000 AS d",
    "RETURN date(concat('1000', '0-01-01')) AS d", "RETURN CAST('9999-12-31 23:00:00-05:00' AS TIMESTAMP) AS d",
])
def test_the_refused_inputs_really_crash_kuzu(text):
    """A handful of CRASHERS, each in its own process (well under a second each): without the
    check they kill the process that runs them."""
    assert _run_in_kuzu([text]) == -11, text


def test_a_negative_regex_group_reads_outside_kuzus_memory():
    """Not always a segfault: some runs return bytes from elsewhere (not UTF-8, so the binding raises)."""
    assert _run_in_kuzu(["RETURN regexp_extract('abc', '(a)', -1) AS x"]) != 0


def test_the_neighbours_run_in_kuzu():
    assert _run_in_kuzu([gate(text).text for text in NEIGHBOURS]) == 0
