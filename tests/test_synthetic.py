"""glm_dspy.graphs.synthetic / glm_dspy.graphs.synthetic_questions: determinism, graph invariants, and every
question's answer re-derived by its own Cypher on the graph loaded into Kuzu."""

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from glm_dspy.graphs.questions import TIERS, Question, read_questions, write_questions
from glm_dspy.graphs.synthetic import FIRST_YEAR, LAST_YEAR, _rank_among_equals, generate
from glm_dspy.graphs.synthetic_questions import answer_from_rows, answer_text, make_questions

FORWARD = {"author": "paper", "venue": "paper", "reference": "cited_by"}  # relation -> its reverse


@pytest.fixture(scope="module")
def graph():
    return generate(3000, seed=7)


def edges_of(graph, relation, src_type):
    (edges,) = [e for e in graph.edges if (e.relation, e.src_type) == (relation, src_type)]
    return edges.table


def pairs(table: pa.Table) -> set[tuple[str, str]]:
    return set(zip(table.column("src").to_pylist(), table.column("dst").to_pylist()))


def test_same_seed_same_bytes_and_other_seed_differs():
    first, second, other = generate(1000, seed=1), generate(1000, seed=1), generate(1000, seed=2)
    for type_name in first.nodes:
        assert first.nodes[type_name].table.equals(second.nodes[type_name].table)
        assert not first.nodes[type_name].table.equals(other.nodes[type_name].table)
    assert all(a.table.equals(b.table) for a, b in zip(first.edges, second.edges))
    assert make_questions(first, seed=3) == make_questions(second, seed=3)


def test_counts_types_and_unique_ids(graph):
    assert {t: n.table.num_rows for t, n in graph.nodes.items()} == {"author": 900, "paper": 2040, "venue": 60}
    assert graph.nodes["paper"].table.schema.field("keywords").type == pa.list_(pa.string())
    assert graph.nodes["paper"].table.schema.field("year").type == pa.int64()
    ids = pa.chunked_array([n.table.column("id") for n in graph.nodes.values()])
    assert pc.count_distinct(ids).as_py() == graph.num_nodes == 3000
    for type_name, column in (("author", "name"), ("paper", "title"), ("venue", "name")):
        table = graph.nodes[type_name].table
        assert pc.count_distinct(table.column(column)).as_py() == table.num_rows


def test_relations_both_directions_and_coverage(graph):
    assert [(e.relation, e.src_type, e.dst_type) for e in graph.edges] == [
        ("author", "paper", "author"), ("paper", "author", "paper"), ("venue", "paper", "venue"),
        ("paper", "venue", "paper"), ("reference", "paper", "paper"), ("cited_by", "paper", "paper")]
    for relation, reverse in FORWARD.items():
        forward = pairs(edges_of(graph, relation, "paper"))
        backward = pairs(edges_of(graph, reverse, "paper" if relation == "reference" else relation))
        assert backward == {(d, s) for s, d in forward} and len(forward) == edges_of(graph, relation, "paper").num_rows
    venue_of = edges_of(graph, "venue", "paper").column("src")
    assert pc.count_distinct(venue_of).as_py() == len(venue_of) == 2040  # exactly one venue per paper
    assert pc.count_distinct(edges_of(graph, "author", "paper").column("dst")).as_py() == 900  # no idle author
    assert pc.count_distinct(edges_of(graph, "venue", "paper").column("dst")).as_py() == 60  # no empty venue


def test_references_point_to_strictly_earlier_years(graph):
    papers = graph.nodes["paper"].table
    year = dict(zip(papers.column("id").to_pylist(), papers.column("year").to_pylist()))
    years = papers.column("year").to_numpy()
    assert years.min() >= FIRST_YEAR and years.max() <= LAST_YEAR and (np.diff(years) >= 0).all()
    references = pairs(edges_of(graph, "reference", "paper"))
    assert len(references) > 2040 and all(year[cited] < year[citing] for citing, cited in references)


def test_rank_among_equals_counts_earlier_repeats():
    #          keys: 5  3  5  5  3  9
    assert _rank_among_equals(np.array([5, 3, 5, 5, 3, 9])).tolist() == [0, 0, 1, 2, 1, 0]


def test_answer_rendering():
    assert answer_text(["b", "a"]) == "a, b" and answer_text(2011) == "2011"
    assert answer_from_rows([{"x": "b"}, {"x": "a"}]) == "a, b"
    assert answer_from_rows([{"k": ["z", "y"]}]) == "y, z"
    assert answer_from_rows([{"n": 2011.0}]) == "2011"


def test_every_answer_equals_its_cypher_on_kuzu(graph, tmp_path):
    from glm_dspy.graphs.load import load_graph
    from glm_dspy.graphs.store import GraphStore

    questions = make_questions(graph, num_per_tier=20, seed=0)
    assert [q.tier for q in questions] == [t for t in TIERS for _ in range(20)]
    assert len({q.qid for q in questions}) == len({q.question for q in questions}) == 60
    load_graph(graph, tmp_path / "db")
    store = GraphStore.open(tmp_path / "db")
    got = {q.qid: answer_from_rows(store.query(q.cypher)) for q in questions}
    assert [(q.qid, q.answer, got[q.qid]) for q in questions if got[q.qid] != q.answer] == []


def test_questions_round_trip_jsonl(graph, tmp_path):
    questions = make_questions(graph, num_per_tier=3, seed=1)
    write_questions(questions, tmp_path / "q.jsonl")
    assert read_questions(tmp_path / "q.jsonl") == questions
    assert all(q.tier in TIERS and q.cypher and not q.alternatives and not q.meta for q in questions)
    (tmp_path / "bad.jsonl").write_text('{"qid": "x"}\n')
    with pytest.raises(ValueError, match="bad.jsonl:1"):
        read_questions(tmp_path / "bad.jsonl")
    with pytest.raises(AssertionError, match="tier"):
        Question("q", "?", "a", tier="hard", cypher="RETURN 1")


def test_too_small_or_too_many_questions_say_what_to_do():
    with pytest.raises(ValueError, match="at least"):
        generate(10)
    with pytest.raises(ValueError, match="fewer questions"):
        make_questions(generate(60), num_per_tier=500)


@pytest.mark.slow
def test_one_million_nodes():  # how fast: python -m glm_dspy.bench.graph (benchmarks measure, tests assert)
    graph = generate(1_000_000)
    assert graph.num_nodes == 1_000_000 and graph.num_edges >= 5_000_000
