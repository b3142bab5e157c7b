"""glm-dspy: GLM multi-agent Graph Chain-of-Thought as a DSPy program over Kuzu, served by vLLM.

    import glm_dspy
    glm_dspy.configure()                                   # starts the default local engine
    program = glm_dspy.GLM(graph=glm_dspy.open_graph("data/nobel"))
    program(question="Where was Marie Curie born?").answer

Attributes load lazily: importing this package imports neither dspy nor vllm (the snippet
executor's worker process imports it and must start fast).
"""

_LAZY = {
    "GLM": "glm_dspy.modules.glm",
    "GraphCounselor": "glm_dspy.modules.counselor",
    "open_graph": "glm_dspy.graph",
    "Graph": "glm_dspy.graph",
    "configure": "glm_dspy.configuration",
    "make_lm": "glm_dspy.lm",
}

__all__ = list(_LAZY)


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'glm_dspy' has no attribute {name!r}")
