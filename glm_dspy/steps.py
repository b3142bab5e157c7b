"""The step log of one GLM query: what each agent call cost and what each snippet did."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

UNEXPECTED_OUTPUT = "unexpected agent output"
RETRIEVAL_ERROR = "retrieval error"
CODE_ERROR = "code execution error"
STEP_LIMIT = "step limit exceeded"  # the four error categories of GLM paper Table 5
# GLM's agents; "graph": a snippet GLM ran itself (no LLM call); "answer": a baseline's one
# call; "graphcot": one Graph-CoT Thought/Action step
AGENTS = ("classify", "reason", "act", "graph", "answer", "graphcot")


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

    def __post_init__(self):
        assert self.agent in AGENTS, self.agent
        assert self.cached_tokens <= self.prompt_tokens or self.prompt_tokens == 0
        assert len(self.temperatures) <= self.num_calls and 0 <= self.num_truncated <= self.num_calls, self

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(slots=True)
class StepLog:
    steps: list[Step] = field(default_factory=list)

    def add(self, step: Step) -> Step:
        self.steps.append(step)
        return step

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
