"""`make_lm`: a `dspy.LM` whose engine is vLLM, in-process (shared) or behind an OpenAI server, or
DSPy's own client for any other OpenAI-compatible server (glm_dspy/lm/server_lm.py).

The in-process engine starts, and the model's tokenizer loads, on the first LLM call
(glm_dspy/lm/lazy.py): a question the readings answer never pays for them;
`lm.engine.transport.warm()` starts the engine ahead (the service does, in the background, once it
answers). The model folder is resolved in `make_lm`, so a missing model fails there; a registered
one is re-hashed against its manifest before the tokenizer or the engine first reads it
(glm_dspy/lm/models.py). `make_lm` calls with the same model and engine settings share that one
vLLM engine (one KV cache, so prefixes are shared across programs), each with its own `VllmEngine`
(own call log), until one of them calls `lm.engine.close()`, which stops the shared vLLM engine
for all; the next `make_lm` starts a fresh one.

The KV cache gets `kv_cache_gib` when it is given, whatever VLLM_CPU_KVCACHE_SPACE says (vLLM's
own CPU variable, which would otherwise replace it); without it, VLLM_CPU_KVCACHE_SPACE when set,
else 2 GiB (`kv_cache_gib_for`).
"""

import os
import threading
from pathlib import Path

import dspy

from glm_dspy.backends.vllm_priority.policies import POLICIES, runs_async_scheduling, scheduler_cls
from glm_dspy.lm.engine import AsyncVllmEngine, VllmEngine
from glm_dspy.lm.render import PromptRenderer
from glm_dspy.lm.models import DEFAULT_MODEL, MODELS, resolve_model_later

DEFAULT_KV_CACHE_GIB = 2.0
KV_CACHE_ENV = "VLLM_CPU_KVCACHE_SPACE"  # GiB, vllm-cpu 0.32.0 platforms/cpu.py
_lock = threading.Lock()
_shared: dict[tuple, tuple] = {}  # (model path, engine settings) -> (InprocessTransport, PromptRenderer)


def make_lm(model: str | None = None, *, server: str | None = None, server_kind: str = "auto",
            api_key: str | None = None, max_model_len: int = 8192, kv_cache_gib: float | None = None,
            max_tokens: int = 1024, temperature: float = 0.0, cache: bool = True, num_retries: int = 0,
            timeout_s: float = 600.0, policy: str = "priority", **engine_kwargs) -> dspy.LM:
    """A dspy.LM on vLLM. `model`: registered name, HF folder or hub id (`glm_dspy.lm.models.resolve_model`).

    server=None: the in-process engine (started by the first call, shared); `engine_kwargs` go to vLLM's
    EngineArgs (e.g. enforce_eager=False, block_size=..., num_gpu_blocks_override=...,
    scheduler_cls=...). server="http://host:port": GLM's engine on that vLLM OpenAI server, or,
    where `server_kind` says so or the server is not vLLM serving our local model, DSPy's
    `dspy.LM("openai/<model>", api_base=...)` (`model` then names the served model; default: the one
    it serves; `api_key` for servers that ask one; glm_dspy/lm/server_lm.py); `timeout_s` per read;
    in-process, `timeout_s` per call (a call still unfinished then is aborted: lm15.TimeoutError).
    `kv_cache_gib`: the in-process KV cache (module doc). num_retries=0 because a local engine's
    failure is not transient noise: a dead engine fails every later call at once, with an error
    naming the query it stopped; nothing of that query is kept, so it must be asked again.
    `policy`: the in-process engine's KV-cache eviction, "priority" (the four tiers,
    backends/vllm_priority) or "lru" (stock vLLM), with the scheduler variant (sync or async) the
    engine will run (`glm_dspy.backends.vllm_priority.policies`); a server's policy is set where it is
    started (`python -m glm_dspy.backends.vllm_priority.serve`).
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {sorted(POLICIES)}, got {policy!r}")
    if server is None and (api_key is not None or server_kind != "auto"):
        raise ValueError("--api-key and --server-kind are for a --server (make_lm(server=URL)); the in-process engine "
                         "takes neither")
    if server is not None:
        from glm_dspy.lm.server_lm import server_lm

        if engine_kwargs:
            raise TypeError(f"{sorted(engine_kwargs)} configure the in-process engine; with server={server!r} "
                            "give them to the server's command line instead")
        generic, glm = server_lm(server, model, server_kind=server_kind, api_key=api_key, timeout_s=timeout_s,
                                 max_tokens=max_tokens, temperature=temperature, cache=cache, num_retries=num_retries)
        if generic is not None:
            return generic
        transport, renderer = glm
        model_path = renderer.tokenizer.name_or_path
    else:
        model_path, verify = resolve_model_later(model)
        transport, renderer = _inprocess_transport(model_path, max_model_len, kv_cache_gib_for(kv_cache_gib),
                                                   engine_kwargs, verify, policy=policy)
    engine = VllmEngine(transport, renderer, model=_lm_name(model, model_path), default_max_tokens=max_tokens,
                        timeout_s=None if server is not None else timeout_s)
    return dspy.LM(engine.model, engine=engine, async_engine=AsyncVllmEngine(engine), temperature=temperature,
                   max_tokens=max_tokens, cache=cache, num_retries=num_retries)


def engine_arguments(policy: str, engine_kwargs: dict, *, gpu: bool) -> dict:
    """The in-process engine's arguments: `engine_kwargs`, and the scheduler variant of `policy`
    that an engine scheduling as this one will (asynchronously or not) runs, unless one is given."""
    chosen = scheduler_cls(policy, asynchronous=runs_async_scheduling(
        gpu=gpu, async_scheduling=engine_kwargs.get("async_scheduling")))
    return {**({"scheduler_cls": chosen} if chosen is not None else {}), **engine_kwargs}


def _inprocess_transport(model_path: str, max_model_len: int, kv_cache_gib: float, engine_kwargs: dict,
                         verify=None, *, policy: str = "priority"):
    """The shared (transport, renderer) for these settings: a LazyTransport whose engine the first
    LLM call starts, or the live engine a restart left in its place, and a LazyRenderer whose
    tokenizer the first call loads (glm_dspy/lm/lazy.py). `verify` (`resolve_model_later`), where
    given, runs once, before the first of them reads the model folder."""
    from glm_dspy.lm.inprocess import InprocessTransport
    from glm_dspy.lm.lazy import LazyRenderer, LazyTransport, OnFirstUse

    key = (model_path, max_model_len, kv_cache_gib, policy, repr(sorted(engine_kwargs.items())))
    with _lock:
        if key in _shared:
            transport, renderer = _shared[key]
            if isinstance(transport, LazyTransport) and not transport.is_started:
                return _shared[key]
            transport = transport.started() if isinstance(transport, LazyTransport) else transport
            while transport.successor is not None:  # restarted after it died (VllmEngine.recover)
                transport = transport.successor
            _shared[key] = transport, renderer
            if transport.is_alive():
                return _shared[key]
        verified = OnFirstUse(verify or (lambda: model_path))  # nothing to verify: a folder or hub id as given

        def load_renderer():
            verified.started()
            return PromptRenderer.from_pretrained(model_path)

        def start_engine():
            verified.started()
            # whether a GPU is there is torch's to say: asked here, so a process no LLM call is
            # made in never imports it (bench/cold_ask.py)
            return InprocessTransport(model_path, max_model_len=max_model_len, kv_cache_gib=kv_cache_gib,
                                      **engine_arguments(policy, engine_kwargs, gpu=_has_gpu()))

        renderer, transport = LazyRenderer(load_renderer), LazyTransport(start_engine)
        _shared[key] = transport, renderer
        return _shared[key]


def kv_cache_gib_for(kv_cache_gib: float | None, environ=os.environ) -> float:
    """The in-process KV cache in GiB: the argument, else VLLM_CPU_KVCACHE_SPACE, else 2 (module doc)."""
    where = "kv_cache_gib"
    if kv_cache_gib is None:
        space = environ.get(KV_CACHE_ENV, "")
        if space == "":
            return DEFAULT_KV_CACHE_GIB
        where = f"{KV_CACHE_ENV}={space!r}"
        try:
            kv_cache_gib = int(space)  # vLLM reads it as a whole number of GiB too
        except ValueError:
            raise ValueError(f"{where} is not a whole number of GiB; set it to e.g. 2, or pass "
                             "make_lm(kv_cache_gib=...)") from None
    if not kv_cache_gib > 0:
        raise ValueError(f"{where} gives the KV cache {kv_cache_gib} GiB; it needs more than 0 (e.g. 2)")
    return float(kv_cache_gib)


def _has_gpu() -> bool:
    import torch  # the in-process engine imports it anyway

    return torch.cuda.is_available()


def _lm_name(model: str | None, model_path: str) -> str:
    """dspy.LM's model string. It keys DSPy's response cache, so it names the exact model: the
    registered name (its folder is checksum-verified), else the absolute folder, else the hub id."""
    name = model or os.environ.get("GLM_MODEL") or DEFAULT_MODEL
    if name in MODELS:
        return f"vllm/{name}"
    return f"vllm/{Path(model_path).resolve()}" if Path(model_path).is_dir() else f"vllm/{model_path}"
