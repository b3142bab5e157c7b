"""Loaders for the real datasets (Nobel + mentorship, PathQuestion) and the one registry of names."""

import shutil

import pytest

from glm_dspy.graphs.datasets import DATASETS, data_dir, load_dataset, load_questions, parse_size
from glm_dspy.graphs.nobel import nobel_graph
from glm_dspy.graphs.pathquestion import pathquestion_graph, read_pathquestions
from glm_dspy.graphs.questions import TIERS
from glm_dspy.graphs.store import GraphStore
from glm_dspy.graphs.triples import relation_name

from conftest import FIXTURES


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
    questions = read_pathquestions(data_dir() / "pathquestion")
    assert len(questions) == 1908
    for question in questions[:200]:
        path = question.meta["path"]
        for i in range(0, len(path) - 2, 2):
            assert (relation_name(path[i + 1]), path[i], path[i + 2]) in edges, question
        assert path[-1] in question.alternatives or path[-1] == question.answer


def test_a_pathquestion_answer_set_is_accepted_one_answer_at_a_time_or_whole():
    """`answer(a/b/)`: either answer alone is right (the dataset's Hits@1), and so is the whole
    set listed; a list with a wrong answer in it, or part of a set of three, is not."""
    from glm_dspy.evaluation.metrics import exact_match

    questions = {q.question: q for q in read_pathquestions(data_dir() / "pathquestion", "pql")}
    horse = questions["what is the Hurry_to_Market 's organism_type 's works ?"]
    [howe] = [q for q in read_pathquestions(data_dir() / "pathquestion")
              if q.question == "what is the samuel_gridley_howe 's other half 's gender ?"]

    def right(question, answer):
        return any(exact_match(answer, gold) for gold in question.golds)

    assert right(howe, "female") and right(howe, "male") and right(howe, "Female, male")
    assert not right(howe, "female, united states") and not right(howe, "")
    assert right(horse, "Sidesaddle") and right(horse, "Reining in, Sidesaddle, Black Beauty, Horse Anatomy")
    assert not right(horse, "Black Beauty, Sidesaddle")


def test_parse_size():
    assert parse_size("5000") == 5000 and parse_size("200k") == 200_000 and parse_size("1m") == 1_000_000


def test_every_dataset_names_its_questions():
    nobel = load_questions("nobel")
    assert len(nobel) >= 40 and {q.tier for q in nobel} == set(TIERS) and all(q.cypher for q in nobel)
    [first, *_] = load_questions("pathquestion")
    assert (first.qid, first.golds, first.meta["topic_entity"]) == ("pq-1", ("united_kingdom",),
                                                                   "frederica_of_mecklenburg-strelitz")
    assert first.tier == "multi_hop"  # every PathQuestion question is 2-hop
    assert load_questions("pathquestion:pql")[0].qid == "pql-1"
    assert len(load_questions("grbench:dblp")) == 150  # the shipped file; the graph is the user's


def test_grbench_one_rule_for_build_and_eval(tmp_path):
    """grbench:PATH builds and its questions are questions.jsonl beside graph.json;
    grbench:DOMAIN is a shipped question file and builds nothing."""
    shutil.copy(FIXTURES / "grbench_tiny.json", tmp_path / "graph.json")
    graph, name, stored = load_dataset(f"grbench:{tmp_path / 'graph.json'}")
    assert (name, graph.num_nodes, stored) == ("grbench", 6, {})
    assert load_dataset(f"grbench:{tmp_path}")[0].num_nodes == 6  # the folder holding graph.json
    with pytest.raises(FileNotFoundError, match="no questions.jsonl beside the graph in .*--questions FILE.jsonl"):
        load_questions(f"grbench:{tmp_path / 'graph.json'}")
    (tmp_path / "questions.jsonl").write_text('{"qid": "t1", "question": "Who wrote p1?", "answer": "Ada"}\n')
    shutil.copy(tmp_path / "graph.json", tmp_path / "renamed.json")
    for spec in (f"grbench:{tmp_path / 'graph.json'}", f"grbench:{tmp_path}", f"grbench:{tmp_path / 'renamed.json'}"):
        assert [q.qid for q in load_questions(spec)] == ["t1"]
    with pytest.raises(ValueError, match="grbench:dblp names a GRBench domain, whose graph is not shipped"):
        load_dataset("grbench:dblp")
    with pytest.raises(ValueError, match="no GRBench question file .*shipped domains: amazon, biomedical, dblp"):
        load_questions("grbench:no-such-domain")
    with pytest.raises(ValueError, match="pass it as --questions"):
        load_questions(f"grbench:{tmp_path / 'questions.jsonl'}")


def test_names_and_their_errors(tmp_path):
    assert list(DATASETS) == ["synthetic", "nobel", "pathquestion", "grbench", "triples", "tables", "csv", "parquet",
                              "kuzu"]
    with pytest.raises(ValueError) as error:
        load_dataset("wikidata")
    assert str(error.value) == ("unknown dataset 'wikidata'; use one of: synthetic[:NODES], nobel, "
                                "pathquestion[:pq|pql], grbench:PATH/graph.json | grbench:DOMAIN, triples:FILE.tsv, "
                                "tables:DIR | csv:DIR | parquet:DIR, kuzu:PATH")
    with pytest.raises(ValueError, match="dataset 'kuzu' has no questions of its own"):
        load_questions("kuzu:x.kuzu")
    with pytest.raises(FileNotFoundError, match="no questions.jsonl in"):
        load_questions(f"csv:{tmp_path}")
    with pytest.raises(ValueError, match="unknown dataset 'wikidata'"):
        load_questions("wikidata")
    with pytest.raises(ValueError, match="dataset 'triples' has no questions of its own; pass --questions"):
        load_questions("triples:kb.tsv")
    with pytest.raises(ValueError, match="takes no argument"):
        load_questions("nobel:2020")
    with pytest.raises(ValueError, match="unknown PathQuestion variant 'pq3'; use one of pq, pql"):
        load_dataset("pathquestion:pq3")
    with pytest.raises(ValueError, match="synthetic questions are written by `glm-dspy build synthetic`"):
        load_questions("synthetic", tmp_path)
    with pytest.raises(ValueError, match="triples needs a file"):
        load_dataset("triples")
