"""glm_dspy.graphs.kuzu_source: a Kuzu database made by someone else (own table names, integer keys, Unicode,
properties of every kind) is copied read-only and answers through the Cypher gate and the graph
functions; the user's files are never written."""

import hashlib
from pathlib import Path

import kuzu
import pytest

from glm_dspy.graphs.kuzu_source import kuzu_graph
from glm_dspy.graphs.name_choice import choose_text_features, parse_name_properties
from glm_dspy.graphs.store import MAX_DB_BYTES

THEIR_SCHEMA = [  # someone else's layout: SERIAL keys that repeat across tables, a STRING key, Unicode
    "CREATE NODE TABLE Person(pid SERIAL PRIMARY KEY, fullName STRING, born INT32, bday DATE, degree INT64)",
    "CREATE NODE TABLE Film(fid SERIAL PRIMARY KEY, title STRING, year INT64)",
    "CREATE NODE TABLE 城市(名字 STRING PRIMARY KEY, population INT64)",
    "CREATE REL TABLE ACTED_IN(FROM Person TO Film, role STRING)",
    "CREATE REL TABLE 住在(FROM Person TO 城市, FROM Film TO 城市)",
]
THEIR_DATA = [
    "CREATE (:Person {fullName: 'Ann Lee', born: 1970, bday: date('1970-01-02'), degree: 3})",
    "CREATE (:Person {fullName: 'Bo Wu', born: 1980, degree: 1})",
    "CREATE (:Film {title: 'Up', year: 2009})",
    "CREATE (:城市 {名字: '北京', population: 21})",
    "MATCH (p:Person), (f:Film {title: 'Up'}) CREATE (p)-[:ACTED_IN {role: 'x'}]->(f)",
    "MATCH (p:Person {fullName: 'Bo Wu'}), (c:城市) CREATE (p)-[:住在]->(c)",
    "MATCH (f:Film), (c:城市) CREATE (f)-[:住在]->(c)",
]


@pytest.fixture(scope="module")
def theirs(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("theirs") / "their.kuzu"
    database = kuzu.Database(str(path), max_db_size=MAX_DB_BYTES)
    connection = kuzu.Connection(database)
    for statement in THEIR_SCHEMA + THEIR_DATA:
        connection.execute(statement)
    connection.close()
    database.close()
    return path


def _digest(path: Path) -> str:
    files = sorted(p for p in [path, *path.parent.glob(path.name + "*")] if p.is_file())
    return hashlib.sha256(b"".join(p.name.encode() + p.read_bytes() for p in files)).hexdigest()


def test_their_tables_become_the_graph(theirs):
    graph = choose_text_features(kuzu_graph(theirs))
    assert sorted(graph.nodes) == ["Film", "Person", "城市"] and graph.relations == ["ACTED_IN", "住在"]
    assert graph.nodes["Person"].table.to_pylist() == [  # keys repeat across Person and Film: prefixed ids
        {"id": "Person:0", "pid": 0, "fullName": "Ann Lee", "born": 1970, "bday": "1970-01-02", "degree_": 3},
        {"id": "Person:1", "pid": 1, "fullName": "Bo Wu", "born": 1980, "bday": None, "degree_": 1}]
    assert graph.text_features == {"Film": "title", "城市": "名字"}  # Person: unclear; 城市: its text key
    lived = sorted((e.src_type, row["src"], row["dst"]) for e in graph.edges if e.relation == "住在"
                   for row in e.table.to_pylist())
    assert lived == [("Film", "Film:0", "城市:北京"), ("Person", "Person:1", "城市:北京")]
    notes = "\n".join(graph.notes)
    assert "property 'degree' is stored as 'degree_'" in notes
    assert "primary key values repeat across tables, so every node id is <Table>:<key> (e.g. " in notes
    assert "relationship table 'ACTED_IN': its properties are not copied" in notes
    assert "node type 'Person': no property called name/title" in notes and "--name-property Person=PROP" in notes
    assert "(its text properties: fullName, bday)" in notes


def test_adopted_and_queried_through_the_gate_never_written(theirs, tmp_path, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    before = _digest(theirs)
    report = build_database(f"kuzu:{theirs}", tmp_path / "db", embedder=embedder,
                            name_properties=parse_name_properties(["Person=fullName"]))
    assert _digest(theirs) == before
    assert (report.num_nodes, report.num_edges) == (4, 4)
    assert not any("node type 'Person'" in note for note in report.notes)  # the choice was made
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        rows = graph.store.read("MATCH (p:Person)-[:rel_ACTED_IN]->(f:Film {title: 'Up'}) "
                                "RETURN p.fullName AS name ORDER BY name").rows
        assert rows == [{"name": "Ann Lee"}, {"name": "Bo Wu"}]
        assert graph.store.read("MATCH (p:Person)-[:rel_住在]->(c:城市) RETURN p.fullName AS n").rows == [{"n": "Bo Wu"}]
        assert graph.retriever.retrieve_node("Ann Lee") == "Person:0"
        assert graph.retriever.neighbour_check("Film:0", "住在") == ["城市:北京"]
        assert graph.retriever.retrieve_node("北京") == "城市:北京"
        assert "(Film:0:ACTED_IN {title:Up})" in graph.retriever.node_info("Person:0")


def test_a_name_property_that_is_not_there_is_refused(theirs):
    with pytest.raises(ValueError, match="--name-property Person=nick: 'Person' has no property 'nick'; its prop"):
        choose_text_features(kuzu_graph(theirs), {"Person": "nick"})
    with pytest.raises(ValueError, match="write TYPE=PROPERTY"):
        parse_name_properties(["Person"])


def test_a_missing_database(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such Kuzu database"):
        kuzu_graph(tmp_path / "nope.kuzu")
