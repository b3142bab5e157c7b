"""What the DSPy engine asks of a transport (in-process vLLM or an OpenAI-compatible vLLM server).

A transport takes prompt token ids, sampling parameters and the encoded cache hints, and yields
`Chunk`s: text deltas, the last one carrying the finish reason and the token counts as the vLLM
engine counted them. Both transports send the same ids and the same `extra_args`, so a program
behaves the same on either. Failures are raised as dspy.lm15 errors with a message that says what
failed, where, and what to do; a failure after which no call can succeed (the engine died or is
closed, the server cannot be reached) is also an `EngineLostError`.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from dspy import lm15

MAX_LOGPROBS = 20  # alternatives a call may ask for at each token (vLLM's default max_logprobs)


def cause_of(error: BaseException | None, kind: type[BaseException] | tuple[type[BaseException], ...]):
    """The first exception of `kind` along `error`'s causes (itself, then what it was raised
    from: DSPy raises its own errors `from` ours), or None."""
    seen = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, kind):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def timed_out(error: BaseException | None) -> bool:
    """Whether `error` is, or was raised from, a timeout (DSPy raises its own errors `from` ours)."""
    return cause_of(error, lm15.TimeoutError) is not None


class EngineLostError(Exception):
    """Mixed into the dspy.lm15 error of a transport whose engine can answer no more calls: every
    later call fails the same way until a new LM is built. DSPy raises its own error class from
    it (`raise LMServerError(...) from error`), so look for it along `__cause__`."""


def engine_lost(error: BaseException | None) -> BaseException | None:
    """What says, along `error`'s causes, that no later call can succeed: our transports'
    `EngineLostError`, or a refused connection under any other client (DSPy's own LM raises
    LMTransportError from lm15's ConnectError from `ConnectionRefusedError`); else None."""
    return cause_of(error, (EngineLostError, ConnectionRefusedError))


@dataclass(frozen=True, slots=True)
class GenerationParams:
    """Sampling parameters of one call. Greedy (temperature 0) unless the request says otherwise."""

    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    top_k: int = 0  # 0 = off (vLLM's default; -1 is also accepted by vLLM)
    seed: int | None = None
    stop: tuple[str, ...] = ()
    frequency_penalty: float = 0.0
    presence_penalty: float = 0.0
    grammar: str | None = None  # xgrammar EBNF the reply must match (vLLM structured outputs); None: free
    logprobs: int | None = None  # None: none; n >= 0: each sampled token's logprob and its n most likely others

    def __post_init__(self) -> None:
        assert isinstance(self.max_tokens, int) and self.max_tokens > 0, self.max_tokens
        assert 0.0 <= self.temperature <= 2.0, self.temperature
        assert 0.0 < self.top_p <= 1.0, self.top_p
        assert all(isinstance(s, str) and s for s in self.stop), self.stop
        assert self.logprobs is None or (isinstance(self.logprobs, int) and 0 <= self.logprobs <= MAX_LOGPROBS), \
            self.logprobs


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of output. Only the last chunk of a generation has `finish_reason` (vLLM's words:
    "stop", "length", "abort") and the counts; `num_cached_tokens` counts prompt tokens served from
    vLLM's prefix cache (whole KV blocks only). `logprobs`, where the call asked for them, holds one
    `lm15.TokenLogprob` for each token of `text` (the in-process engine scores them after a grammar's
    mask, so its alternatives are tokens the grammar allowed; vllm 0.32's server scores them before
    it: a reader renormalizes over the tokens it allows)."""

    text: str
    finish_reason: str | None = None
    num_prompt_tokens: int | None = None
    num_cached_tokens: int | None = None
    num_output_tokens: int | None = None
    logprobs: tuple[lm15.TokenLogprob, ...] = ()


class Transport(Protocol):
    """Owner of one connection to one vLLM engine; safe to call from many threads at once."""

    name: str  # "inprocess" or "server", for logs and the call log

    def generate(self, prompt_ids: list[int], params: GenerationParams, extra_args: dict, *,
                 stream: bool, timeout_s: float | None = None) -> Iterator[Chunk]:
        """Yield the output; with stream=False a single final chunk. Closing the iterator early
        aborts the request in the engine. `timeout_s`: a call not finished by then raises
        lm15.TimeoutError and is aborted (the server transport's own limit is per read)."""
        ...

    def close(self) -> None: ...

    def restarted(self) -> "Transport":
        """Close this one and return a new transport to the same engine: a fresh in-process
        engine, or a new connection to the same server (VllmEngine.recover)."""
        ...
