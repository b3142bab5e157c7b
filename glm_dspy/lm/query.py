"""The query id a call belongs to, carried as a dspy setting so it stays out of DSPy's cache key.

`dspy.context(...)` overrides live in a ContextVar that `dspy.Parallel` copies into its worker
threads (dspy 3.4.1 utils/parallelizer.py), so the id set around a question follows every LM call
made for it; a bare ContextVar of ours would be lost in those threads.
"""

import contextvars
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

import dspy

QUERY_ID_SETTING = "glm_query_id"
# Engines told when a query ends (`finish_query(query_id)`); each ignores queries it never served.
_listeners: "weakref.WeakSet" = weakref.WeakSet()


def listen_for_finished_queries(engine) -> None:
    _listeners.add(engine)


@contextmanager
def query_context(query_id: str | None) -> Iterator[None]:
    """Every LM call inside the block is tagged with `query_id` (None: with no query). On leaving
    the block every listening engine is told the query is done."""
    if query_id is not None and (not isinstance(query_id, str) or not query_id):
        raise ValueError(f"query_id must be a non-empty string or None, got {query_id!r}")
    try:
        with dspy.context(**{QUERY_ID_SETTING: query_id}):
            yield
    finally:
        if query_id is not None:
            for engine in list(_listeners):
                engine.finish_query(query_id)


def current_query_id() -> str | None:
    """The query id of the innermost `query_context`, or None."""
    return dspy.settings.get(QUERY_ID_SETTING)


# Decoding listeners: a callable given each text delta of the LM calls made in its context, as
# the engine decodes them (pipelined retrieval, glm_dspy/retrieval/pipeline.py). A plain ContextVar: it is
# set around one agent call, in the thread that makes it.
_decoding: "contextvars.ContextVar" = contextvars.ContextVar("glm_decoding_listener", default=None)


@contextmanager
def decoding_listener(listener) -> Iterator[None]:
    """LM calls inside the block stream from the engine and tell `listener(delta)` each text delta
    as it is decoded; the call's result is the same as without it."""
    token = _decoding.set(listener)
    try:
        yield
    finally:
        _decoding.reset(token)


def current_decoding_listener():
    return _decoding.get()
