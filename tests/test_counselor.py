"""Graph Counselor around GLM (glm_dspy/modules/counselor.py): a plan before each attempt, judged
rounds with a reflection between them (control flow, DummyLM scripted in call order)."""

import dspy
from dspy.utils import DummyLM

from glm_dspy.modules.counselor import GraphCounselor
from glm_dspy.modules.glm import GLM
from glm_dspy.runs.steps import listening

P1_YEAR = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'
QUESTION = "In which year was Notes on the Analytical Engine published?"
PLAN = {"plan": "1. find the paper\n2. read its year"}
ATTEMPT = [{"kind": "deterministic"}, {"code": P1_YEAR}]  # the wrapped GLM's Classify and Act
REFLECTION = {"recap": "asked for the year", "analysis": "missed the venue", "refinement": "read the year feature",
              "backward_check": "a year answers 'in which year'"}


def run(tiny_graph, answers, max_reflections=2):
    glm = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    program = GraphCounselor(glm, max_reflections=max_reflections)
    lm = DummyLM(answers)
    with dspy.context(lm=lm):
        return program(question=QUESTION), lm


def agents(prediction):
    return [step["agent"] for step in prediction.steps]


def prompt(lm, call):
    return lm.history[call]["messages"][-1]["content"]


def test_a_wrong_verdict_starts_another_round_with_the_reflection_until_the_limit(tiny_graph):
    wrong = [{"correct": False}, REFLECTION]
    prediction, lm = run(tiny_graph, [PLAN, *ATTEMPT, *wrong, PLAN, *ATTEMPT, *wrong, PLAN, *ATTEMPT])
    assert prediction.answer == "1843" and prediction.rounds == 3 and len(prediction.reflections) == 2
    assert agents(prediction) == ["plan", "classify", "act", "judge", "reflect"] * 2 + ["plan", "classify", "act"]
    assert prediction.num_calls == len(lm.history) == 13  # every call, the wrapped GLM's too, is in the one log
    assert "missed the venue" not in prompt(lm, 0) and "missed the venue" in prompt(lm, 5)  # the reflection: the next plan
    assert "Follow this plan:\n1. find the paper\n2. read its year" in prompt(lm, 2)  # the plan goes with the question to Act
    assert prediction.notebook.startswith("Follow this plan:")  # and opens the notebook
    assert "Analysis: missed the venue" in prediction.reflections[0]


def test_a_right_verdict_ends_after_one_round(tiny_graph):
    told = []
    with listening(told.append):  # as the service's page listens: each step once, in order
        prediction, _ = run(tiny_graph, [PLAN, *ATTEMPT, {"correct": True}])
    assert prediction.rounds == 1 and prediction.reflections == []
    assert agents(prediction) == ["plan", "classify", "act", "judge"] and prediction.answer == "1843"
    assert [step.agent for step in told] == agents(prediction)


def test_no_reflections_is_one_planned_round_unjudged(tiny_graph):
    prediction, _ = run(tiny_graph, [PLAN, *ATTEMPT], max_reflections=0)
    assert agents(prediction) == ["plan", "classify", "act"] and prediction.rounds == 1


def test_no_answer_is_never_right(tiny_graph):
    ghost, ask = {"code": 'print(NodeInfo("ghost"))'}, {"finished": False, "answer": "", "missing_information": "its year"}
    nothing = [{"kind": "deterministic"}, ghost, ask, ghost, ask]  # found nothing, asked again: no answer
    prediction, _ = run(tiny_graph, [PLAN, *nothing, REFLECTION, PLAN, *ATTEMPT], max_reflections=1)
    assert agents(prediction) == ["plan", "classify", "act", "reason", "act", "reason", "reflect",  # no judge
                                  "plan", "classify", "act"]
    assert prediction.answer == "1843" and prediction.rounds == 2


def test_unexpected_agent_output_ends_the_rounds(tiny_graph):
    garbage = {"nonsense": "?"}
    prediction, _ = run(tiny_graph, [PLAN, {"kind": "deterministic"}, garbage, garbage])
    assert agents(prediction) == ["plan", "classify", "act"] and prediction.error_category == "unexpected agent output"


def test_glm_alone_plans_nothing(tiny_graph):
    lm = DummyLM(ATTEMPT)
    with dspy.context(lm=lm):
        prediction = GLM(tiny_graph, readings=False, compiled=None, samples=0)(question=QUESTION)
    assert agents(prediction) == ["classify", "act"] and "rounds" not in prediction
    assert "Follow this plan" not in prompt(lm, 1)
