"""One deadline over the question, its LLM calls included (issue 47): an engine that never
answers is given only the question's remaining time, the call it stopped is the time limit, and
no call starts or is asked again after the deadline. Control flow: the real VllmEngine and
prompt renderer on a transport that hangs (an overloaded engine)."""

from __future__ import annotations

import time

import dspy
import pytest
from dspy import lm15

from glm_dspy.graphs.deadline import DeadlinePassed, deadline
from glm_dspy.lm.engine import VllmEngine
from glm_dspy.lm.models import resolve_model
from glm_dspy.lm.render import PromptRenderer
from glm_dspy.modules.glm import GLM
from glm_dspy.runs.steps import TIME_LIMIT


class HangingTransport:
    """Never answers: waits out each call's timeout (600 s when none is given), then times out."""

    name = "inprocess"

    def __init__(self):
        self.timeouts: list[float | None] = []

    def generate(self, prompt_ids, params, extra_args, *, stream, timeout_s=None):
        self.timeouts.append(timeout_s)
        time.sleep(600 if timeout_s is None else timeout_s)
        raise lm15.TimeoutError(f"no answer in {timeout_s} s")
        yield  # a generator, like the real transports

    def close(self):
        pass


@pytest.fixture(scope="module")
def renderer():
    return PromptRenderer.from_pretrained(resolve_model(None))


def hanging_lm(renderer, transport):
    engine = VllmEngine(transport, renderer, model="hanging", timeout_s=600.0)
    return dspy.LM("hanging", engine=engine, cache=False, num_retries=0), engine


def test_a_call_gets_only_the_time_left_and_none_starts_after_the_deadline(renderer):
    transport = HangingTransport()
    _, engine = hanging_lm(renderer, transport)
    request = lm15.Request(model="hanging", messages=[lm15.Message.user("hi")])
    started = time.monotonic()
    with deadline(time.monotonic() + 1.0), pytest.raises(DeadlinePassed, match="during an LLM call"):
        engine.complete(request)
    assert time.monotonic() - started <= 1.0 + 1 and transport.timeouts[0] <= 1.0
    with deadline(time.monotonic() - 1), pytest.raises(DeadlinePassed, match="before an LLM call"):
        engine.complete(request)
    assert len(transport.timeouts) == 1


def test_glm_on_a_hung_engine_ends_at_its_question_deadline_with_the_time_limit(tiny_graph, renderer):
    transport = HangingTransport()
    lm, _ = hanging_lm(renderer, transport)
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0, question_timeout_s=2.0)
    started = time.monotonic()
    with dspy.context(lm=lm):
        prediction = program(question="Who wrote the paper on graphs?")
    assert time.monotonic() - started <= 2.0 + 1
    assert prediction.error_category == TIME_LIMIT and not prediction.answer
    assert all(timeout is not None and timeout <= 2.0 for timeout in transport.timeouts), transport.timeouts
    assert len(transport.timeouts) == 1  # not asked again after the deadline
