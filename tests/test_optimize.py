"""optimize.compile's control flow with DummyLM: bootstrapped demos join the hand-written ones,
and the saved program loads back."""

import dspy
from dspy.utils import DummyLM

from glm_dspy.modules.glm import GLM
from optimize.compile import compile_glm

P1_YEAR = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'


def test_bootstrapped_demos_are_appended_and_the_program_round_trips(tiny_graph, tmp_path):
    program = GLM(tiny_graph)
    hand = {name: len(p.demos) for name, p in program.named_predictors()}
    trainset = [dspy.Example(question="In which year was Notes on the Analytical Engine published?",
                             answer="1843").with_inputs("question")]
    with dspy.context(lm=DummyLM([{"kind": "deterministic"}, {"code": P1_YEAR}] * 3)):
        compiled = compile_glm(program, trainset)
    counts = {name: len(p.demos) for name, p in compiled.named_predictors()}
    assert counts["classify.predict"] == hand["classify.predict"] + 1
    assert counts["act.predict"] == hand["act.predict"] + 1 and counts["reason.predict"] == hand["reason.predict"]
    assert compiled.act.predict.demos[-1].code == P1_YEAR
    path = tmp_path / "glm.json"
    compiled.save(str(path))
    loaded = GLM(tiny_graph)
    loaded.load(str(path))
    assert loaded.act.predict.demos[-1]["code"] == P1_YEAR  # loaded demos are dicts
