"""Warm child processes that run a question's Cypher (graphs/query_worker.py), seen from the parent.

Why: Kuzu 0.11.3 segfaults on some allow-listed inputs, plans outside its own timeout and builds
strings and lists outside its buffer pool. In a child, a crash is one failed query, a query past
its time is killed, and memory is bounded by the child's RLIMIT_AS; the serving process never
goes down for a question.

Invariants: a `QueryPool` holds at most `num_workers` workers, started on first need (each opens
the database once, read-only). A worker is used by one thread at a time: `run` takes an idle one
(or starts one, or waits for one) and gives it back idle, or kills it. When `run` returns, the
worker it used is idle and healthy, or dead and forgotten; no worker is left mid-query. A query's
wall clock is `timeout_ms` plus KILL_GRACE_S: Kuzu's own interrupt comes first, the kill after.
"""

from __future__ import annotations

import io
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glm_dspy.graphs.child_process import child_env, stop
from glm_dspy.graphs.query_worker import HEADER

_PACKAGE_ROOT = Path(__file__).resolve().parents[1]  # the directory that holds graphs/ (glm_dspy.graphs)
_KEPT_ENV = ("PATH", "LD_LIBRARY_PATH", "LANG", "LC_ALL", "HOME", "TMPDIR")
KILL_GRACE_S = 0.5  # past a query's timeout before its worker is killed (Kuzu polls its interrupt)
START_TIMEOUT_S = 60.0
MAX_REPLY_BYTES = 256 * 1024**2  # a reply frame (rows are capped at `max_bytes` of values before this)
# classes a reply may hold besides builtins: the values Kuzu 0.11.3's Python API returns
_REPLY_CLASSES = {("datetime", "date"), ("datetime", "datetime"), ("datetime", "timedelta"),
                  ("datetime", "timezone"), ("decimal", "Decimal"), ("uuid", "UUID"), ("uuid", "SafeUUID")}


CLOSED = object()  # what `_Worker.receive` returns once the worker closed its end


class QueryCrashed(RuntimeError):
    """Kuzu died on the query (its worker is replaced); the message names the signal."""


class _ReplyUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) in _REPLY_CLASSES:
            return super().find_class(module, name)
        raise pickle.UnpicklingError(f"a query worker sent a {module}.{name}")


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    db_file: str
    buffer_pool_bytes: int
    memory_bytes: int  # address space a worker may add past what it holds once the database is open
    max_db_bytes: int

    def __post_init__(self) -> None:
        assert self.buffer_pool_bytes >= 1024**2, self.buffer_pool_bytes
        assert self.memory_bytes >= 64 * 1024**2, f"memory_bytes={self.memory_bytes}: a worker needs 64 MiB"


class _Worker:
    def __init__(self, settings: WorkerSettings):
        env = child_env(_KEPT_ENV, str(_PACKAGE_ROOT))
        self.proc = subprocess.Popen([sys.executable, "-m", "glm_dspy.graphs.query_worker"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=_PACKAGE_ROOT, env=env,
                                     close_fds=True, start_new_session=True)
        self._stop = weakref.finalize(self, stop, self.proc)
        self._buffer = bytearray()
        self.send({"db_file": settings.db_file, "buffer_pool_bytes": settings.buffer_pool_bytes,
                   "memory_bytes": settings.memory_bytes, "max_db_bytes": settings.max_db_bytes})
        ready = self.receive(time.monotonic() + START_TIMEOUT_S)
        if not isinstance(ready, dict) or ready.get("op") != "ready":
            detail = ready.get("message") if isinstance(ready, dict) else self.death()
            self.kill()
            raise RuntimeError(f"could not start a query worker on {settings.db_file}: {detail}")

    @property
    def is_alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        self._stop()

    def send(self, message: dict) -> None:
        body = pickle.dumps(message, protocol=5)
        self.proc.stdin.write(HEADER.pack(len(body)) + body)
        self.proc.stdin.flush()

    def receive(self, deadline: float) -> Any:
        """The next reply; None once `deadline` (time.monotonic) passed; CLOSED when the worker
        closed its end (it died, or is dying)."""
        fd = self.proc.stdout.fileno()
        while True:
            if len(self._buffer) >= HEADER.size:
                (size,) = HEADER.unpack(self._buffer[:HEADER.size])
                if size > MAX_REPLY_BYTES:
                    raise QueryCrashed(f"a query worker sent {size:,} bytes at once")
                if len(self._buffer) >= HEADER.size + size:
                    body = bytes(self._buffer[HEADER.size:HEADER.size + size])
                    del self._buffer[:HEADER.size + size]
                    return _ReplyUnpickler(io.BytesIO(body)).load()
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return CLOSED
            self._buffer += chunk

    def death(self) -> str:
        """What ended the worker, in words; it is killed first if it still runs."""
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
            return "it stopped answering"
        if code < 0:
            return f"Kuzu crashed on it ({signal.Signals(-code).name})"
        return f"its worker exited with code {code}"


class QueryPool:
    def __init__(self, settings: WorkerSettings, num_workers: int = 2):
        assert num_workers >= 1, num_workers
        self.settings = settings
        self.num_workers = num_workers
        self._idle: list[_Worker] = []
        self._num_started = 0
        self._available = threading.Condition()

    def run(self, request: dict, timeout_ms: int) -> dict:
        """The worker's reply to `request` ({"op": "rows", ...} or {"op": "error", kind, message});
        a worker past `timeout_ms` + KILL_GRACE_S is killed ({"op": "error", "kind": "time"}).
        Raises QueryCrashed when the worker died on the query."""
        worker = self._take()
        healthy = False
        try:
            try:
                worker.send(request | {"timeout_ms": timeout_ms})
            except (BrokenPipeError, OSError):
                raise QueryCrashed(f"the query could not run: {worker.death()}") from None
            wall_s = timeout_ms / 1000 + KILL_GRACE_S if timeout_ms > 0 else 24 * 3600.0
            reply = worker.receive(time.monotonic() + wall_s)
            if reply is None:
                return {"op": "error", "kind": "time", "message": "killed past the time limit"}
            if reply is CLOSED:
                raise QueryCrashed(f"the query failed: {worker.death()}; the worker was replaced")
            healthy = isinstance(reply, dict) and reply.get("kind") != "memory"
            return reply
        except pickle.UnpicklingError as error:
            raise QueryCrashed(str(error)) from None
        finally:
            self._give_back(worker, healthy)

    def close(self) -> None:
        with self._available:
            for worker in self._idle:
                worker.kill()
            self._num_started -= len(self._idle)
            self._idle.clear()

    def _take(self) -> _Worker:
        with self._available:
            while True:
                while self._idle:
                    worker = self._idle.pop()
                    if worker.is_alive:
                        return worker
                    self._num_started -= 1
                if self._num_started < self.num_workers:
                    self._num_started += 1
                    break
                self._available.wait()
        try:
            return _Worker(self.settings)  # started outside the lock: others may run meanwhile
        except BaseException:
            with self._available:
                self._num_started -= 1
                self._available.notify()
            raise

    def _give_back(self, worker: _Worker, healthy: bool) -> None:
        if not healthy:
            worker.kill()
        with self._available:
            if healthy and worker.is_alive:
                self._idle.append(worker)
            else:
                self._num_started -= 1
            self._available.notify()


__all__ = ["QueryPool", "QueryCrashed", "WorkerSettings", "KILL_GRACE_S"]
