"""Every value reaches Cypher through `glm_dspy.graphs.literal`: it must stay one literal."""

import shutil

import pytest

from glm_dspy.graphs.literal import InvalidId, name_literal, string_literal

from conftest import FIXTURES

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
    from glm_dspy.graphs.build import build_database

    graph_file = tmp_path / "graph.json"
    graph_file.write_text(json.dumps({"thing_nodes": {
        "o'neil\\x": {"features": {"name": "quoted"}, "neighbors": {}},
        "plain": {"features": {"name": "plain"}, "neighbors": {"thing": ["o'neil\\x"]}},
    }}))
    build_database(f"grbench:{graph_file}", tmp_path / "db", embedder=embedder)
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        assert graph.retriever.node_feature("o'neil\\x", "name") == "quoted"
        assert graph.retriever.neighbour_check("plain", "thing") == ["o'neil\\x"]


@pytest.mark.parametrize("name", ["author", "rel_cited_by", "A1"])
def test_name_literal_reads_back_as_the_name(tiny_graph, name):
    assert name_literal(name) == f"'{name}'"
    assert tiny_graph.store.query(f"RETURN {name_literal(name)} AS value") == [{"value": name}]


@pytest.mark.parametrize("name", ["it's", "配偶", "a\\b", "Ähnlich zu", "1a"])
def test_name_literal_escapes_names_as_users_wrote_them(tiny_graph, name):
    assert tiny_graph.store.query(f"RETURN {name_literal(name)} AS value") == [{"value": name}]


@pytest.mark.parametrize("bad", ["", " a", "a ", "a`", "a\n", "a\tb", "x" * 257, None, 3])
def test_name_literal_refuses_what_no_table_is_called(bad):
    with pytest.raises(ValueError, match="not a table name"):
        name_literal(bad)


def test_paths_with_quotes_build_and_open(tmp_path, embedder):
    """No path enters Cypher text: a source file and a database folder named with quotes,
    backslashes and glob brackets build (Kuzu globbed `[x]` in a COPY path) and open."""
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    folder = tmp_path / "o'neil \\ [x] \"q\""
    folder.mkdir()
    shutil.copy(FIXTURES / "grbench_tiny.json", folder / "graph.json")
    db = folder / "the db's copy"
    report = build_database(f"grbench:{folder / 'graph.json'}", db, embedder=embedder)
    assert report.db_dir == db and report.num_nodes == 6
    with open_graph(db, embedder=embedder) as graph:
        assert graph.retriever.node_feature("a3", "name") == "O'Brien, Pat"
        assert graph.retriever.neighbour_check("a1", "paper") == ["p1", "p2"]


def test_a_name_with_a_trailing_newline_is_refused():
    from glm_dspy.graphs.graph_data import check_name

    assert check_name("birth_city", "relation") == "birth_city"
    with pytest.raises(ValueError, match="relation name 'a\\\\n'"):
        check_name("a\n", "relation")
