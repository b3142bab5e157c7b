"""Loaders for the real datasets: Nobel (+ mentorship) and PathQuestion."""

from graphs.datasets import data_dir, parse_size
from graphs.nobel import nobel_graph
from graphs.pathquestion import pathquestion_graph, read_pathquestions
from graphs.store import GraphStore


def test_nobel_counts_and_facts(nobel_db):
    store = GraphStore.open(nobel_db)
    counts = {t: n.num_nodes for t, n in store.schema.node_types.items()}
    assert counts["laureate"] == 726  # 730 records, 4 listed twice
    assert counts["scholar"] > 2000 and counts["prize"] > 300
    rows = store.query("MATCH (l:laureate)-[:rel_prize]->(p:prize) WHERE l.name = 'Marie Curie' "
                       "RETURN p.category AS c ORDER BY c")
    assert [r["c"] for r in rows] == ["Chemistry", "Physics"]
    rows = store.query("MATCH (l:laureate {id: 'l6'})-[:rel_birth_city]->(c:city)-[:rel_country]->(k:country) "
                       "RETURN c.name AS city, k.name AS country")
    assert rows == [{"city": "Warsaw", "country": "Poland"}]


def test_nobel_mentorship_both_directions():
    graph = nobel_graph(data_dir() / "nobel")
    mentor = {(e.src_type, e.dst_type): e.table.num_rows for e in graph.edges if e.relation == "mentor"}
    student = {(e.dst_type, e.src_type): e.table.num_rows for e in graph.edges if e.relation == "student"}
    assert mentor == student and sum(mentor.values()) > 3000


def test_pathquestion_paths_exist_in_graph():
    graph = pathquestion_graph(data_dir() / "pathquestion")
    edges = {(e.relation, s, d) for e in graph.edges for s, d in zip(e.table.column("src").to_pylist(),
                                                                    e.table.column("dst").to_pylist())}
    from graphs.pathquestion import relation_name

    questions = read_pathquestions(data_dir() / "pathquestion")
    assert len(questions) == 1908
    for question in questions[:200]:
        path = question.meta["path"]
        for i in range(0, len(path) - 2, 2):
            assert (relation_name(path[i + 1]), path[i], path[i + 2]) in edges, question
        assert path[-1] in question.meta["alternatives"] or path[-1] == question.answer


def test_parse_size():
    assert parse_size("5000") == 5000 and parse_size("200k") == 200_000 and parse_size("1m") == 1_000_000
