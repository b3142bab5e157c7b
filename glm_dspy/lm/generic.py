"""`generic_lm`: DSPy's own `dspy.LM` for any OpenAI-compatible chat server, as GLM uses it.

    lm = generic_lm(probe_server("http://localhost:11434"), "llama3.2")   # Ollama
    # == dspy.LM("openai/llama3.2", api_base="http://localhost:11434/v1", api_key=..., temperature=0.0, ...)

No token ids, no cache hints, no call records: chat messages go out as DSPy's adapter writes them
and the steps count the tokens the server's `usage` reports (glm_dspy/lm/backend.py GENERIC).
DSPy 3.4.1 routes an `openai/` model with an `api_base` to its native OpenAI-chat engine; any
other `dspy.LM` (a LiteLLM provider such as "anthropic/...") is given as `configure(lm=...)`.
The LM is a `DeadlineLM` (glm_dspy/lm/deadline_lm.py): its calls end by the question's deadline.
"""

from __future__ import annotations

import os

import dspy

from glm_dspy.lm.backend import api_base_of, describe_generic
from glm_dspy.lm.deadline_lm import DeadlineLM
from glm_dspy.lm.probe import ServerInfo, served_model

NO_KEY = "none"  # what an OpenAI client must send to a server that asks for no key (vLLM, Ollama, llama.cpp)


def generic_lm(info: ServerInfo, model: str | None = None, *, api_key: str | None = None, max_tokens: int = 1024,
               temperature: float = 0.0, cache: bool = True, num_retries: int = 0,
               timeout_s: float = 600.0) -> dspy.LM:
    """A `dspy.LM` (a DeadlineLM) on the server `info` describes, asking for `model` (default: the one it serves)."""
    # LiteLLM fetches its price list from GitHub when first used (retrying for seconds offline);
    # its bundled copy will do
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    name = served_model(info, model)
    lm = DeadlineLM(f"openai/{name}", api_base=info.api_base, api_key=api_key or NO_KEY, temperature=temperature,
                 max_tokens=max_tokens, cache=cache, num_retries=num_retries, timeout=timeout_s)
    describe_generic(info.api_base, is_vllm=info.is_vllm)
    return lm


def describe_lm(lm: dspy.LM, *, timeout_s: float = 5.0) -> None:
    """For `configure(lm=...)`: where `lm` names an `api_base` (or `base_url`), probe it once, so
    that an unreachable server or a refused key fails now, in one line, and a vLLM server gets
    grammars (backend.py).
    A server without /v1/models (some gateways) is taken as it is: not vLLM."""
    from glm_dspy.lm.probe import NoModelListError, probe_server

    api_base = api_base_of(lm)
    if not api_base:
        return
    try:
        info = probe_server(api_base, api_key=lm.kwargs.get("api_key"), timeout_s=timeout_s)
    except NoModelListError:
        describe_generic(api_base, is_vllm=False)
        return
    describe_generic(api_base, is_vllm=info.is_vllm)
