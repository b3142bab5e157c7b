"""FastToG: communities around a node (Louvain, modularity pruning) and the arm's control flow."""

import dspy
from dspy.utils import DummyLM

from glm_dspy.retrieval.communities import Communities
from glm_dspy.modules.fasttog import FastToG


def test_communities_are_ranked_by_modularity_and_rendered_as_named_triples(nobel_graph):
    communities = Communities(nobel_graph, top_k=3).around("l6")  # Marie Curie
    assert 1 <= len(communities) <= 3
    assert [c.modularity for c in communities] == sorted((c.modularity for c in communities), reverse=True)
    assert all("l6" not in c.nodes for c in communities)  # the start node is its own community
    first = communities[0].text()
    assert "Marie Curie" in first.splitlines()[0] and " -" in first and "-> " in first  # its own edge leads
    again = Communities(nobel_graph, top_k=3).around("l6")
    assert [c.nodes for c in again] == [c.nodes for c in communities]  # seeded: the same communities


def test_excluded_nodes_are_not_explored_again(nobel_graph):
    first = Communities(nobel_graph).around("l6")
    seen = frozenset(n for c in first for n in c.nodes)
    later = Communities(nobel_graph).around("l6", exclude=seen)
    assert not seen & {n for c in later for n in c.nodes}


def test_fasttog_picks_communities_answers_when_enough_and_reports_depth(nobel_graph):
    lm = DummyLM([{"choice": "2"}, {"enough": False, "answer": ""}, {"choice": "1"},
                  {"enough": True, "answer": "Warsaw"}])
    with dspy.context(lm=lm):
        prediction = FastToG(nobel_graph, width=1, depth=3)(question="Where was Marie Curie born?")
    assert prediction.answer == "Warsaw" and prediction.depth == 2 and prediction.communities == 2
    agents = [s["agent"] for s in prediction.steps]
    assert agents == ["graph", "community", "answer", "graph", "community", "answer"]
    first_pick = lm.history[0]["messages"][-1]["content"]
    assert "Community 1:" in first_pick and "Community 2:" in first_pick
    facts = lm.history[1]["messages"][-1]["content"]
    assert "Marie Curie" in facts  # the second community's triples, as text


def test_fasttog_stops_at_its_depth_with_its_best_answer(nobel_graph):
    lm = DummyLM([{"choice": "1"}, {"enough": False, "answer": "Paris"}] * 2)
    with dspy.context(lm=lm):
        prediction = FastToG(nobel_graph, width=1, depth=2)(question="Where was Marie Curie born?")
    assert prediction.answer == "Paris" and prediction.depth == 2 and prediction.error_category is None


def test_an_eval_record_keeps_the_arms_depth(nobel_graph, tmp_path):
    from glm_dspy.evaluation.evaluate import read_results, run_eval
    from glm_dspy.graphs.questions import Question

    lm = DummyLM([{"choice": "1"}, {"enough": True, "answer": "Warsaw"}])
    with dspy.context(lm=lm):
        run_eval([Question("q1", "Where was Marie Curie born?", "Warsaw")], ["fasttog"], nobel_graph, tmp_path)
    (record,) = read_results(tmp_path / "results.jsonl")
    assert record["em"] and record["extras"] == {"depth": 1, "communities": 2}
