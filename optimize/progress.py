"""Counting a compile's GLM runs and LLM calls, with a rich progress bar per phase.

`CallCounter` is a DSPy callback, added to the callbacks of the calling context while it is
entered (dspy.Parallel copies that context into the optimizers' worker threads, so they report
to it too). Invariants: `requests` counts every LM call DSPy was asked
for, replayed or not; `made` counts those that were not in DSPy's disk cache, i.e. the new
entries the cache got since the counter was entered (each call the engine answers is stored
once); `glm_runs` counts finished GLM forward calls. The bar of the current phase advances by
one per GLM run; a phase with no known total shows a running count. Where the console is not a
terminal (a compile logged to a file), the bar cannot redraw, so a plain line is printed every
`LOG_EVERY` GLM runs instead.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager

import dspy
from dspy.utils.callback import BaseCallback

LOG_EVERY = 10  # GLM runs between two progress lines when the console is not a terminal


def _disk_entries() -> int:
    disk = getattr(dspy.cache, "disk_cache", None)
    try:
        return len(disk) if disk is not None else 0
    except TypeError:
        return 0


class CallCounter(BaseCallback):
    def __init__(self, console=None):
        self.console = console
        self.requests = 0
        self.glm_runs = 0
        self._glm_calls: set[str] = set()
        self._lock = threading.Lock()
        self._progress = None
        self._task = None
        self._disk_at_start = 0
        self._context = None
        self._phase_started = 0.0

    def __enter__(self) -> "CallCounter":
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self._disk_at_start = _disk_entries()
        self._context = dspy.context(callbacks=[*(dspy.settings.callbacks or []), self])
        self._context.__enter__()
        self._progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                  TextColumn("GLM runs"), TimeElapsedColumn(), console=self.console,
                                  disable=self.console is None)
        self._progress.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._progress.__exit__(*exc)
        self._context.__exit__(*exc)

    @contextmanager
    def phase(self, description: str, total: int | None):
        self._task = self._progress.add_task(description, total=total)
        self._phase_started = time.perf_counter()
        try:
            yield
        finally:
            self._progress.update(self._task, total=self._progress.tasks[self._task].completed)
            self._task = None

    def snapshot(self) -> dict[str, int]:
        made = _disk_entries() - self._disk_at_start
        return {"requests": self.requests, "made": made, "replayed": max(0, self.requests - made),
                "glm_runs": self.glm_runs}

    # DSPy callback hooks (dspy/utils/callback.py)
    def on_lm_start(self, call_id, instance, inputs):
        with self._lock:
            self.requests += 1

    def on_module_start(self, call_id, instance, inputs):
        from glm_dspy.modules.glm import GLM

        if isinstance(instance, GLM):
            with self._lock:
                self._glm_calls.add(call_id)

    def on_module_end(self, call_id, outputs, exception=None):
        with self._lock:
            if call_id not in self._glm_calls:
                return
            self._glm_calls.discard(call_id)
            self.glm_runs += 1
            task = self._task
            if task is None:
                return
            self._progress.advance(task)
            if self.console is not None and not self.console.is_terminal:
                self._log_line(self._progress.tasks[task])

    def _log_line(self, task) -> None:
        done = int(task.completed)
        if done % LOG_EVERY == 0 or (task.total is not None and done == task.total):
            of = f"/{int(task.total)}" if task.total is not None else ""
            minutes = (time.perf_counter() - self._phase_started) / 60
            self.console.print(f"{task.description}: {done}{of} GLM runs, {self.requests} LLM requests, "
                               f"{minutes:.1f} min", highlight=False)
