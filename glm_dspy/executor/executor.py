"""`SnippetExecutor`: runs the Act agent's Python snippets in a small pool of sandboxed workers.

Invariants:
- Each worker serves one snippet of one thread at a time: `_slots` hands a slot to exactly one
  `run`, which puts it back when done. A slot holds a live idle worker or None; None is filled
  by spawning a fresh worker on the next `run` (lazily, e.g. after a timeout killed one).
- The parent owns all database access: the graph functions run only here, on the thread that
  called `run`. With num_workers > 1 they may run on several threads at once.
- `run` never raises for anything a snippet does; it raises only for misuse (a closed executor,
  code that is not a str) or when a worker cannot start at all (a broken environment).
"""

import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from glm_dspy.executor.fence import strip_code_fence
from glm_dspy.executor.process import WorkerConfig, WorkerProcess
from glm_dspy.executor.result import ExecResult


class SnippetExecutor:
    """Run snippets that may call `functions` (by name), print, and use plain Python.

    Each snippet gets `timeout_s` of wall time (graph calls included: none starts after the
    deadline, and the database work of each ends by it, graphs/deadline.py), `memory_mb` of
    address space in its worker, and `max_output_chars` of printed output (past that it stops
    with an OutputLimitError and keeps the first `max_output_chars` characters); one graph call
    returns at most protocol.MAX_REPLY_BYTES. The security policy is glm_dspy/executor/policy.py.
    """

    def __init__(self, functions: Mapping[str, Callable[..., Any]], *, timeout_s: float = 5.0,
                 memory_mb: int = 512, max_output_chars: int = 4000, num_workers: int = 1):
        assert num_workers >= 1, num_workers
        assert all(callable(f) for f in functions.values()), "every function must be callable"
        self._functions = dict(functions)
        self._timeout_s = float(timeout_s)
        self._config = WorkerConfig(function_names=sorted(self._functions),
                                    timeout_s=self._timeout_s, memory_mb=memory_mb,
                                    max_output_chars=max_output_chars)
        self._slots: queue.SimpleQueue[WorkerProcess | None] = queue.SimpleQueue()
        for _ in range(num_workers):
            self._slots.put(None)
        self._closed = False
        self._lock = threading.Lock()  # guards _closed against a concurrent close()

    def run(self, code: str) -> ExecResult:
        """Run one snippet (a surrounding markdown fence is stripped first). Thread-safe."""
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, not {type(code).__name__}")
        code = strip_code_fence(code)
        worker = self._slots.get()
        try:
            if self._closed:
                raise RuntimeError("SnippetExecutor.run called after close()")
            if worker is None or not worker.is_alive:
                worker = WorkerProcess(self._config)
            started = time.monotonic()
            outcome = worker.run(code, self._functions, self._timeout_s)
            duration_s = time.monotonic() - started
            if not worker.is_alive:
                worker = None
        finally:
            with self._lock:
                if self._closed and worker is not None:
                    worker.kill()
                    worker = None
            self._slots.put(worker)
        return ExecResult(output=outcome.output, error=outcome.error, duration_s=duration_s,
                          num_calls=len(outcome.calls), calls=tuple(outcome.calls),
                          is_observation_only=outcome.is_observation_only)

    def close(self) -> None:
        """Kill the idle workers now and the busy ones when their snippet ends; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        idle = []
        while True:
            try:
                idle.append(self._slots.get_nowait())
            except queue.Empty:
                break
        for worker in idle:
            if worker is not None:
                worker.kill()
            self._slots.put(None)  # wakes a run() waiting for a slot, which then sees _closed

    def __deepcopy__(self, memo) -> "SnippetExecutor":
        return self  # worker processes are shared, never copied (DSPy optimizers deep-copy programs)

    def __enter__(self) -> "SnippetExecutor":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
