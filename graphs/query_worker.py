"""The child process that runs a question's Cypher: one read-only Kuzu database, bounded memory.

Started by `graphs/query_pool.py` as `python -m glm_dspy.graphs.query_worker` (a fresh
interpreter, never a fork of a process holding vLLM or Kuzu threads). Invariants:

- It opens the database once, read-only, and serves one query at a time; EOF on stdin ends it.
- After opening, RLIMIT_AS is set to the address space it holds then plus `memory_bytes`: what a
  query builds outside Kuzu's buffer pool (strings, lists, `collect`) fails with bad_alloc
  (a MemoryError here) instead of taking the machine's memory. A MemoryError is reported as the
  memory limit and the worker exits, so the next query gets a fresh one. RLIMIT_CORE is 0.
- Each query runs on a fresh connection under Kuzu's timeout; rows are fetched until the timeout,
  `max_rows` or `max_bytes` of values, whichever comes first. Kuzu crashing (a segfault on some
  inputs of 0.11.3) kills only this process; the parent reports it and starts another.
- Frames both ways are an 8-byte big-endian length then a pickle (protocol 5). The parent
  unpickles replies with an allow-list of classes (query_pool.py): rows hold only Kuzu's values.
"""

from __future__ import annotations

import os
import pickle
import resource
import struct
import sys
import time
from typing import Any

HEADER = struct.Struct(">Q")


def value_bytes(value: Any) -> int:
    """About how many bytes `value` holds once in Python (strings by length, containers summed)."""
    if isinstance(value, (str, bytes)):
        return len(value) + 8
    if isinstance(value, dict):
        return 8 + sum(len(str(key)) + value_bytes(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return 8 + sum(value_bytes(item) for item in value)
    return 8


def address_space_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def fetch(connection, request: dict) -> dict:
    """One query: {"op": "rows", rows, truncated} | {"op": "error", kind, message}. `kind` is
    "time" (Kuzu's interrupt or the fetch clock), "memory" (buffer pool full) or "kuzu"."""
    timeout_ms = request["timeout_ms"]
    connection.set_query_timeout(timeout_ms)  # Kuzu 0.11.3: applies to the next execute; 0 means none
    ends_at = time.monotonic() + timeout_ms / 1000 if timeout_ms > 0 else None
    try:
        result = connection.execute(request["text"])
    except Exception as error:  # noqa: BLE001 - Kuzu's RuntimeError, or a TypeError of its binding
        return _error(error)
    if request.get("explain"):
        result.close()
        return {"op": "rows", "columns": [], "rows": [], "truncated": None}
    columns = result.get_column_names()
    rows, num_bytes, truncated = [], 0, None
    max_rows, max_bytes = request["max_rows"], request["max_bytes"]
    try:
        while result.has_next():
            if len(rows) >= max_rows:
                truncated = f"more than {max_rows:,} rows; only the first {max_rows:,} were read"
                break
            if ends_at is not None and len(rows) % 256 == 0 and time.monotonic() > ends_at:
                return {"op": "error", "kind": "time", "message": "past the time limit while its rows were read"}
            values = result.get_next()
            num_bytes += sum(value_bytes(value) for value in values)
            if num_bytes > max_bytes:
                truncated = f"more than {max_bytes // 1024**2} MiB of values; only {len(rows):,} rows were read"
                break
            rows.append(values)
    except Exception as error:  # noqa: BLE001 - as above, while fetching
        return _error(error)
    finally:
        result.close()
    return {"op": "rows", "columns": columns, "rows": rows, "truncated": truncated}


def _error(error: Exception) -> dict:
    if isinstance(error, MemoryError):
        raise error
    text = str(error) if isinstance(error, RuntimeError) else \
        f"{type(error).__name__}: {(str(error).splitlines() or [''])[0]}"  # one line: a binding's error names its signature
    kind = "time" if "Interrupted" in text else "memory" if "buffer pool is full" in text else "kuzu"
    return {"op": "error", "kind": kind, "message": text[:4000]}


def read_frame(stream) -> Any:
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    return pickle.loads(stream.read(size))


def write_frame(stream, message: Any) -> None:
    body = pickle.dumps(message, protocol=5)
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()


def main() -> int:
    import kuzu

    stdin, stdout = sys.stdin.buffer, os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)  # nothing but frames reaches the parent
    config = read_frame(stdin)
    try:
        database = kuzu.Database(config["db_file"], read_only=True, buffer_pool_size=config["buffer_pool_bytes"],
                                 max_db_size=config["max_db_bytes"])
        kuzu.Connection(database).execute("RETURN 1").close()  # Kuzu's threads and first allocations
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        limit = address_space_bytes() + config["memory_bytes"]
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except Exception as error:  # noqa: BLE001 - reported to the parent, which raises it
        write_frame(stdout, {"op": "failed", "message": f"{type(error).__name__}: {error}"})
        return 1
    write_frame(stdout, {"op": "ready", "pid": os.getpid()})
    while (request := read_frame(stdin)) is not None:
        try:
            reply = fetch(kuzu.Connection(database), request)
        except MemoryError:
            reply = {"op": "error", "kind": "memory", "message": "out of memory"}
        try:
            write_frame(stdout, reply)
        except MemoryError:
            write_frame(stdout, {"op": "error", "kind": "memory", "message": "out of memory sending rows"})
            return 3
        except (pickle.PicklingError, TypeError, ValueError) as error:  # a value that cannot travel
            write_frame(stdout, {"op": "error", "kind": "kuzu", "message": f"a value could not be sent: {error}"})
        if reply.get("kind") == "memory":
            return 3  # what a failed allocation left behind is not worth keeping: start fresh
    return 0


if __name__ == "__main__":
    sys.exit(main())
