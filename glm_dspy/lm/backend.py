"""Which kind of LM a program runs on, and so which of this project's engine features reach it.

    INPROCESS   this project's vLLM engine in this process (`make_lm()`)
    SERVER      a vLLM OpenAI server spoken to in token ids (`make_lm(server=URL)`, glm_dspy/lm/server.py)
    GENERIC     any other `dspy.LM`: an OpenAI-compatible server (OpenAI, Ollama, llama.cpp, vLLM
                spoken to in chat messages) or any LiteLLM provider, through DSPy's own client

INPROCESS and SERVER run GLM's engine (glm_dspy/lm/engine.py): prompts rendered to token ids by the
local tokenizer, cache-tier hints on every request (backends/vllm_priority/hints.py; a stock vLLM
scheduler ignores them, ours evicts by them), grammars, and each call's record (temperature,
truncation). A GENERIC LM gets chat messages only: no hints, no call records (the steps' token
counts are what the server's `usage` reports), and a grammar only where the server is known to be
vLLM (`describe_generic`, from a probe of its /version), which takes it as
`extra_body={"structured_outputs": {"grammar": ...}}` (vLLM 0.32 chat_completion/protocol.py);
elsewhere the reply is decoded free and parsed as usual. Every agent step records its backend kind
and whether hints were sent (glm_dspy/runs/steps.py `Step.backend`, `Step.hints_sent`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

logger = logging.getLogger(__name__)

INPROCESS, SERVER, GENERIC = "inprocess", "server", "generic"
KINDS = (INPROCESS, SERVER, GENERIC)
# how a grammar reaches the model: the engine's call metadata (structured.py), a vLLM server's extra_body, or not
GRAMMAR_METADATA, GRAMMAR_EXTRA_BODY = "metadata", "extra_body"


@dataclass(frozen=True, slots=True)
class Backend:
    """What one LM is. Invariant: hints are sent exactly by GLM's own engine (INPROCESS, SERVER)."""

    kind: str
    grammar_route: str | None  # GRAMMAR_METADATA, GRAMMAR_EXTRA_BODY, or None: grammars are not sent

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind
        assert self.grammar_route in (GRAMMAR_METADATA, GRAMMAR_EXTRA_BODY, None), self.grammar_route
        assert (self.grammar_route == GRAMMAR_METADATA) == (self.kind != GENERIC), self

    @property
    def hints_sent(self) -> bool:
        return self.kind != GENERIC


_lock = threading.Lock()
_vllm_api_bases: set[str] = set()  # OpenAI roots (".../v1") of generic LMs' servers found to be vLLM
_warned_grammar: set[str] = set()  # models already warned that a grammar was not sent


def describe_generic(api_base: str, *, is_vllm: bool) -> None:
    """Record what a probe found about the server a generic LM's `api_base` points to."""
    with _lock:
        (_vllm_api_bases.add if is_vllm else _vllm_api_bases.discard)(_normalized(api_base))


def backend_of(lm) -> Backend:
    """The backend of `lm` (None: no LM configured yet, treated as generic)."""
    engine = getattr(lm, "engine", None)
    transport = getattr(engine, "transport", None)
    if transport is not None and hasattr(engine, "renderer"):  # glm_dspy.lm.engine.VllmEngine
        return Backend(SERVER if transport.name == SERVER else INPROCESS, GRAMMAR_METADATA)
    api_base = api_base_of(lm) or ""
    with _lock:
        is_vllm = bool(api_base) and _normalized(api_base) in _vllm_api_bases
    return Backend(GENERIC, GRAMMAR_EXTRA_BODY if is_vllm else None)


def api_base_of(lm) -> str | None:
    """The OpenAI root a dspy.LM was given (`api_base`, or LiteLLM's other name for it, `base_url`)."""
    kwargs = getattr(lm, "kwargs", None) or {}
    return kwargs.get("api_base") or kwargs.get("base_url")


def warn_grammar_not_sent(lm) -> None:
    """Say once per model that a grammar was asked for but this LM cannot take it."""
    model = str(getattr(lm, "model", lm))
    with _lock:
        if model in _warned_grammar:
            return
        _warned_grammar.add(model)
    logger.warning("%s is not a vLLM engine or server this project knows: its replies are not constrained by "
                   "a grammar (Discriminate's model chooser); they are parsed as usual", model)


def _normalized(api_base: str) -> str:
    return api_base.rstrip("/")
