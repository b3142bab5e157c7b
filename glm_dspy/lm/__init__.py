"""The GLM LM client: a DSPy engine over vLLM that renders prompts itself and tags cache segments.

    lm = make_lm()                       # in-process vLLM, default model (started now, shared)
    lm = make_lm(server="http://localhost:8000")
    with dspy.context(lm=lm), query_context("q-17"):
        program(question=...)

Importing this package does not import vllm (only the in-process transport does, when started).
"""

from glm_dspy.lm.engine import AsyncVllmEngine, CallRecord, VllmEngine
from glm_dspy.lm.factory import make_lm
from glm_dspy.lm.observe import CallObserver, observe_calls
from glm_dspy.lm.query import QUERY_ID_SETTING, current_query_id, query_context
from glm_dspy.lm.render import PromptRenderer, RenderedPrompt

__all__ = ["AsyncVllmEngine", "CallObserver", "CallRecord", "PromptRenderer", "QUERY_ID_SETTING", "RenderedPrompt",
           "VllmEngine", "current_query_id", "make_lm", "observe_calls", "query_context"]
