"""Graph Counselor's options on GLM: a plan before the loop, and judged reflection rounds (control flow)."""

import threading

import dspy
from dspy import lm15

from glm_dspy.modules.glm import GLM

P1_YEAR = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'
QUESTION = "In which year was Notes on the Analytical Engine published?"


class CounselorEngine:
    """Answers each agent by the input field only its prompt has; the judge's verdicts in order."""

    def __init__(self, verdicts):
        self.verdicts = list(verdicts)
        self.prompts: dict[str, list[str]] = {}
        self._lock = threading.Lock()

    def complete(self, request):
        last = request.messages[-1].parts[0].text
        script = [("[[ ## attempt ## ]]", "reflect", {"recap": "asked for the year", "analysis": "missed the venue",
                                                      "refinement": "read the year feature",
                                                      "backward_check": "a year answers 'in which year'"}),
                  ("[[ ## reflection ## ]]", "plan", {"plan": "1. find the paper\n2. read its year"}),
                  ("[[ ## retrieved ## ]]", "judge", None),
                  ("[[ ## request ## ]]", "act", {"code": P1_YEAR}),
                  ("[[ ## notebook ## ]]", "reason", {"finished": True, "answer": "1843", "missing_information": ""}),
                  ("[[ ## question ## ]]", "classify", {"kind": "deterministic"})]
        header, agent, fields = next(entry for entry in script if entry[0] in last)
        with self._lock:
            self.prompts.setdefault(agent, []).append(last)
            if agent == "judge":
                fields = {"correct": self.verdicts.pop(0)}
        text = "\n\n".join(f"[[ ## {k} ## ]]\n{v}" for k, v in fields.items()) + "\n\n[[ ## completed ## ]]"
        return lm15.Response(id=None, model="scripted", message=lm15.Message.assistant([lm15.TextPart(text)]),
                             finish_reason="stop", usage=lm15.Usage(input_tokens=1, output_tokens=1, total_tokens=2))


def run(tiny_graph, verdicts, **options):
    engine = CounselorEngine(verdicts)
    with dspy.context(lm=dspy.LM("openai/scripted", engine=engine, cache=False)):
        prediction = GLM(tiny_graph, readings=False, compiled=None, samples=0, **options)(question=QUESTION)
    return prediction, engine


def test_a_wrong_verdict_starts_another_round_with_the_reflection_until_the_limit(tiny_graph):
    prediction, engine = run(tiny_graph, [False, False], plan=True, reflect=2)
    assert prediction.answer == "1843" and prediction.rounds == 3 and len(prediction.reflections) == 2
    agents = [s["agent"] for s in prediction.steps]
    assert agents.count("plan") == 3 and agents.count("judge") == 2 and agents.count("reflect") == 2
    assert agents[-2:] == ["classify", "act"]  # the last round is not judged: the limit is reached
    assert "missed the venue" in engine.prompts["plan"][1]  # the reflection goes into the next plan
    assert "Reflection on the earlier attempt" in prediction.notebook and "Plan:" in prediction.notebook
    assert "Follow this plan" in engine.prompts["act"][0] and "2. read its year" in engine.prompts["act"][0]


def test_a_right_verdict_ends_after_one_round(tiny_graph):
    prediction, engine = run(tiny_graph, [True], reflect=2)
    assert prediction.rounds == 1 and prediction.reflections == []
    assert [s["agent"] for s in prediction.steps] == ["classify", "act", "judge"]
    assert "plan" not in engine.prompts  # reflection without planning


def test_without_the_options_glm_is_unchanged(tiny_graph):
    prediction, engine = run(tiny_graph, [])
    assert [s["agent"] for s in prediction.steps] == ["classify", "act"] and "rounds" not in prediction
