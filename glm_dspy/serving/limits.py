"""What `glm-dspy serve` holds at most: a request body's bytes, and the questions it has taken.

`BodyLimit` is ASGI middleware: a body longer than `max_bytes` is answered 413 with
{"error": "..."} before the app sees it, from its Content-Length when it has one, else as soon
as the chunks read pass the limit; no more than `max_bytes` plus one chunk is ever read.

`Admission` bounds the service's work queue: every question the service has taken and not
finished (running on the pool, or waiting in its queue) holds one place; a question that finds
no place is refused with `Overloaded` (the service answers 503 with Retry-After), before it is
journaled.
"""

from __future__ import annotations

import json
import math
import threading

DEFAULT_RETRY_AFTER_S = 5


class Overloaded(Exception):
    """No place in the work queue; ask again in `retry_after_s` seconds."""

    def __init__(self, num_taken: int, retry_after_s: int):
        super().__init__(f"the service is busy: {num_taken} questions are running or waiting, its most; "
                         f"ask again in {retry_after_s} s")
        self.retry_after_s = retry_after_s


def retry_after_s(mean_latency_s: float | None, concurrency: int) -> int:
    """When a place is likely free again: one question's mean latency shared by the running ones."""
    if mean_latency_s is None:
        return DEFAULT_RETRY_AFTER_S
    return max(1, math.ceil(mean_latency_s / concurrency))


class Admission:
    """Places for `concurrency` running and `max_queued` waiting questions.

    Invariant: `num_taken` is the number of questions taken and not finished; `take` never lets
    it pass `capacity` (only `take(force=True)`, for the journal's unfinished queries at start,
    may), and each taken place is given back once, by `give_back`, when its question ends."""

    def __init__(self, concurrency: int, max_queued: int):
        assert concurrency >= 1 and max_queued >= 0, (concurrency, max_queued)
        self.concurrency = concurrency
        self.capacity = concurrency + max_queued
        self.num_taken = 0
        self._lock = threading.Lock()

    def take(self, mean_latency_s: float | None = None, *, force: bool = False) -> None:
        with self._lock:
            if self.num_taken >= self.capacity and not force:
                raise Overloaded(self.num_taken, retry_after_s(mean_latency_s, self.concurrency))
            self.num_taken += 1

    def give_back(self, *_) -> None:  # also a Future's done callback
        with self._lock:
            assert self.num_taken > 0, "a place given back twice"
            self.num_taken -= 1


class BodyLimit:
    """ASGI middleware: refuse a request body over `max_bytes` with 413 (module doc)."""

    def __init__(self, app, max_bytes: int):
        self.app, self.max_bytes = app, max_bytes

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"")
        if length.isdigit() and int(length) > self.max_bytes:
            return await self._refuse(send, f"{int(length):,} bytes")
        received, num_bytes = [], 0
        while True:  # the body, read up to the limit, then handed to the app as it came
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break  # the client went away: the app sees it too
            num_bytes += len(message.get("body", b""))
            if num_bytes > self.max_bytes:
                return await self._refuse(send, f"over {self.max_bytes:,} bytes")
            if not message.get("more_body", False):
                break

        async def replay():
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send, size: str) -> None:
        body = json.dumps({"error": f"the request body is {size}; at most {self.max_bytes:,} bytes are read "
                                    f"(send one question as JSON: {{\"question\": \"...\"}})"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})
