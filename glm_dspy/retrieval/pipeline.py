"""Pipelined retrieval (GLM paper §5.3): RetrieveNode lookups start while Act is still decoding.

A `Prefetcher` is the decoding listener of one Act call (glm_dspy/lm/query.py): it reads the
snippet as the engine decodes it and, as soon as a line is complete, starts every
`RetrieveNode("<literal>")` on it in a worker thread. The lookup fills the retriever's shared
LRU cache (glm_dspy/retrieval/retriever.py), so when the finished snippet runs, its RetrieveNode finds the
id there instead of searching again. Only string literals are prefetched: an argument computed
at run time (a variable, an f-string) is looked up when the snippet runs, as without pipelining.

Before the snippet runs, `wait()` lets the lookups still in flight finish (a lookup that is
half done would otherwise be searched a second time). `hidden_s` is the lookup time that ran
while the LLM was still decoding; `retrieval_s` all of it.
"""

from __future__ import annotations

import ast
import contextvars
import re
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait

PREFETCH_WORKERS = 4
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def prefetch_pool() -> ThreadPoolExecutor:
    """The threads every program's prefetches run on (one pool per process, made on first use)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(PREFETCH_WORKERS, thread_name_prefix="glm-prefetch")
        return _pool


# RetrieveNode("...") or RetrieveNode('...') with a plain string literal (escapes allowed), on one line
RETRIEVE_CALL = re.compile(r"""RetrieveNode\(\s*("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')\s*\)""")


def retrieve_literals(line: str) -> list[str]:
    """The texts of the RetrieveNode calls with a literal argument on `line`, in order."""
    texts = []
    for match in RETRIEVE_CALL.finditer(line):
        try:
            text = ast.literal_eval(match.group(1))
        except (ValueError, SyntaxError):
            continue
        if isinstance(text, str) and text.strip():
            texts.append(text)
    return texts


class Prefetcher:
    """Reads one Act call's decoded text and starts its RetrieveNode lookups early (module doc)."""

    def __init__(self, retrieve_node, pool: ThreadPoolExecutor):
        self._retrieve_node = retrieve_node
        self._pool = pool
        self._buffer = ""
        self._lookups: dict[str, Future] = {}
        self._spans: list[tuple[float, float]] = []  # (start, end) of each lookup, perf_counter
        self._lock = threading.Lock()
        self.decoded_at: float | None = None  # when the LLM call returned

    def feed(self, delta: str) -> None:
        self._buffer += delta
        *lines, self._buffer = self._buffer.split("\n")
        for line in lines:
            for text in retrieve_literals(line):
                if text not in self._lookups:  # run in the caller's context: its deadline and query id
                    self._lookups[text] = self._pool.submit(contextvars.copy_context().run, self._lookup, text)

    def _lookup(self, text: str) -> None:
        started = time.perf_counter()
        try:
            self._retrieve_node(text)
        finally:
            with self._lock:
                self._spans.append((started, time.perf_counter()))

    def decoded(self) -> None:
        """The LLM call returned: the time after this is no longer hidden under decoding."""
        self.decoded_at = time.perf_counter()

    def wait(self) -> None:
        """Let the lookups in flight finish (the snippet is about to run)."""
        wait(list(self._lookups.values()))

    @property
    def num_lookups(self) -> int:
        return len(self._lookups)

    @property
    def retrieval_s(self) -> float:
        with self._lock:
            return sum(end - start for start, end in self._spans)

    @property
    def hidden_s(self) -> float:
        decoded_at = self.decoded_at if self.decoded_at is not None else float("inf")
        with self._lock:
            return sum(max(0.0, min(end, decoded_at) - start) for start, end in self._spans)
