"""The wire format between the executor (parent) and a worker: one JSON object per line.

Parent -> worker:  {"op": "config", "function_names": [...], "memory_mb": int,
                    "max_output_chars": int, "timeout_s": float}      (first line only)
                   {"op": "run", "code": str}
                   {"op": "reply", "value": <json>, "observations": [path, ...]}  or
                   {"op": "reply", "error_type": str, "message": str}
Worker -> parent:  {"op": "ready"}                                    (after "config")
                   {"op": "call", "name": str, "args": [...], "kwargs": {...},
                    "observations": [path, ...]}  (paths into [args, kwargs])
                   {"op": "done", "output": str, "error": str | None,
                    "is_observation_only": bool}

Invariants: a "reply" is sent once for each "call" and only while that run is in progress;
every line is ASCII (json.dumps escapes the rest), so a line is never split inside a character;
the worker sends no line longer than MAX_MESSAGE_BYTES, and the parent refuses longer ones;
a "reply" line takes at most MAX_REPLY_BYTES. "observations" (left out when empty) lists
where the value held an `Observation`: each path is the list indices and dict keys from the
value down to it ([] for the value itself), so the worker rebuilds the same types; a "call"
lists the observations the snippet passed on the same way, so a graph function tells an
earlier call's message from an id by type (glm_dspy/retrieval/arguments.py).
"""

import json
from typing import Any

from glm_dspy.retrieval.observation import MAX_NESTING, Observation

MAX_JSON_DEPTH = MAX_NESTING
MAX_MESSAGE_BYTES = 16 * 2**20  # one line; a graph call's arguments must fit
MAX_REPLY_BYTES = 2**20  # one "reply" line, the graph call's result included
_SCALARS = (str, Observation, int, float, bool, type(None))  # an Observation passed on is a str


def encode(message: dict[str, Any]) -> bytes:
    return (json.dumps(message, ensure_ascii=True) + "\n").encode("ascii")


def decode(line: bytes) -> dict[str, Any]:
    message = json.loads(line)
    if not isinstance(message, dict) or "op" not in message:
        raise ValueError(f"not a protocol message: {line[:200]!r}")
    return message


def check_json_value(value: Any, where: str, depth: int = 0) -> None:
    """Raise TypeError unless `value` is made of str, int, float, bool, None, list/tuple and
    dicts with str keys (what crosses to the parent), nested at most MAX_JSON_DEPTH deep."""
    if type(value) in _SCALARS:
        return
    if depth >= MAX_JSON_DEPTH:
        raise TypeError(f"{where} is nested more than {MAX_JSON_DEPTH} levels deep")
    if type(value) in (list, tuple):
        for item in value:
            check_json_value(item, where, depth + 1)
    elif type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise TypeError(f"{where} has a dict key of type {type(key).__name__}; "
                                "keys must be strings")
            check_json_value(item, where, depth + 1)
    else:
        hint = " (pass list(...) instead)" if isinstance(value, (set, frozenset)) else ""
        raise TypeError(f"{where} must be str, int, float, bool, None, list or dict, "
                        f"not {type(value).__name__}{hint}")


def to_json_default(value: Any) -> Any:
    """json.dumps `default=` for values a parent-side function returns: sets become lists."""
    if isinstance(value, (set, frozenset)):
        try:
            return sorted(value)
        except TypeError:
            return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def observation_paths(value: Any, path: tuple = (), depth: int = 0) -> list[list]:
    """Where `value` holds an Observation, as paths of list indices and dict keys."""
    if isinstance(value, Observation):
        return [list(path)]
    if depth >= MAX_JSON_DEPTH:
        return []
    if type(value) in (list, tuple):
        items = enumerate(value)
    elif type(value) is dict:
        items = value.items()
    else:
        return []
    return [found for key, item in items for found in observation_paths(item, (*path, key), depth + 1)]


def restore_observations(value: Any, paths: list[list]) -> Any:
    """`value` (decoded JSON) with the str at each of `paths` made an Observation again;
    ValueError if a path does not lead to a str in `value`."""
    path = None
    try:
        for path in paths:
            if not path:
                if not isinstance(value, str):
                    raise TypeError
                return Observation(value)
            container = value
            for key in path[:-1]:
                container = container[key]
            if type(container) not in (list, dict) or not isinstance(container[path[-1]], str):
                raise TypeError
            container[path[-1]] = Observation(container[path[-1]])
    except (TypeError, KeyError, IndexError):
        raise ValueError(f"an observation path {str(path)[:100]} leads to no string") from None
    return value
