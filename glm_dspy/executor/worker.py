"""The worker process: compiles and runs snippets, one at a time, under process limits.

Started by `WorkerProcess` as `python -m glm_dspy.executor.worker` (a fresh interpreter, never a
fork of a process that holds Kuzu or vLLM threads). Invariants:

- It serves one snippet at a time and waits on stdin between snippets; EOF on stdin ends it.
- It owns no database: each graph function is a `GraphFunctionProxy` that sends a "call" to the
  parent and blocks until the "reply" (protocol.py). The parent owns all database access.
- The protocol writes to a private duplicate of fd 1; after "ready", fds 1 and 2 point to
  /dev/null, so nothing but the protocol reaches the parent.
- Limits are set once, after all imports and before "ready": RLIMIT_AS (the interpreter's own
  ~18 MB of address space + memory_mb, so a heavier `glm_dspy/__init__.py` cannot eat the budget),
  RLIMIT_FSIZE=0, RLIMIT_CORE=0, RLIMIT_NPROC=0, RLIMIT_NOFILE=16. Before each snippet the soft
  RLIMIT_CPU moves to (CPU used so far + timeout_s + 2 s), a backstop behind the parent's
  wall-clock deadline. The security policy itself is policy.py; these limits are defence in depth.
- Every outcome of a snippet, MemoryError included, is a "done" message; only a dead process or a
  broken pipe is not, and the parent reports those.
"""

import gc
import math
import os
import resource
import sys
import warnings
from collections.abc import Callable
from typing import Any, BinaryIO

from glm_dspy.executor.policy import (SAFE_EXCEPTIONS, SNIPPET_FILENAME, PrintCollector,
                                      SnippetCompileError, compile_snippet, make_globals)
from glm_dspy.executor.protocol import (MAX_MESSAGE_BYTES, check_json_value, decode, encode,
                                        observation_paths, restore_observations)
from glm_dspy.retrieval.observation import observations_in

MAX_MESSAGE_CHARS = 1000


class ParentGone(BaseException):
    """The parent closed the pipe or broke the protocol; the worker must exit."""


class Channel:
    """The worker's end of the pipe: JSON lines in on stdin, out on the private protocol fd."""

    def __init__(self, reader: BinaryIO, writer: BinaryIO):
        self._reader = reader
        self._writer = writer

    def send(self, message: dict[str, Any]) -> None:
        self.send_line(encode(message))

    def send_line(self, line: bytes) -> None:
        self._writer.write(line)
        self._writer.flush()

    def receive(self) -> dict[str, Any]:
        line = self._reader.readline()
        if not line:
            raise ParentGone("stdin closed")
        return decode(line)


class GraphFunctionProxy:
    """Stands in for the parent's function `name`; arguments must be JSON values. Returns the
    parent's value with its observations rebuilt, and hands each one to `on_observation`."""

    __slots__ = ("name", "_channel", "_on_observation")

    def __init__(self, name: str, channel: Channel, on_observation: Callable[[str], None]):
        self.name = name
        self._channel = channel
        self._on_observation = on_observation

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        check_json_value(list(args), f"the arguments of {self.name}()")
        check_json_value(kwargs, f"the keyword arguments of {self.name}()")
        call = {"op": "call", "name": self.name, "args": list(args), "kwargs": kwargs}
        if paths := observation_paths([call["args"], kwargs]):  # so the function tells them from ids
            call["observations"] = paths
        line = encode(call)
        if len(line) > MAX_MESSAGE_BYTES:
            raise ValueError(f"the arguments of {self.name}() take more than "
                             f"{MAX_MESSAGE_BYTES // 2**20} MB; pass fewer or shorter values")
        self._channel.send_line(line)
        reply = self._channel.receive()
        if reply["op"] != "reply":
            raise ParentGone(f"expected a reply, got {reply['op']!r}")
        if "error_type" in reply:  # same type if safe, else RuntimeError naming the type
            error_type, message = reply["error_type"], reply["message"]
            if error_type in SAFE_EXCEPTIONS:
                raise SAFE_EXCEPTIONS[error_type](message)
            raise RuntimeError(f"{message} ({error_type})")
        if "observations" not in reply:
            return reply["value"]
        value = restore_observations(reply["value"], reply["observations"])
        for observation in observations_in(value):
            self._on_observation(observation)
        return value


def error_text(type_name: str, message: str, line: int | None) -> str:
    """The one error format the agent sees: "<Type>: <message> (line N)"."""
    message = message.strip() or "raised without a message"
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[:MAX_MESSAGE_CHARS] + "..."
    return f"{type_name}: {message}" + (f" (line {line})" if line is not None else "")


def _snippet_line(exc: BaseException) -> int | None:
    """The line of the innermost snippet frame in exc's traceback."""
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SNIPPET_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _safe_str(exc: BaseException) -> str:
    try:
        return str(exc)[:MAX_MESSAGE_CHARS + 1]
    except BaseException:  # a message too large to render is still an error to report
        return "<message could not be rendered>"


def run_snippet(code: str, channel: Channel, function_names: list[str], *,
                max_output_chars: int, memory_mb: int) -> dict[str, Any]:
    """Compile and run one snippet whose graph functions call the parent over `channel`;
    return the "done" message."""
    printer = PrintCollector(max_output_chars)
    functions = {name: GraphFunctionProxy(name, channel, printer.remember_observation)
                 for name in function_names}
    error = None
    try:
        code_object = compile_snippet(code)
    except SnippetCompileError as exc:
        error = error_text(exc.type_name, exc.message, exc.line)
    else:
        namespace = make_globals(functions, printer)
        kind = message = line = None
        try:
            exec(code_object, namespace)
        except ParentGone:
            raise
        except MemoryError as exc:  # touch as little memory as possible until it is freed
            kind, line = "MemoryError", _snippet_line(exc)
        except BaseException as exc:
            kind, line, message = type(exc).__name__, _snippet_line(exc), _safe_str(exc)
        finally:
            namespace.clear()
        if kind == "MemoryError":
            gc.collect()
            message = f"the snippet used more than the {memory_mb} MB memory limit"
        if kind is not None:
            error = error_text(kind, message or "", line)
    if printer.overflowed and not (error or "").startswith("OutputLimitError"):
        error = error_text("OutputLimitError", f"the snippet printed more than "
                                               f"{max_output_chars} characters", None)
    output = printer.text().encode("utf-8", "replace").decode("utf-8")
    if error is not None:
        error = error.encode("utf-8", "replace").decode("utf-8")
    return {"op": "done", "output": output, "error": error,
            "is_observation_only": printer.is_observation_only}


def _address_space_bytes() -> int:
    """This process's current virtual size (Linux /proc), or 0 where that is unknown."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _set_limits(memory_mb: int) -> None:
    memory_bytes = _address_space_bytes() + memory_mb * 2**20
    for limit, value in ((resource.RLIMIT_AS, memory_bytes), (resource.RLIMIT_FSIZE, 0),
                         (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NPROC, 0),
                         (resource.RLIMIT_NOFILE, 16)):
        resource.setrlimit(limit, (value, value))


def _move_cpu_limit(timeout_s: float) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = math.ceil(usage.ru_utime + usage.ru_stime + timeout_s) + 2
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def main() -> int:
    warnings.simplefilter("ignore")
    protocol_fd = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    channel = Channel(os.fdopen(0, "rb"), os.fdopen(protocol_fd, "wb"))
    try:
        config = channel.receive()
    except ParentGone:
        return 0
    assert config["op"] == "config", config
    _set_limits(config["memory_mb"])
    channel.send({"op": "ready"})
    os.dup2(devnull, 2)
    while True:
        try:
            request = channel.receive()
            assert request["op"] == "run", request
            _move_cpu_limit(config["timeout_s"])
            try:
                result = run_snippet(request["code"], channel, config["function_names"],
                                     max_output_chars=config["max_output_chars"],
                                     memory_mb=config["memory_mb"])
            except MemoryError:
                gc.collect()
                result = {"op": "done", "output": "", "is_observation_only": False,
                          "error": error_text("MemoryError", f"the snippet used more than the "
                                              f"{config['memory_mb']} MB memory limit", None)}
            except (ParentGone, BrokenPipeError):
                raise
            except Exception as exc:  # a bug here must not look like the snippet's fault
                result = {"op": "done", "output": "", "is_observation_only": False,
                          "error": error_text("RuntimeError", f"internal error in the snippet "
                                              f"worker: {type(exc).__name__}: {_safe_str(exc)}",
                                              None)}
            channel.send(result)
        except (ParentGone, BrokenPipeError):
            return 0


if __name__ == "__main__":
    sys.exit(main())
