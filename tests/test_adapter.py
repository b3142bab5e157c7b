"""GLMAdapter: ChatAdapter parsing, plus lenient bool fields for small models."""

import pytest
from dspy.utils.exceptions import AdapterParseError

from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.signatures import Act, Reason


def reason_output(finished: str, answer: str = "", missing: str = "") -> str:
    return (f"[[ ## finished ## ]]\n{finished}\n\n[[ ## answer ## ]]\n{answer}\n\n"
            f"[[ ## missing_information ## ]]\n{missing}\n\n[[ ## completed ## ]]")


@pytest.mark.parametrize("text, answer, expected", [
    ("True", "1903", True),  # plain ChatAdapter path
    ("False", "", False),
    ("# note: the value you produce must be True or False", "1903", True),  # copied reminder, answer given
    ("# note: the value you produce must be True or False", "", False),  # the reminder itself decides nothing
    ("yes, the notebook is enough", "x", True),
    ("no.", "", False),
    ("I am not sure", "1903", True),  # no boolean word: an answer means finished
    ("I am not sure", "", False),
])
def test_lenient_bool(text, answer, expected):
    parsed = GLMAdapter().parse(Reason, reason_output(text, answer, "m" if not answer else ""))
    assert parsed["finished"] is expected and parsed["answer"] == answer


def test_missing_fields_still_fail():
    with pytest.raises(AdapterParseError):
        GLMAdapter().parse(Reason, "[[ ## finished ## ]]\nTrue\n\n[[ ## completed ## ]]")
    with pytest.raises(AdapterParseError):
        GLMAdapter().parse(Act, "here is some code")


def test_no_json_fallback():
    assert GLMAdapter().use_json_adapter_fallback is False


def test_a_marker_after_text_on_the_same_line_ends_the_field():
    code = 'print(NodeInfo(RetrieveNode("Niels Bohr")))'
    assert GLMAdapter().parse(Act, f"[[ ## code ## ]]\n{code}[[ ## completed ## ]]")["code"] == code
    parsed = GLMAdapter().parse(Reason, reason_output("True", "1903 [[ ## missing_information ## ]]"))
    assert parsed["answer"] == "1903"
