"""`LazyTransport`: the in-process vLLM engine, started by the first LLM call that needs it.

Most questions are answered by a reading with no LLM call; a process that answers only those
should pay for the readings alone, not for starting vLLM (a minute and several GB on a 2-core
CPU). Invariants: the engine is built at most once per `LazyTransport`, by the first thread that
needs it (`generate`, `warm`, or any attribute of the real transport); the others wait on the
lock and then share it. Until then `is_alive()` is True (nothing has died) and `close()` does
nothing. A build that fails raises in the calling thread and is tried again by the next call.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any


class LazyTransport:
    name = "inprocess"

    def __init__(self, build: Callable[[], Any]):
        self._build = build
        self._built = None
        self._lock = threading.Lock()

    @property
    def is_started(self) -> bool:
        return self._built is not None

    def started(self):
        """The real transport, built now if no call has built it yet."""
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
        return self._built

    def warm(self) -> None:
        """Start the engine ahead of the first call (e.g. in the background once a service answers)."""
        self.started()

    def generate(self, prompt_ids: list[int], params, extra_args: dict, *, stream: bool,
                 timeout_s: float | None = None) -> Iterator:
        return self.started().generate(prompt_ids, params, extra_args, stream=stream, timeout_s=timeout_s)

    def is_alive(self) -> bool:
        return self._built is None or self._built.is_alive()

    def close(self) -> None:
        if self._built is not None:
            self._built.close()

    def restarted(self):
        return self.started().restarted()

    def __getattr__(self, attribute: str):  # the real transport's own (successor, num_requests, ...)
        if attribute.startswith("__") or attribute in ("_build", "_built", "_lock"):
            raise AttributeError(attribute)
        return getattr(self.started(), attribute)
