"""The DSPy engine: `dspy.lm15.Request` -> chat template + segments -> transport -> `Response`.

Implements the engine protocol of dspy 3.4.1 (`dspy/clients/engines/base.py`): `complete`,
`stream`, `close`, one attempt per call; DSPy owns its response cache, retries and history.
What a request may ask: text messages (system/user/assistant), max_tokens, temperature, top_p,
top_k, seed, stop, frequency/presence penalties, the sampled tokens' logprobs (`logprobs`: each
token's and its n most likely alternatives', n <= 20: transport.py `Chunk`), and a
grammar for the reply (glm_dspy/lm/structured.py). Anything else (tools, response_format, provider
prompt-cache configs, other extensions) is refused with `lm15.UnsupportedFeatureError`, which
DSPy raises as `LMUnsupportedFeatureError`.

Usage of every call: `Usage(input_tokens, output_tokens, cache_read_tokens)` as vLLM counted them;
`Response.provider_data["glm"]` adds the query id, the segments, the sampling temperature and
timings (seconds). The same facts go to `engine.calls`, a bounded log of the latest calls (newest
last) that benchmarks read, and to the caller's `observe_calls` blocks (observe.py).

A call the engine could not answer raises the transport's dspy.lm15 error with the query id in
front of its message ("query q-17: the in-process vLLM engine ... died: ..."), so the user
knows which question was lost.
"""

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass

from dspy import lm15

from glm_dspy.backends.vllm_priority.hints import encode_hints
from glm_dspy.graphs.deadline import DeadlinePassed, remaining_s
from glm_dspy.lm.observe import report_call
from glm_dspy.lm.query import current_decoding_listener, current_query_id, listen_for_finished_queries
from glm_dspy.lm.render import PromptRenderer, RenderedPrompt
from glm_dspy.lm.structured import grammar_of
from glm_dspy.lm.transport import MAX_LOGPROBS, Chunk, GenerationParams, Transport

_FINISH_REASONS = {"stop": "stop", "length": "length", "abort": "error"}
_REFUSED_CONFIG = ("tool_choice", "response_format", "reasoning", "cache", "probabilities",
                   "service_tier", "user_id", "store")  # extensions: only a grammar (lm/structured.py)


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One finished LM call as the engine saw it. Times are seconds; `first_token_s` is the time to
    the first text delta when streaming, the whole call otherwise. `finish_reason` is vLLM's
    ("length": the output stopped at `max_tokens`); `temperature` and `max_tokens` are what was
    sent to vLLM."""

    query_id: str | None
    transport: str
    streamed: bool
    num_prompt_tokens: int | None
    num_cached_tokens: int | None
    num_output_tokens: int | None
    segments: tuple[tuple[int, int, int], ...]
    finish_reason: str
    started_at: float
    first_token_s: float
    latency_s: float
    temperature: float
    max_tokens: int


class VllmEngine:
    """DSPy engine over one transport; thread-safe (dspy.Parallel calls `complete` concurrently)."""

    # Capability declarations read by dspy's capabilities() for custom engines (clients/capabilities.py):
    # no tools, no native reasoning, no response_format, so JSONAdapter sends plain prompts.
    supports_function_calling = False
    supports_reasoning = False
    supports_response_schema = False
    supported_params = frozenset({"max_tokens", "temperature", "top_p", "top_k", "seed", "stop",
                                  "frequency_penalty", "presence_penalty", "logprobs", "top_logprobs"})

    def __init__(self, transport: Transport, renderer: PromptRenderer, *, model: str,
                 default_max_tokens: int = 1024, num_logged_calls: int = 10_000, timeout_s: float | None = None) -> None:
        self.transport = transport
        self.timeout_s = timeout_s  # per call, enforced by the transport (lm15.TimeoutError)
        self.renderer = renderer
        self.model = model
        self.default_max_tokens = default_max_tokens
        self.calls: deque[CallRecord] = deque(maxlen=num_logged_calls)
        self._open_queries: set[str] = set()  # served and not yet finished
        self._finished_queries: list[str] = []  # done since the last request; sent with the next one
        self._finished_lock = threading.Lock()
        self._recover_lock = threading.Lock()
        self.num_recoveries = 0
        listen_for_finished_queries(self)

    def finish_query(self, query_id: str) -> None:
        """Tell the cache policy the query is done (its notebook: tier II -> III). The id rides on
        the next request (`glm_finished_queries`), which is before any block could be evicted.
        A query this engine never served is ignored."""
        with self._finished_lock:
            if query_id in self._open_queries:
                self._open_queries.discard(query_id)
                self._finished_queries.append(query_id)

    def _hints(self, query_id: str | None, prompt: RenderedPrompt) -> dict:
        with self._finished_lock:
            finished, self._finished_queries = self._finished_queries, []
            if query_id is not None:
                self._open_queries.add(query_id)
        return encode_hints(query_id, prompt.segments, finished)

    def complete(self, request: lm15.Request) -> lm15.Response:
        """One call. Under a decoding listener (glm_dspy/lm/query.py) the engine streams it and
        the listener gets each text delta as it is decoded; the response is the same."""
        prompt, params, query_id = self._prepare(request)
        listener = current_decoding_listener()
        started, started_at = time.perf_counter(), time.time()
        first_token_s = None
        chunks = []
        timeout_s, is_cut = self._call_timeout()
        with _naming_query(query_id), _deadline_cut(is_cut):
            for chunk in self.transport.generate(list(prompt.token_ids), params, self._hints(query_id, prompt),
                                                 stream=listener is not None, timeout_s=timeout_s):
                chunks.append(chunk)
                if listener is not None and chunk.text:
                    first_token_s = first_token_s or time.perf_counter() - started
                    listener(chunk.text)
        text = "".join(chunk.text for chunk in chunks)
        elapsed = time.perf_counter() - started
        record = self._record(prompt, params, query_id, chunks[-1], started_at, first_token_s or elapsed, elapsed,
                              streamed=listener is not None)
        logprobs = tuple(token for chunk in chunks for token in chunk.logprobs)
        return lm15.Response(id=None, model=self.model, message=lm15.Message.assistant([lm15.TextPart(text)]),
                             finish_reason=_FINISH_REASONS.get(record.finish_reason, "stop"),
                             usage=_usage(chunks[-1]), provider_data={"glm": _as_json(record)},
                             logprobs=logprobs if params.logprobs is not None else None)

    def stream(self, request: lm15.Request) -> Iterator:
        """Canonical events: one start, a text delta per engine step, one end with usage."""
        prompt, params, query_id = self._prepare(request)
        started, started_at = time.perf_counter(), time.time()
        first_token_s = None
        timeout_s, is_cut = self._call_timeout()
        yield lm15.StreamStartEvent(model=self.model)
        generation = self.transport.generate(list(prompt.token_ids), params, self._hints(query_id, prompt),
                                             stream=True, timeout_s=timeout_s)
        try:
            while True:
                with _naming_query(query_id), _deadline_cut(is_cut):
                    chunk = next(generation, None)
                if chunk is None:
                    return
                if chunk.text:
                    first_token_s = first_token_s or time.perf_counter() - started
                    yield lm15.StreamDeltaEvent(lm15.TextDelta(chunk.text, logprobs=chunk.logprobs))
                if chunk.finish_reason is not None:
                    elapsed = time.perf_counter() - started
                    record = self._record(prompt, params, query_id, chunk, started_at, first_token_s or elapsed,
                                          elapsed, streamed=True)
                    yield lm15.StreamEndEvent(finish_reason=_FINISH_REASONS.get(record.finish_reason, "stop"),
                                              usage=_usage(chunk), provider_data={"glm": _as_json(record)})
        finally:
            generation.close()  # aborts the request in vLLM if the consumer stopped early

    def _call_timeout(self) -> tuple[float | None, bool]:
        """(the next call's timeout, whether the question's deadline set it): the engine's own
        per-call limit, cut to the time left before the thread's deadline (graphs/deadline.py,
        set by GLM over a whole question). Past the deadline no call starts: DeadlinePassed."""
        remaining = remaining_s()
        if remaining is None:
            return self.timeout_s, False
        if remaining <= 0:
            raise DeadlinePassed("the question's time ran out before an LLM call")
        if self.timeout_s is None or remaining < self.timeout_s:
            return remaining, True
        return self.timeout_s, False

    def close(self) -> None:
        """Stop the transport (an in-process engine is freed; shared by every LM built on it)."""
        self.transport.close()

    def recover(self, lost: Transport) -> bool:
        """Replace the transport `lost` (whose engine died or server went away) by a restarted one:
        a new in-process engine, or a new connection to the server. Many threads see the same
        loss; only the first restarts, and the others find `lost` already replaced (False)."""
        with self._recover_lock:
            if self.transport is not lost:
                return False
            transport = lost.restarted()  # an in-process engine restarts once for every LM sharing it
            while getattr(transport, "successor", None) is not None:  # it died again since
                transport = transport.successor
            self.transport = transport if getattr(transport, "is_alive", lambda: True)() else transport.restarted()
            self.num_recoveries += 1
            return True

    def __deepcopy__(self, memo) -> "VllmEngine":
        # An engine is a connection, not a parameter: DSPy deep-copies programs (optimizers,
        # Module.deepcopy) and their LMs, and every copy must keep talking to the same vLLM engine.
        return self

    def render(self, request: lm15.Request) -> RenderedPrompt:
        """The exact prompt a request would send (tokens + segments), without sending it."""
        return self.renderer.render(_chat_messages(request))

    def _prepare(self, request: lm15.Request) -> tuple[RenderedPrompt, GenerationParams, str | None]:
        """Validate, render, and read the query id from the calling context (for a stream: on its first step)."""
        if not isinstance(request, lm15.Request):
            raise TypeError(f"VllmEngine takes a dspy.lm15.Request, got {type(request).__name__}")
        params = _generation_params(request.config, self.default_max_tokens)
        return self.render(request), params, current_query_id()

    def _record(self, prompt, params: GenerationParams, query_id, last: Chunk, started_at, first_token_s, latency_s, *,
                streamed) -> CallRecord:
        record = CallRecord(
            query_id=query_id, transport=self.transport.name, streamed=streamed,
            num_prompt_tokens=last.num_prompt_tokens, num_cached_tokens=last.num_cached_tokens,
            num_output_tokens=last.num_output_tokens,
            segments=tuple((s.start, s.end, int(s.tier)) for s in prompt.segments),
            finish_reason=last.finish_reason or "stop", started_at=started_at,
            first_token_s=first_token_s, latency_s=latency_s, temperature=params.temperature,
            max_tokens=params.max_tokens)
        self.calls.append(record)
        report_call(record)
        return record


class AsyncVllmEngine:
    """The async counterpart DSPy wants for `acall`/`aforward`: the sync engine run in worker threads
    (asyncio.to_thread copies the context, so the query id set by `query_context` is seen)."""

    def __init__(self, sync: VllmEngine) -> None:
        self.sync = sync
        for name in ("supports_function_calling", "supports_reasoning", "supports_response_schema",
                     "supported_params"):
            setattr(self, name, getattr(sync, name))

    async def complete(self, request: lm15.Request) -> lm15.Response:
        import asyncio

        return await asyncio.to_thread(self.sync.complete, request)

    async def stream(self, request: lm15.Request):
        import asyncio

        events = self.sync.stream(request)
        done = object()
        try:
            while (event := await asyncio.to_thread(next, events, done)) is not done:
                yield event
        finally:
            await asyncio.to_thread(events.close)

    async def aclose(self) -> None:
        """Borrowed: the sync engine's owner closes the transport."""

    def __deepcopy__(self, memo) -> "AsyncVllmEngine":
        return self


_ENGINE_FAILURES = (lm15.ServerError, lm15.TransportError, lm15.TimeoutError)


@contextmanager
def _deadline_cut(is_cut: bool):
    """A call whose timeout was the question's remaining time, timed out: the deadline passed."""
    try:
        yield
    except lm15.TimeoutError as error:
        if is_cut:
            raise DeadlinePassed(f"the question's time ran out during an LLM call: {str(error).splitlines()[0]}") \
                from None
        raise


@contextmanager
def _naming_query(query_id: str | None) -> Iterator[None]:
    """A transport failure, raised again (same class) with the query id in front of its message."""
    try:
        yield
    except _ENGINE_FAILURES as error:
        if query_id is None:
            raise
        raise type(error)(f"query {query_id}: {error.message}", code=error.code, provider=error.provider,
                          provider_code=error.provider_code, status=error.status,
                          request_id=error.request_id) from error


def _chat_messages(request: lm15.Request) -> list[dict[str, str]]:
    """The request as chat-template messages; refuses what a text-only chat template cannot carry."""
    if request.tools:
        raise lm15.UnsupportedFeatureError("the GLM vLLM engine sends no tools; use text signatures "
                                           "(DSPy's ChatAdapter/JSONAdapter without native function calling)",
                                           feature="tools")
    messages = []
    if request.system is not None:
        messages.append({"role": "system", "content": _text(request.system, "system")})
    for index, message in enumerate(request.messages):
        role = "system" if message.role == "developer" else message.role
        if role not in ("system", "user", "assistant"):
            raise lm15.UnsupportedFeatureError(f"messages[{index}] has role {message.role!r}; the GLM vLLM engine "
                                               "takes system, user and assistant text", feature=f"messages[{index}]")
        messages.append({"role": role, "content": _text(message.parts, f"messages[{index}]")})
    return messages


def _text(parts, where: str) -> str:
    if isinstance(parts, str):
        return parts
    for index, part in enumerate(parts):
        if not isinstance(part, lm15.TextPart):
            raise lm15.UnsupportedFeatureError(f"{where}.parts[{index}] is a {type(part).__name__}; the GLM vLLM "
                                               "engine takes text only", feature=f"{where}.parts[{index}]")
    return "\n".join(part.text for part in parts)  # vLLM's own join for multi-part text content


def _generation_params(config: lm15.Config, default_max_tokens: int) -> GenerationParams:
    for name in _REFUSED_CONFIG:
        if getattr(config, name) is not None:
            raise lm15.UnsupportedFeatureError(f"config.{name} is not supported by the GLM vLLM engine "
                                               f"(it supports {sorted(VllmEngine.supported_params)})",
                                               feature=f"config.{name}")
    if config.top_p == 0:
        raise lm15.InvalidRequestError("top_p=0 selects no token in vLLM; use temperature=0 for greedy decoding")
    if config.logprobs is not None and not 0 <= config.logprobs <= MAX_LOGPROBS:
        raise lm15.InvalidRequestError(f"logprobs={config.logprobs}: the GLM vLLM engine gives each token's logprob "
                                       f"and 0..{MAX_LOGPROBS} alternatives (top_logprobs)")
    return GenerationParams(
        max_tokens=config.max_tokens or default_max_tokens,
        temperature=0.0 if config.temperature is None else config.temperature,
        top_p=1.0 if config.top_p is None else config.top_p, top_k=config.top_k or 0, seed=config.seed,
        stop=tuple(config.stop), frequency_penalty=config.frequency_penalty or 0.0,
        presence_penalty=config.presence_penalty or 0.0, grammar=grammar_of(config), logprobs=config.logprobs)


def _usage(last: Chunk) -> lm15.Usage:
    return lm15.Usage(input_tokens=last.num_prompt_tokens, output_tokens=last.num_output_tokens,
                      cache_read_tokens=last.num_cached_tokens)


def _as_json(record: CallRecord) -> dict:
    data = asdict(record)
    data["segments"] = [list(segment) for segment in record.segments]
    return data
