"""The wall-clock deadline of the graph work running on the current thread (or asyncio task).

Whoever serves a request with a time budget (the snippet executor, for a graph call) sets it
with `deadline(at)`; `GraphStore.query` reads it, refuses to start a query once it has passed
and gives Kuzu only the time that is left. Invariant: outside a `deadline` block there is none
(`remaining_s()` is None) and queries run under the store's own timeout. Times are
`time.monotonic()` seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("graph_deadline", default=None)


class DeadlinePassed(TimeoutError):
    """Graph work was asked for after its deadline."""


@contextmanager
def deadline(at: float) -> Iterator[None]:
    """Bound the graph work inside the block by `at` (time.monotonic); an outer, earlier
    deadline stays in force."""
    outer = _deadline.get()
    token = _deadline.set(at if outer is None else min(at, outer))
    try:
        yield
    finally:
        _deadline.reset(token)


def remaining_s() -> float | None:
    """Seconds left before the current deadline (<= 0 once passed), or None when there is none."""
    at = _deadline.get()
    return None if at is None else at - time.monotonic()
