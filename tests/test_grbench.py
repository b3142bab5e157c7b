"""GRBench graph.json -> Kuzu: typed schema, bulk load, degrees, and clear errors on bad files."""

import json

import pyarrow as pa
import pytest

from glm_dspy.graphs.grbench import GraphFormatError, feature_column, read_graph_json
from glm_dspy.graphs.load import GraphLoadError, load_graph
from glm_dspy.graphs.graph_data import GraphData, NodeTable
from glm_dspy.graphs.store import GraphStore

from conftest import FIXTURES


def test_schema_is_typed_per_node_type(tiny_db):
    store = GraphStore.open(tiny_db)
    paper = store.schema.node_types["paper"]
    assert paper.features == {"keywords": "STRING[]", "title": "STRING", "year": "INT64"}
    assert paper.text_feature == "title"
    assert store.schema.relations["paper"] == [("author", "paper"), ("venue", "paper")]
    assert store.schema.neighbour_types("paper") == ["author", "cited_by", "reference", "venue"]
    tables = {row["name"] for row in store.query("CALL show_tables() RETURN name")}
    assert {"author", "paper", "venue", "rel_author", "rel_paper", "rel_cited_by"} <= tables


def test_degrees_and_both_directions(tiny_db):
    store = GraphStore.open(tiny_db)
    degrees = {r["id"]: r["d"] for r in store.query("MATCH (n:paper) RETURN n.id AS id, n.degree AS d")}
    assert degrees == {"p1": 4, "p2": 4}
    rows = store.query("MATCH (a:author {id: 'a1'})-[:rel_paper]->(p) RETURN p.id AS id ORDER BY id")
    assert [r["id"] for r in rows] == ["p1", "p2"]
    rows = store.query("MATCH (p:paper {id: 'p2'})-[:rel_author]->(a) RETURN a.id AS id ORDER BY id")
    assert [r["id"] for r in rows] == ["a1", "a3"]


def test_feature_column_types():
    assert feature_column([1, None, 3]).type == pa.int64()
    assert feature_column([1, 2.5]).type == pa.float64()
    assert feature_column([["a"], None]).type == pa.list_(pa.string())
    assert feature_column([True, False]).type == pa.bool_()
    mixed = feature_column(["x", 1, {"k": [1]}])
    assert mixed.type == pa.string() and mixed.to_pylist() == ["x", "1", '{"k": [1]}']


def _write(tmp_path, text):
    path = tmp_path / "graph.json"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, message", [
    ('{"author_nodes": {"a1": {"features": {}, "neighbors": {}}', "graph.json:1:"),
    ('{"authors": {}}', "'authors' must be '<Type>_nodes'"),
    ('{"a_nodes": {"x": {"features": {}, "neighbors": {}}}, "b_nodes": {"x": {}}}', "appears in both 'a' and 'b'"),
    ('{"a_nodes": {"x": {"features": [], "neighbors": {}}}}', "a_nodes['x'] must hold"),
    ('{"a_nodes": {"x": {"features": {}, "neighbors": {"a": "y"}}}}', "neighbors['a'] of node 'x' must be a list"),
    ('[]', "expected a JSON object"),
])
def test_malformed_graph_json_is_a_clear_error(tmp_path, text, message):
    with pytest.raises(GraphFormatError, match=None) as error:
        read_graph_json(_write(tmp_path, text))
    assert message in str(error.value) and "graph.json" in str(error.value)


def test_dangling_and_duplicate_edges_are_dropped_and_counted(tmp_path):
    raw = {"a_nodes": {"x": {"features": {"name": "X"}, "neighbors": {"a": ["y", "y", "ghost"]}},
                       "y": {"features": {"name": "Y"}, "neighbors": {}}}}
    graph = read_graph_json(_write(tmp_path, json.dumps(raw)))
    report = load_graph(graph, tmp_path / "db")
    assert report.num_edges == 1 and report.num_dropped_edges == 1  # duplicate y; ghost never became an edge


def test_duplicate_ids_across_tables_refused(tmp_path):
    graph = GraphData({"a": NodeTable("a", pa.table({"id": ["x"]})), "b": NodeTable("b", pa.table({"id": ["x"]}))})
    with pytest.raises(GraphLoadError, match="'x' is not unique"):
        load_graph(graph, tmp_path / "db")


def test_existing_database_is_not_overwritten(tmp_path):
    graph = read_graph_json(FIXTURES / "grbench_tiny.json")
    load_graph(graph, tmp_path / "db")
    with pytest.raises(FileExistsError, match="--force"):
        load_graph(graph, tmp_path / "db")
    assert GraphStore.open(tmp_path / "db").query("MATCH (n:author) RETURN count(*) AS c") == [{"c": 3}]
    load_graph(graph, tmp_path / "db", overwrite=True)


def test_open_refuses_a_non_database(tmp_path):
    from glm_dspy.graphs.store import GraphStoreError

    with pytest.raises(GraphStoreError, match="glm-dspy build"):
        GraphStore.open(tmp_path)


def test_grbench_question_files():
    from glm_dspy.graphs.datasets import data_dir
    from glm_dspy.graphs.questions import read_questions

    questions = read_questions(data_dir() / "grbench_questions" / "dblp.jsonl")
    assert len(questions) > 100 and questions[0].qid == "0" and questions[0].answer
    assert not questions[0].question.endswith(" ")  # GRBench's trailing spaces are stripped


def test_graph_json_or_its_folder(tmp_path):
    path = _write(tmp_path, '{"a_nodes": {"x": {"features": {"name": "X"}, "neighbors": {}}}}')
    assert read_graph_json(tmp_path).nodes["a"].table == read_graph_json(path).nodes["a"].table
    with pytest.raises(FileNotFoundError, match="no such file; give a GRBench graph.json or the folder"):
        read_graph_json(tmp_path / "missing")


def test_failed_rebuild_keeps_the_old_database(tmp_path):
    graph = read_graph_json(FIXTURES / "grbench_tiny.json")
    load_graph(graph, tmp_path / "db")

    def broken_finish(build_dir):
        raise RuntimeError("index build failed")

    with pytest.raises(RuntimeError, match="index build failed"):
        load_graph(graph, tmp_path / "db", overwrite=True, finish=broken_finish)
    assert GraphStore.open(tmp_path / "db").query("MATCH (n:author) RETURN count(*) AS c") == [{"c": 3}]
    assert [p.name for p in tmp_path.iterdir()] == ["db"]  # no build leftovers
