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


def test_eval_takes_a_compiled_program_and_leaves_out_its_training_questions(tiny_graph, tmp_path):
    import json

    import pytest

    from glm_dspy.evaluate import make_program, train_qids

    program = GLM(tiny_graph)
    program.act.predict.demos.append(dspy.Example(request="r", previous_code="", error="", code=P1_YEAR))
    path = tmp_path / "glm.json"
    program.save(str(path))
    path.with_suffix(".train.json").write_text(json.dumps({"train_qids": ["nobel-01", "nobel-02"]}))
    loaded = make_program("glm", tiny_graph, path)
    assert loaded.act.predict.demos[-1]["code"] == P1_YEAR
    assert len(make_program("glm", tiny_graph).act.predict.demos) == len(program.act.predict.demos) - 1
    assert train_qids(path) == {"nobel-01", "nobel-02"}
    with pytest.raises(FileNotFoundError, match="optimize.compile"):
        make_program("glm", tiny_graph, tmp_path / "missing.json")
