"""The GLM LM client: a DSPy engine over vLLM that renders prompts itself and tags cache segments,
and the local LLMs it runs (models.py: the registry, fetched offline and converted for vLLM).

    lm = make_lm()                       # in-process vLLM, default model (started by the first call, shared)
    lm = make_lm(server="http://localhost:8000")
    with dspy.context(lm=lm), query_context("q-17"):
        program(question=...)

Attributes load lazily: importing this package imports neither dspy nor vllm (the CLI reads the
model registry, glm_dspy.lm.models, before it loads anything costly); only the in-process
transport imports vllm, when started.
"""

_LAZY = {
    "AsyncVllmEngine": "glm_dspy.lm.engine",
    "CallRecord": "glm_dspy.lm.engine",
    "VllmEngine": "glm_dspy.lm.engine",
    "make_lm": "glm_dspy.lm.factory",
    "CallObserver": "glm_dspy.lm.observe",
    "observe_calls": "glm_dspy.lm.observe",
    "QUERY_ID_SETTING": "glm_dspy.lm.query",
    "current_query_id": "glm_dspy.lm.query",
    "query_context": "glm_dspy.lm.query",
    "PromptRenderer": "glm_dspy.lm.render",
    "RenderedPrompt": "glm_dspy.lm.render",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'glm_dspy.lm' has no attribute {name!r}")
