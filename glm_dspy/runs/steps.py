"""The step log of one GLM query: what each agent call cost and what each snippet did."""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import dspy

UNEXPECTED_OUTPUT = "unexpected agent output"
RETRIEVAL_ERROR = "retrieval error"
CODE_ERROR = "code execution error"
STEP_LIMIT = "step limit exceeded"
TIME_LIMIT = "time limit exceeded"  # the question's deadline passed (ours; not in the paper's table)
NOT_SURE = "not sure"  # no agent answered and the best reading was not sure (ours: prediction.guess holds it)
ERROR_CATEGORIES = (UNEXPECTED_OUTPUT, RETRIEVAL_ERROR, CODE_ERROR, STEP_LIMIT, TIME_LIMIT, NOT_SURE)  # Table 5 + ours
# The fields every arm's `dspy.Prediction` has (StepLog.prediction); glm_dspy.evaluation.evaluate records them.
PREDICTION_FIELDS = ("answer", "steps", "error_category", "num_calls", "prompt_tokens", "cached_tokens",
                     "completion_tokens")
# GLM's agents; "graph": a snippet GLM ran itself (no LLM call); "answer": a baseline's one
# call; "graphcot": one Graph-CoT Thought/Action step; "cypher": Text2Cypher writing a query;
# "plan", "judge", "reflect": Graph Counselor's agents (modules/counselor.py); "community": FastToG's
# fine pruning
AGENTS = ("classify", "reason", "act", "graph", "answer", "graphcot", "cypher", "plan", "judge", "reflect",
          "community", "choose")
WRITERS = ("act", "cypher")  # the agents that write code for a request: their steps say `attempt` and `ok`


@dataclass(slots=True)
class Step:
    agent: str  # one of AGENTS
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    num_calls: int = 0  # LLM calls, retries included
    latency_s: float = 0.0
    code: str | None = None
    output: str | None = None
    error: str | None = None
    # the sampling temperature of each LLM call, in call order, as the engine ran it (a parse
    # retry runs at calls.RETRY_TEMPERATURE); empty where the engine reports no calls (not vLLM)
    temperatures: tuple[float, ...] = ()
    num_truncated: int = 0  # LLM calls whose output stopped at max_tokens (as the engine reported)
    # writers only: which try at its request this step is, 0 a new request, n its n-th sample
    # (act) or repair (cypher)
    attempt: int = 0
    # act only: whether its snippet ran without error, printed, and printed more than graph-function
    # observations (a real result); None for the other agents and where nobody said (old records)
    ok: bool | None = None
    # act only: a snippet drawn at the sample temperature after the first try failed (its `attempt`
    # counts the samples), not a repair
    sampled: bool = False
    # the call was not made again: its outputs were replayed from the query's journal (a resumed
    # query, glm_dspy/runs/journal.py); its tokens are those of the run that made it
    replayed: bool = False
    # act only, pipelined (glm_dspy/retrieval/pipeline.py): RetrieveNode lookups started while the snippet was
    # still being decoded, their time, and how much of it ran before decoding ended
    prefetched: int = 0
    prefetch_s: float = 0.0
    prefetch_hidden_s: float = 0.0
    # writers only: the model's own text, before any rewrite, and each rewrite that changed it, in
    # order: {"name", "before", "after"} (Text2Cypher's passes, rewrites.py); `code` is what ran
    raw: str | None = None
    rewrites: tuple[dict, ...] = ()
    # the LM the step's calls ran on (glm_dspy/lm/backend.py: "inprocess", "server" = GLM's engine;
    # "generic" = any other dspy.LM) and whether they carried the cache-tier hints (GLM's engine
    # only); None where the step made no LLM call
    backend: str | None = None
    hints_sent: bool | None = None

    def __post_init__(self):
        assert self.agent in AGENTS, self.agent
        assert self.attempt >= 0 and (self.attempt == 0 or self.agent in WRITERS), (self.agent, self.attempt)
        assert self.ok is None or self.agent in WRITERS, (self.agent, self.ok)
        assert not self.sampled or (self.agent == "act" and self.attempt > 0), (self.agent, self.attempt)
        assert self.prefetched == 0 or self.agent == "act", (self.agent, self.prefetched)
        assert (self.raw is None and not self.rewrites) or self.agent in WRITERS, (self.agent, self.rewrites)
        self.rewrites = tuple(self.rewrites)  # a journaled step's list
        assert self.cached_tokens <= self.prompt_tokens or self.prompt_tokens == 0
        assert len(self.temperatures) <= self.num_calls and 0 <= self.num_truncated <= self.num_calls, self
        assert (self.backend is None) == (self.hints_sent is None), (self.backend, self.hints_sent)

    def as_dict(self) -> dict:
        return asdict(self)


def act_first_tries(steps: list[dict]) -> tuple[int, int]:
    """(Act requests, those whose first try succeeded) in one query's steps (`Step.as_dict`s); an
    Act in Cypher (GLM(act="cypher"), Text2Cypher) counts the same way: its first query ran and
    returned rows.

    An Act request is an act step with `attempt` 0: a new request (the question, or what
    Reason said was missing), not a repair. Its first try succeeded when its first snippet ran
    without error, printed something, and was not observation-only (every print a graph
    function's `Observation` such as "no node with id ..."): `ok` is True. Output that could
    not be parsed into a snippet, after `call_agent`'s one parse retry, is a failed first try.
    Act steps whose `ok` is None (recorded before it existed) are not counted at all.
    """
    firsts = [s for s in steps if s["agent"] in WRITERS and s.get("attempt", 0) == 0 and s.get("ok") is not None]
    return len(firsts), sum(bool(s["ok"]) for s in firsts)


_listener: contextvars.ContextVar[Callable[[Step], None] | None] = contextvars.ContextVar("glm_step_listener",
                                                                                         default=None)


@contextmanager
def listening(listener: Callable[[Step], None]) -> Iterator[None]:
    """Every StepLog made inside the block (e.g. by one GLM query) tells `listener` of each step
    once it is complete: when the next step is added (a step is filled in until then: an act
    step gets its snippet's output after it is added), a step added unsettled when it is
    settled, and the rest when the log's prediction is made. The final prediction's steps are
    authoritative (a kept sample is marked `ok` only after every sample ran).

    A module that runs another (GLM running Text2Cypher) runs it under `listening(log.add)`:
    the inner log's steps join the outer log as they complete, and the outer log alone tells
    its listener, each step once, in order."""
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


@dataclass(slots=True)
class StepLog:
    steps: list[Step] = field(default_factory=list)
    listener: Callable[[Step], None] | None = field(default_factory=_listener.get)
    _num_told: int = 0
    _unsettled: set[int] = field(default_factory=set)  # id()s of steps added unsettled, not yet settled
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, step: Step, *, settled: bool = True) -> Step:
        """Append `step`; the one before it is complete now and is told. An unsettled step (a
        writer's, whose `ok` is known only after the steps that run its code) is told, and
        holds back the steps after it, until `settle(step)` or the prediction."""
        with self._lock:
            self.steps.append(step)
            if not settled:
                self._unsettled.add(id(step))
            self._tell(len(self.steps) - 1)
        return step

    def settle(self, step: Step) -> None:
        """`step`, added unsettled, is complete: it and the complete steps after it are told."""
        with self._lock:
            self._unsettled.discard(id(step))
            self._tell(len(self.steps) - 1)

    def _tell(self, up_to: int, *, all_settled: bool = False) -> None:
        """Tell the listener of steps [told, up_to), stopping at an unsettled one unless
        `all_settled` (under the lock: in order, each once)."""
        while self.listener is not None and self._num_told < up_to and \
                (all_settled or id(self.steps[self._num_told]) not in self._unsettled):
            self.listener(self.steps[self._num_told])
            self._num_told += 1

    @property
    def num_calls(self) -> int:
        return sum(s.num_calls for s in self.steps)

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.steps)

    @property
    def cached_tokens(self) -> int:
        return sum(s.cached_tokens for s in self.steps)

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.steps)

    @property
    def num_truncated(self) -> int:
        return sum(s.num_truncated for s in self.steps)

    def prediction(self, answer: str | None, error_category: str | None, **extra) -> dspy.Prediction:
        """The result of one question, the same shape for every arm: `PREDICTION_FIELDS` (the
        answer, "" for none; the steps as dicts; the error category, None or one of
        `ERROR_CATEGORIES`; this log's totals), then the arm's own `extra` fields."""
        assert error_category is None or error_category in ERROR_CATEGORIES, error_category
        with self._lock:
            self._unsettled.clear()
            self._tell(len(self.steps), all_settled=True)
        clash = sorted(set(extra) & set(PREDICTION_FIELDS))
        assert not clash, f"extra fields {clash} would overwrite the shared ones"
        return dspy.Prediction(answer=answer or "", steps=[s.as_dict() for s in self.steps],
                               error_category=error_category, num_calls=self.num_calls,
                               prompt_tokens=self.prompt_tokens, cached_tokens=self.cached_tokens,
                               completion_tokens=self.completion_tokens, **extra)
