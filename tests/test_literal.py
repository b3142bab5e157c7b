"""Every id reaches Cypher through `graphs.literal.string_literal`: it must stay one literal."""

import pytest

from graphs.literal import InvalidId, string_literal

INJECTIONS = [
    "x' }) RETURN 1 //",
    "x'}) MATCH (m) DETACH DELETE m //",
    "a\\' OR true //",
    "\\",
    "'",
    "''",
    "x\\\\'}) RETURN n //",
    "`; DROP TABLE author",
    "p1' OR n.id = 'p2",
    "} UNION ALL MATCH (n) RETURN n //",
]


def test_escapes_quote_and_backslash():
    assert string_literal("a'b") == "'a\\'b'"
    assert string_literal("a\\b") == "'a\\\\b'"
    assert string_literal("Skłodowska") == "'Skłodowska'"


@pytest.mark.parametrize("bad", ["", None, 3, ["a"], "a\x00b", "a\nb", "x" * 2000])
def test_refuses_non_ids(bad):
    with pytest.raises(InvalidId):
        string_literal(bad)


@pytest.mark.parametrize("attack", INJECTIONS)
def test_injection_stays_a_literal(tiny_graph, attack):
    """Kuzu reads the escaped literal back as exactly the original string."""
    rows = tiny_graph.store.query(f"RETURN {string_literal(attack)} AS value")
    assert rows == [{"value": attack}]


@pytest.mark.parametrize("attack", INJECTIONS)
def test_injection_through_graph_functions(tiny_graph, attack):
    retriever = tiny_graph.retriever
    assert "no node with id" in retriever.node_info(attack)
    assert "no node with id" in retriever.node_feature(attack, "name")
    assert "no node with id" in retriever.neighbour_check(attack, "paper")
    # the database is untouched
    assert tiny_graph.store.query("MATCH (n:author) RETURN count(*) AS c") == [{"c": 3}]


def test_id_with_quote_is_found_exactly(tmp_path, embedder):
    import json

    from glm_dspy.graph import open_graph
    from graphs.datasets import build_database

    graph_file = tmp_path / "graph.json"
    graph_file.write_text(json.dumps({"thing_nodes": {
        "o'neil\\x": {"features": {"name": "quoted"}, "neighbors": {}},
        "plain": {"features": {"name": "plain"}, "neighbors": {"thing": ["o'neil\\x"]}},
    }}))
    build_database(f"grbench:{graph_file}", tmp_path / "db", embedder=embedder)
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        assert graph.retriever.node_feature("o'neil\\x", "name") == "quoted"
        assert graph.retriever.neighbour_check("plain", "thing") == ["o'neil\\x"]
