"""What running one snippet produced."""

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class ExecResult:
    """The outcome of `SnippetExecutor.run`.

    `output` is what the snippet printed, at most `max_output_chars` characters (on a timeout or
    a dead worker it is empty: the worker's buffer is lost). `error` is None on success, else one
    line "<Type>: <message> (line N)"; the line is left out where no snippet line applies
    (a timeout, a dead worker, output over the limit caught by the snippet). Types the executor
    adds to Python's own: "PolicyError" (the code uses something the sandbox forbids, found at
    compile time), "OutputLimitError" (printed more than the limit; `output` keeps the first
    `max_output_chars` characters). `duration_s` is the wall time the worker spent on the snippet,
    graph calls included; `num_calls` counts graph-function calls the parent served, and `calls`
    lists them in order as (function name, returned value; None where the function raised),
    values as the functions returned them (an `Observation` stays one).
    `is_observation_only`: the snippet printed something, and every print that wrote
    non-blank text printed a graph function's `Observation` (glm_dspy/retrieval/observation.py; the
    rule is `PrintCollector`'s) — it got told its input was bad, and found nothing.
    """

    output: str
    error: str | None
    duration_s: float
    num_calls: int
    calls: tuple[tuple[str, Any], ...] = field(default=())
    is_observation_only: bool = False

    def __post_init__(self) -> None:
        assert isinstance(self.output, str), type(self.output)
        assert self.error is None or (isinstance(self.error, str) and self.error), self.error
        assert self.duration_s >= 0, self.duration_s
        assert self.num_calls >= 0, self.num_calls
        assert not self.calls or len(self.calls) == self.num_calls, (len(self.calls), self.num_calls)
        assert isinstance(self.is_observation_only, bool), self.is_observation_only

    @property
    def is_ok(self) -> bool:
        return self.error is None
