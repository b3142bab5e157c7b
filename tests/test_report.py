"""The steps table a person reads: a truncated agent output shows in its step's row; a repair says so."""

import dspy
import pytest
from rich.console import Console

from glm_dspy.cli.report import backend_note, steps_table
from glm_dspy.runs.steps import UNEXPECTED_OUTPUT, Step


def rendered(*steps: Step) -> str:
    console = Console(width=200, record=True)
    console.print(steps_table(dspy.Prediction(steps=[s.as_dict() for s in steps])))
    return console.export_text()


def test_a_truncated_output_is_in_its_row():
    retried = Step("reason", 300, 128, 120, 2, 1.5, error=f"{UNEXPECTED_OUTPUT}: no answer field",
                   temperatures=(0.0, 0.3), num_truncated=2)
    once = Step("classify", 200, 128, 6, 1, 0.2, output="deterministic", temperatures=(0.0,), num_truncated=1)
    text = rendered(retried, once, Step("graph", code="print(1)", output="1"))
    assert "2 of 2 calls stopped at max_tokens (truncated)" in text
    assert "the output stopped at max_tokens (truncated)" in text
    assert text.count("max_tokens") == 2  # not on the step that was not truncated


def test_a_repair_is_named_in_its_row():
    text = rendered(Step("act", code="print(x)", error="NameError: name 'x' is not defined (line 1)", ok=False),
                    Step("act", code="print(1)", output="1", attempt=1, ok=True))
    assert "act (repair 1)" in text and text.count("repair") == 1


def test_a_sample_is_named_in_its_row_not_called_a_repair():
    text = rendered(Step("act", code="print(x)", ok=False),
                    Step("act", code="print(1)", output="1", attempt=1, ok=True, sampled=True))
    assert "act (sample 1)" in text and "repair" not in text
    with pytest.raises(AssertionError):
        Step("act", sampled=True)  # the first try is never a sample


def test_only_act_steps_have_attempts_and_results():
    with pytest.raises(AssertionError):
        Step("reason", attempt=1)
    with pytest.raises(AssertionError):
        Step("graph", ok=True)
    with pytest.raises(AssertionError):
        Step("act", attempt=-1)


def test_calls_off_glms_engine_are_said_once_under_the_table():
    generic = Step("cypher", 700, 0, 40, 1, 2.0, backend="generic", hints_sent=False)
    engine = Step("cypher", 700, 640, 40, 1, 2.0, backend="inprocess", hints_sent=True)
    assert "no cache-tier hints" in backend_note(dspy.Prediction(steps=[generic.as_dict(), Step("graph").as_dict()]))
    assert backend_note(dspy.Prediction(steps=[engine.as_dict(), Step("graph").as_dict()])) is None
    with pytest.raises(AssertionError):
        Step("cypher", backend="generic")  # a backend says whether hints went with it
