"""`configure`: the one call a notebook or script makes before running a GLM program.

    import glm_dspy
    glm_dspy.configure()                          # default model, in-process vLLM engine
    glm_dspy.configure(server="http://localhost:8000")
    glm_dspy.configure(kv_cache_gib=8)            # an 8 GiB KV cache, whatever VLLM_CPU_KVCACHE_SPACE says
"""

from __future__ import annotations

import os

import dspy


def configure(model: str | None = None, *, server: str | None = None, cache: bool = False, **lm_kwargs) -> dspy.LM:
    """Start (or connect to) the engine, make it DSPy's LM, and return it.

    `model`: a registered name, HF folder or hub id (default: `GLM_MODEL` or the default model).
    `cache=False` by default so every step's token counts come from the engine; pass True to
    let DSPy replay identical calls from its cache. `lm_kwargs` go to `glm_dspy.lm.make_lm`
    (e.g. kv_cache_gib: the argument wins over VLLM_CPU_KVCACHE_SPACE; without it that variable
    when set, else 2 GiB).
    """
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    from glm_dspy.lm import make_lm

    lm = make_lm(model, server=server, cache=cache, **lm_kwargs)
    dspy.configure(lm=lm)
    return lm
