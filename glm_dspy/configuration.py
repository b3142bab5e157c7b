"""`configure`: the one call a notebook or script makes before running a GLM program.

    import glm_dspy
    glm_dspy.configure()                          # default model, in-process vLLM engine
    glm_dspy.configure(server="http://localhost:8000")                    # a vLLM server (token ids) or any
    glm_dspy.configure(server="http://localhost:11434", model="llama3.2")  # OpenAI-compatible one (chat)
    glm_dspy.configure(lm=dspy.LM("anthropic/claude-sonnet-4-5"))         # any dspy.LM
    glm_dspy.configure(kv_cache_gib=8)            # an 8 GiB KV cache, whatever VLLM_CPU_KVCACHE_SPACE says

What runs where (cache-tier hints, token-id prompts, grammars): glm_dspy/lm/backend.py.
"""

from __future__ import annotations

import os

import dspy


def configure(model: str | None = None, *, lm: dspy.LM | None = None, server: str | None = None,
              server_kind: str = "auto", api_key: str | None = None, cache: bool = False, **lm_kwargs) -> dspy.LM:
    """Start (or connect to) the engine, make it DSPy's LM, and return it.

    `model`: a registered name, HF folder or hub id (default: `GLM_MODEL` or the default model);
    on a server that is not GLM's engine, the served model's name (default: the one it serves).
    `lm`: any `dspy.LM` (a LiteLLM provider, an OpenAI-compatible server), used as it is, instead of
    building one: GLM then sends it chat messages only, without cache hints (glm_dspy/lm/backend.py);
    where it names an `api_base`, that server is probed now (an unreachable one fails here).
    `server`, `server_kind` ("auto", "glm", "openai"), `api_key`: glm_dspy/lm/server_lm.py.
    `cache=False` by default so every step's token counts come from the engine; pass True to
    let DSPy replay identical calls from its cache. `lm_kwargs` go to `glm_dspy.lm.make_lm`
    (e.g. kv_cache_gib: the argument wins over VLLM_CPU_KVCACHE_SPACE; without it that variable
    when set, else 2 GiB).
    """
    if lm is not None:
        given = [name for name, value in (("model", model), ("server", server), ("api_key", api_key)) if value]
        if given or lm_kwargs or server_kind != "auto":
            raise TypeError(f"configure(lm=...) takes the LM as it is; {given + sorted(lm_kwargs)} or server_kind "
                            "configure an LM it would build: set them on the dspy.LM instead")
        from glm_dspy.lm.generic import describe_lm

        describe_lm(lm)
        dspy.configure(lm=lm)
        return lm
    os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
    from glm_dspy.lm import make_lm

    lm = make_lm(model, server=server, server_kind=server_kind, api_key=api_key, cache=cache, **lm_kwargs)
    dspy.configure(lm=lm)
    return lm
