"""The baselines' control flow with scripted DummyLM outputs, over the real tiny graph.

DummyLM proves parsing, branching and stopping only; nothing here is about answer quality.
"""

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.modules.baselines import BaseLLM, GraphRAG, TextRAG
from glm_dspy.modules.glm import GLM
from glm_dspy.modules.graphcot import INVALID, GraphCoT, parse_actions
from glm_dspy.runs.steps import PREDICTION_FIELDS, STEP_LIMIT, UNEXPECTED_OUTPUT, Step, StepLog


def run(program, answers, question="q?"):
    lm = DummyLM(answers)
    with dspy.context(lm=lm):
        return program(question=question), lm


def user_message(lm, call):
    return lm.history[call]["messages"][-1]["content"]


@pytest.mark.parametrize("text, parsed", [
    ("RetrieveNode[Ada Lovelace]", [("RetrieveNode", ["Ada Lovelace"])]),
    ("RetrieveNode[Earl W. Sutherland, Jr.]", [("RetrieveNode", ["Earl W. Sutherland, Jr."])]),
    ("NodeFeature[p1, year]", [("NodeFeature", ["p1", "year"])]),
    ("NodeFeature[p1, year], NeighbourCheck[p1, author]",
     [("NodeFeature", ["p1", "year"]), ("NeighbourCheck", ["p1", "author"])]),
    ("Finish[Ada Lovelace, Charles Babbage]", [("Finish", ["Ada Lovelace, Charles Babbage"])]),
    ("NodeFeature[p1]", [None]),
    ("Search[ada]", [None]),
    ("I think RetrieveNode[ada]", [None]),
])
def test_action_parsing(text, parsed):
    assert parse_actions(text) == parsed


def test_graphcot_retrieves_then_finishes(tiny_graph):
    ada = tiny_graph.retriever.retrieve_node("Ada Lovelace")
    prediction, lm = run(GraphCoT(tiny_graph), [
        {"thought": "find her", "action": "RetrieveNode[Ada Lovelace]"},
        {"thought": "her papers", "action": f"NeighbourCheck[{ada}, paper], NodeDegree[{ada}, paper]"},
        {"thought": "done", "action": "Finish[Notes]"},
    ])
    papers = tiny_graph.retriever.neighbour_check(ada, "paper")
    assert prediction.answer == "Notes" and prediction.error_category is None and prediction.num_calls == 3
    assert prediction.steps[0]["output"] == ada
    assert prediction.steps[1]["output"] == f"{papers}; {len(papers)}"
    # the whole scratchpad is re-sent each step, after the question
    assert f"Observation 1: {ada}" in user_message(lm, 1)
    assert f"Observation 1: {ada}" in user_message(lm, 2) and f"Observation 2: {papers}" in user_message(lm, 2)
    assert user_message(lm, 2).index("[[ ## question ## ]]") < user_message(lm, 2).index("Observation 1")


def test_graphcot_invalid_action_and_unknown_id_are_observations(tiny_graph):
    prediction, _ = run(GraphCoT(tiny_graph, max_steps=2), [
        {"thought": "?", "action": "Lookup[ada]"},
        {"thought": "?", "action": "NodeFeature[ghost, name]"},
    ])
    assert prediction.steps[0]["output"] == INVALID
    assert "no node with id 'ghost'" in prediction.steps[1]["output"]
    assert prediction.error_category == STEP_LIMIT and prediction.answer == ""


def test_graphcot_step_limit(tiny_graph):
    prediction, _ = run(GraphCoT(tiny_graph, max_steps=3), [{"thought": "t", "action": "RetrieveNode[ada]"}] * 3)
    assert prediction.error_category == STEP_LIMIT and prediction.num_calls == 3
    assert prediction.scratchpad.count("Observation") == 3


def test_graphcot_unparseable_output(tiny_graph):
    prediction, _ = run(GraphCoT(tiny_graph), [{"nonsense": "x"}, {"nonsense": "x"}])
    assert prediction.error_category == UNEXPECTED_OUTPUT and prediction.num_calls == 2


def test_base_llm_sends_only_the_question():
    prediction, lm = run(BaseLLM(), [{"answer": "42"}], question="What is six times seven?")
    assert prediction.answer == "42" and prediction.num_calls == 1
    assert "[[ ## question ## ]]\nWhat is six times seven?" in user_message(lm, 0)


def test_text_rag_puts_the_top_k_node_lines_before_the_question(tiny_graph):
    prediction, lm = run(TextRAG(tiny_graph, k=2), [{"answer": "1843"}], question="Notes on the Analytical Engine")
    hits = [i for i, _ in tiny_graph.retriever.node_index.search("Notes on the Analytical Engine", 2)]
    assert prediction.answer == "1843" and len(prediction.context.splitlines()) == 2
    for node_id, line in zip(hits, prediction.context.splitlines()):
        assert line.startswith(f"[Node:{node_id} ") and "neighbours" not in line
    assert user_message(lm, 0).index(prediction.context) < user_message(lm, 0).index("[[ ## question ## ]]")


def test_graph_rag_linearizes_the_ego_graph(tiny_graph):
    question = "Notes on the Analytical Engine"
    best = tiny_graph.retriever.retrieve_node(question)
    one_hop, _ = run(GraphRAG(tiny_graph), [{"answer": "a"}], question=question)
    assert one_hop.context == tiny_graph.retriever.node_info(best)
    two_hops, _ = run(GraphRAG(tiny_graph, hops=2), [{"answer": "a"}], question=question)
    neighbours = tiny_graph.retriever.neighbour_check(best, "author")
    assert two_hops.context.startswith(one_hop.context)
    assert all(f"[Node:{n} " in two_hops.context for n in neighbours)


ARMS = {  # arm -> (program, scripted outputs, the arm's own fields)
    "base": (lambda g: BaseLLM(), [{"answer": "42"}], {"context"}),
    "text_rag": (lambda g: TextRAG(g, k=2), [{"answer": "x"}], {"context"}),
    "graph_rag": (lambda g: GraphRAG(g), [{"answer": "x"}], {"context"}),
    "graphcot": (lambda g: GraphCoT(g), [{"thought": "t", "action": "Finish[x]"}], {"scratchpad"}),
    "glm": (lambda g: GLM(g, readings=False), [{"kind": "deterministic"}, {"code": 'print(NodeFeature("p1", "year"))'}],
            {"kind", "notebook", "query_id", "guess"}),  # guess: the best reading, where not sure
}


@pytest.mark.parametrize("arm", ARMS)
def test_every_arm_returns_the_shared_prediction_fields(tiny_graph, arm):
    make, answers, own = ARMS[arm]
    prediction, lm = run(make(tiny_graph), answers, question="Notes on the Analytical Engine")
    assert set(prediction.keys()) == {*PREDICTION_FIELDS, *own}
    assert prediction.answer and prediction.error_category is None
    assert prediction.num_calls == len(lm.history) == sum(step["num_calls"] for step in prediction.steps)


def test_step_log_prediction_sums_the_steps():
    log = StepLog([Step("classify", prompt_tokens=100, cached_tokens=60, completion_tokens=3, num_calls=1),
                   Step("graph", output="1843"),
                   Step("act", prompt_tokens=200, cached_tokens=150, completion_tokens=20, num_calls=2)])
    prediction = log.prediction(None, STEP_LIMIT, notebook="n")
    assert prediction.toDict() == {
        "answer": "", "steps": [s.as_dict() for s in log.steps], "error_category": STEP_LIMIT, "num_calls": 3,
        "prompt_tokens": 300, "cached_tokens": 210, "completion_tokens": 23, "notebook": "n"}
    with pytest.raises(AssertionError, match="overwrite"):
        log.prediction("a", None, num_calls=0)
    with pytest.raises(AssertionError):
        log.prediction("a", "something else")
