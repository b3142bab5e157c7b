"""One worker subprocess, seen from the parent: spawn, deadline-bounded reads, graph calls.

Invariants: a `WorkerProcess` is used by one thread at a time (the executor's pool sees to it).
When `run` returns, the worker is either alive and idle, ready for the next snippet, or killed
(`is_alive` is False); it is never left in the middle of a snippet. Graph functions run here, in
the parent, on the thread that called `run`; the worker only sees their JSON results. Their time
counts against the snippet's deadline: no call starts after it, and each runs inside
`glm_dspy.graphs.deadline.deadline(...)`, so the database work of one call ends by it too.
"""

import json
import os
import select
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from glm_dspy.executor.protocol import (MAX_MESSAGE_BYTES, MAX_REPLY_BYTES, decode, encode,
                                        observation_paths, restore_observations, to_json_default)
from glm_dspy.graphs.child_process import child_env
from glm_dspy.graphs.child_process import stop as stop_process
from glm_dspy.graphs.deadline import deadline as graph_deadline

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the directory that holds glm_dspy/
_KEPT_ENV = ("PATH", "LD_LIBRARY_PATH", "LANG", "LC_ALL")
MAX_ERROR_CHARS = 2000  # of a graph function's error message (the worker shows at most 1000)


@dataclass(slots=True)
class WorkerConfig:
    function_names: list[str]
    timeout_s: float
    memory_mb: int
    max_output_chars: int

    def __post_init__(self) -> None:
        assert all(n.isidentifier() and not n.startswith("_") for n in self.function_names), \
            f"graph function names must be identifiers not starting with '_': {self.function_names}"
        assert self.timeout_s > 0, self.timeout_s
        assert self.memory_mb >= 64, f"memory_mb={self.memory_mb}: a worker needs at least 64 MB"
        assert self.max_output_chars > 0, self.max_output_chars


class WorkerDied(Exception):
    """The worker closed its end of the pipe."""


class ProtocolError(Exception):
    """The worker sent something the protocol does not allow; it is killed."""


@dataclass(slots=True)
class RunOutcome:
    output: str
    error: str | None
    calls: list[tuple[str, Any]]  # (function name, returned value) per call served
    is_observation_only: bool = False


def _is_done(message: dict[str, Any]) -> bool:
    return (isinstance(message.get("output"), str) and isinstance(message.get("is_observation_only"), bool)
            and (message.get("error") is None or isinstance(message["error"], str) and message["error"]))


def _is_call(message: dict[str, Any]) -> bool:
    return (isinstance(message.get("name"), str) and isinstance(message.get("args"), list)
            and isinstance(message.get("kwargs"), dict) and isinstance(message.get("observations", []), list))


class WorkerProcess:
    """A started, ready worker (`python -m glm_dspy.executor.worker`)."""

    def __init__(self, config: WorkerConfig, *, start_timeout_s: float = 60.0):
        env = child_env(_KEPT_ENV, str(_PACKAGE_ROOT), {
            "PYTHONHASHSEED": "0",  # the same set order in every run
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1"})
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "glm_dspy.executor.worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=_PACKAGE_ROOT, env=env,
            close_fds=True, start_new_session=True)  # no terminal Ctrl-C reaches the worker
        self._buffer = bytearray()
        self._stop = weakref.finalize(self, stop_process, self._proc)  # also on garbage collection
        try:
            self._send({"op": "config", "function_names": config.function_names,
                        "timeout_s": config.timeout_s, "memory_mb": config.memory_mb,
                        "max_output_chars": config.max_output_chars})
            ready = self._read(time.monotonic() + start_timeout_s)
        except (WorkerDied, ProtocolError):  # ProtocolError: something printed to stdout
            ready = None
        if ready is None or ready["op"] != "ready":
            self.kill()
            stderr = self._proc.stderr.read().decode(errors="replace")[-2000:]
            raise RuntimeError(
                f"could not start the snippet worker `{sys.executable} -m "
                f"glm_dspy.executor.worker` in {_PACKAGE_ROOT}: check that glm_dspy and "
                f"RestrictedPython import with that interpreter. Worker stderr:\n{stderr}")
        self._proc.stderr.close()  # the worker now writes stderr to /dev/null

    @property
    def is_alive(self) -> bool:
        return self._proc.poll() is None

    def kill(self) -> None:
        """Stop the worker at once; idempotent."""
        self._stop()

    def run(self, code: str, functions: Mapping[str, Callable[..., Any]],
            timeout_s: float) -> RunOutcome:
        """Run one snippet, serving its graph calls, within `timeout_s` of wall time (calls
        included: none starts after the deadline, and a running one is let finish, its database
        work bounded by the deadline). Kills the worker on timeout."""
        deadline = time.monotonic() + timeout_s
        calls: list[tuple[str, Any]] = []
        finished = False
        try:
            self._send({"op": "run", "code": code})
            while (message := self._read(deadline)) is not None:
                if message["op"] == "done" and _is_done(message):
                    finished = True
                    return RunOutcome(message["output"], message["error"], calls,
                                      message["is_observation_only"])
                if not (message["op"] == "call" and _is_call(message)):
                    raise ProtocolError(f"malformed {message['op']!r} message from the worker")
                if time.monotonic() >= deadline:
                    break
                reply = self._call(functions, message, calls, deadline)
                if time.monotonic() >= deadline:
                    break
                self._proc.stdin.write(reply)
                self._proc.stdin.flush()
            return RunOutcome("", f"TimeoutError: snippet exceeded {timeout_s} s", calls)
        except (WorkerDied, BrokenPipeError):
            return RunOutcome("", self._death_text(), calls)
        except ProtocolError as exc:
            return RunOutcome("", f"RuntimeError: {exc}", calls)
        finally:
            if not finished:
                self.kill()

    def _call(self, functions: Mapping[str, Callable[..., Any]], message: dict,
              calls: list[tuple[str, Any]], deadline: float) -> bytes:
        """Serve one graph call; the "reply" line (a value over MAX_REPLY_BYTES is an error)."""
        name = message["name"]
        if name not in functions:
            raise ProtocolError(f"the worker called unknown function {name!r}")
        try:
            args, kwargs = restore_observations([message["args"], message["kwargs"]],
                                                message.get("observations", []))
        except ValueError as exc:
            raise ProtocolError(f"malformed call of {name}: {exc}") from None
        try:
            with graph_deadline(deadline):
                value = functions[name](*args, **kwargs)
            calls.append((name, value))
        except Exception as exc:
            calls.append((name, None))
            return encode({"op": "reply", "error_type": type(exc).__name__,
                           "message": f"{name}: {exc}"[:MAX_ERROR_CHARS]})
        reply = {"op": "reply", "value": value}
        if paths := observation_paths(value):
            reply["observations"] = paths
        try:
            text = json.dumps(reply, default=to_json_default)
        except (TypeError, ValueError) as exc:
            return encode({"op": "reply", "error_type": "RuntimeError",
                           "message": f"{name} returned a value that is not JSON: {exc}"})
        if len(text) > MAX_REPLY_BYTES:
            return encode({"op": "reply", "error_type": "ValueError", "message": (
                f"{name} returned {len(text) / 2**20:.1f} MB, more than the "
                f"{MAX_REPLY_BYTES // 2**20} MB one call may return; ask for less per call")})
        return (text + "\n").encode("ascii")

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self._proc.stdin.write(encode(message))
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(str(exc)) from None

    def _read(self, deadline: float) -> dict[str, Any] | None:
        """The next message, or None once `deadline` (time.monotonic) has passed."""
        fd = self._proc.stdout.fileno()
        while (end := self._buffer.find(b"\n")) < 0:
            if len(self._buffer) > MAX_MESSAGE_BYTES:
                raise ProtocolError(f"the snippet sent more than {MAX_MESSAGE_BYTES} bytes at once")
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                raise WorkerDied("stdout closed")
            self._buffer += chunk
        line = bytes(self._buffer[:end])
        del self._buffer[:end + 1]
        try:
            return decode(line)
        except ValueError as exc:
            raise ProtocolError(f"the worker sent a malformed message: {exc}") from None

    def _death_text(self) -> str:
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            return "RuntimeError: the snippet worker stopped answering"
        if code == -signal.SIGXCPU:
            return "TimeoutError: snippet exceeded its CPU-time limit"
        if code == -signal.SIGKILL:
            return "RuntimeError: the snippet worker was killed (out of memory, or from outside)"
        if code < 0:
            return f"RuntimeError: the snippet worker died with {signal.Signals(-code).name}"
        return f"RuntimeError: the snippet worker exited with code {code}"
