"""graphs/cypher: the parse every gate decision and query pass stands on (no LLM, no database
but where a test says so)."""

from __future__ import annotations

import json
import re

import pytest

from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, gate, parse, print_query
from glm_dspy.graphs.cypher.syntax import (Binary, FunctionCall, Literal, Match, PatternPredicate, Property, Return,
                                           Variable, walk)


def test_a_query_becomes_a_tree_of_its_clauses_patterns_and_expressions():
    tree = parse("MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c:city) "
                 "WHERE NOT l.birth_date CONTAINS '-00' RETURN DISTINCT c.name AS city ORDER BY city DESC LIMIT 3")
    match, ret = tree.parts[0].clauses
    assert isinstance(match, Match) and isinstance(ret, Return)
    part = match.patterns[0]
    assert [n.labels for n in part.nodes] == [("laureate",), ("city",)]
    assert part.nodes[0].properties == (("name", Literal("Marie Curie")),)
    assert [(r.types, r.direction) for r in part.rels] == [(("rel_birth_city",), "out")]
    assert ret.projection.distinct and ret.projection.items == ((Property(Variable("c"), "name"), "city"),)
    assert ret.projection.order[0][1] is True and ret.projection.limit == Literal(3)


@pytest.mark.parametrize("text", [
    "MATCH (a)<-[r:x|y]-(b)--(c) RETURN a, r, c",
    "MATCH p = (a)-[*1..3]->(b) RETURN nodes(p)",
    "MATCH (a)-[* SHORTEST 1..4]-(b) RETURN length(a)",
    "OPTIONAL MATCH (a:x|y) WITH a, count(*) AS n WHERE n > 1 RETURN a.name, n ORDER BY n DESC SKIP 1 LIMIT 2",
    "UNWIND [1, 2, 3] AS x RETURN x * (x + 1) - -x / 2 ^ 2 % 3",
    "MATCH (a) WHERE a.x IS NOT NULL AND (a.y = 1 OR a.z <> 2) XOR NOT a.w IN [1, 2] RETURN a",
    "MATCH (a) WHERE a.name STARTS WITH 'A' AND a.name ENDS WITH 'z' AND a.name =~ 'A.*' RETURN a",
    "MATCH (a) RETURN CASE WHEN a.x > 1 THEN 'y' ELSE 'n' END, CASE a.x WHEN 1 THEN 2 END",
    "MATCH (a) WHERE EXISTS { MATCH (a)-->(b:c) WHERE b.d = 1 } RETURN COUNT { MATCH (a)--() } AS n",
    "MATCH (a) WHERE (a)-[:r]->(:c) RETURN collect(DISTINCT a.name)[0..3], a.tags[1], {k: 1, v: 'x'}",
    "MATCH (a) WHERE all(x IN a.tags WHERE x <> '') RETURN CAST(a.year AS INT64)",
    "MATCH (a) RETURN a.name UNION ALL MATCH (b) RETURN b.name UNION MATCH (c) RETURN c.name",
    "RETURN 1.5, 2e3, true, false, NULL, 'it\\'s', \"q\\\"\"",
])
def test_printing_a_parse_gives_text_that_parses_to_the_same_tree(text):
    tree = parse(text)
    printed = print_query(tree)
    assert parse(printed) == tree
    assert print_query(parse(printed)) == printed


def test_the_printer_keeps_precedence_with_the_fewest_parentheses():
    assert print_query(parse("RETURN (1 + 2) * 3, 1 + (2 * 3), 1 - (2 - 3), (1 - 2) - 3")) \
        == "RETURN (1 + 2) * 3, 1 + 2 * 3, 1 - (2 - 3), 1 - 2 - 3"
    assert print_query(parse("MATCH (a) WHERE NOT (a.x = 1 OR a.y = 2) RETURN a")) \
        == "MATCH (a) WHERE NOT (a.x = 1 OR a.y = 2) RETURN a"


def test_comments_spacing_quotes_and_lookalikes_do_not_survive_printing():
    text = "match (a:laureate {name: \"Marie Curie\"}) /* c */ return a.name as `set` // x\n;"
    assert gate(text).text == "MATCH (a:laureate {name: 'Marie Curie'}) RETURN a.name AS `set`"
    assert gate("MATCH (a)\u2014[:r]\u2014\uff1e(b) RETURN b").text == "MATCH (a)-[:r]->(b) RETURN b"
    assert gate("MATCH (a) WHERE a.x != 1 RETURN a").text == "MATCH (a) WHERE a.x <> 1 RETURN a"
    assert gate("MATCH (a) RETURN CAST(a.y, 'INT64')").text == "MATCH (a) RETURN CAST(a.y AS INT64)"


def test_an_unbounded_variable_length_hop_gets_the_gates_bound():
    assert gate("MATCH (a)-[*]->(b) RETURN b").text == "MATCH (a)-[*..10]->(b) RETURN b"
    with pytest.raises(QueryRefused, match="up to 11 hops"):
        gate("MATCH (a)-[*2..11]->(b) RETURN b")


@pytest.mark.parametrize("text,named", [
    ("COPY (RETURN 1) TO 'x.csv'", "COPY"), ("MATCH (n) RETURN n LIMIT 1LOAD FROM 'x' RETURN *", "LOAD"),
    ("CALL threads = 1", "CALL"), ("checkpoint", "CHECKPOINT"), ("MATCH (n) SET n.x = 1", "SET"),
    ("MATCH (n) RETURN n UNION ALL CREATE (m)", "CREATE"), ("MATCH (n) WITH n MERGE (m)", "MERGE"),
    ("RETURN lpad('a', 9, 'b')", "lpad()"), ("RETURN range(1, 20000)", "range(1, 20000)"),
    ("MATCH (n) RETURN n; RETURN 1", "exactly one statement"), ("RETURN CAST(1 AS BLOB)", "CAST to BLOB"),
])
def test_a_refusal_names_what_it_refused(text, named):
    with pytest.raises(QueryRefused, match=re.escape(named)):
        gate(text)


@pytest.mark.parametrize("text,where", [
    ("MATCH (a RETURN a", "line 1, column 10"), ("MATCH (a)\nRETURN a.", "line 2, column 10"),
    ("RETURN 'open", "line 1, column 8"), ("MATCH (a) /* open RETURN a", "line 1, column 11"),
    ("", "empty"), ("MATCH (a)", "without RETURN"), ("RETURN 1 < 2 < 3", "do not chain"),
    ("RETURN " + "(" * 100 + "1" + ")" * 100, "nests deeper"),
])
def test_text_that_is_not_cypher_is_a_syntax_error_that_says_where(text, where):
    with pytest.raises(CypherSyntaxError, match=where):
        parse(text)


def test_the_tree_is_walkable_for_passes():
    tree = parse("MATCH (a) WHERE (a)-[:r]->(b) AND size(a.x) > 2 RETURN count(a)")
    kinds = [type(node).__name__ for node in walk(tree)]
    assert kinds.count("FunctionCall") == 2 and "PatternPredicate" in kinds
    assert any(isinstance(node, Binary) and node.op == "AND" for node in walk(tree))
    assert {node.name for node in walk(tree) if isinstance(node, FunctionCall)} == {"size", "count"}
    assert sum(isinstance(node, PatternPredicate) for node in walk(tree)) == 1


def test_every_bank_query_parses_prints_and_returns_the_same_rows(nobel_db):
    """The shipped Nobel bank (what the model copies): each query passes the gate, and Kuzu gives
    the printed text the same rows as the original."""
    from glm_dspy.graphs.store import GraphStore

    store = GraphStore.open(nobel_db)
    bank = [json.loads(line)["cypher"] for line in (nobel_db / "text2cypher_examples.jsonl").open()]
    assert len(bank) > 500
    for cypher in bank:
        printed = gate(cypher).text
        assert sorted(map(repr, store.query(cypher))) == sorted(map(repr, store.read(printed).rows)), cypher


@pytest.mark.parametrize("text, value", [
    ("RETURN [1, 2, 3, 4][1..3] AS x", [2, 3]),  # Neo4j's slice: from index 1 (of 0), index 3 left out
    ("RETURN [1, 2, 3, 4][..2] AS x", [1, 2]),
    ("RETURN [1, 2, 3, 4][2:3] AS x", [2, 3]),  # Kuzu's own: from the 2nd to the 3rd
    ("RETURN 'abcdef'[2:3] AS x", "bc"),
])
def test_a_printed_slice_is_one_kuzu_runs_and_means_what_was_written(tmp_path, text, value):
    # a model may write Neo4j's `x[1..3]`, which Kuzu rejects; it is read as Kuzu's `x[2:3]`
    import kuzu

    from glm_dspy.graphs.store import MAX_DB_BYTES

    printed = print_query(parse(text))
    assert ".." not in printed
    connection = kuzu.Connection(kuzu.Database(str(tmp_path / "db"), max_db_size=MAX_DB_BYTES))
    assert connection.execute(printed).get_next() == [value]
