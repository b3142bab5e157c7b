"""Prompt layout (docs/architecture.md): [stable prefix] [notebook] [variable], byte-identical prefixes."""

import dspy
from dspy.utils import DummyLM

from glm_dspy.prompts.function_docs import FUNCTION_DOCS
from glm_dspy.modules.glm import GLM


def render(program, predictor_owner, **inputs):
    predict = predictor_owner.predict
    signature = predictor_owner.signature() if hasattr(predictor_owner, "signature") else predict.signature
    return program.adapter.format(signature, predict.demos, inputs)


def common_prefix(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def flat(messages):
    return "".join(f"<{m['role']}>{m['content']}" for m in messages)


def test_every_agent_has_a_stable_prefix(tiny_graph):
    program = GLM(tiny_graph, readings=False)
    for owner, one, two in [
        (program.classify, {"question": "a?"}, {"question": "b?"}),
        (program.reason, {"notebook": "", "question": "a?"}, {"notebook": "[Node:x {}]", "question": "b?"}),
        (program.act, {"request": "a", "previous_code": "", "error": ""},
         {"request": "b", "previous_code": "x", "error": "E"}),
    ]:
        first, second = render(program, owner, **one), render(program, owner, **two)
        assert first[:-1] == second[:-1], owner  # system message and demo turns: identical
        assert first[-1]["role"] == "user" and first[-1] != second[-1]


def test_act_prefix_holds_function_docs_and_schema(tiny_graph):
    program = GLM(tiny_graph, readings=False)
    system = render(program, program.act, request="r", previous_code="", error="")[0]["content"]
    context = FUNCTION_DOCS.splitlines() + tiny_graph.schema.summary().splitlines()
    assert all(line in system for line in context)  # DSPy indents instruction lines
    request = render(program, program.act, request="r", previous_code="", error="")[-1]["content"]
    assert all(line not in request for line in context)


def test_growing_notebook_is_a_growing_prefix(tiny_graph):
    program = GLM(tiny_graph, readings=False)
    chunk_1, chunk_2 = tiny_graph.retriever.node_info("p1"), tiny_graph.retriever.node_info("a3")
    calls = [render(program, program.reason, notebook=notebook, question="Who wrote it?")
             for notebook in ("", chunk_1, f"{chunk_1}\n\n{chunk_2}")]
    texts = [flat(c) for c in calls]
    prefix_len = len(flat(calls[0][:-1]))
    # everything before the notebook's content is shared by all calls ...
    assert common_prefix(texts[0], texts[1]) >= prefix_len + len("<user>[[ ## notebook ## ]]\n")
    # ... and each notebook extends the previous one inside the same prefix
    assert common_prefix(texts[1], texts[2]) >= prefix_len + len("<user>[[ ## notebook ## ]]\n") + len(chunk_1)


def test_parse_error_retries_the_same_prompt_without_json_fallback(tiny_graph):
    program = GLM(tiny_graph, readings=False)
    lm = DummyLM([{"kind": "deterministic"}, {"junk": "x"}, {"junk": "y"}])
    with dspy.context(lm=lm):
        program(question="q?")
    first, retry = lm.history[1]["messages"], lm.history[2]["messages"]
    assert first == retry  # no JSONAdapter rewrite of the prompt
    assert "[[ ## request ## ]]" in retry[-1]["content"]
