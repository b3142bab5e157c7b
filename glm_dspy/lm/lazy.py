"""What only an LLM call needs, built by the first call that needs it: `LazyTransport`, the
in-process vLLM engine, and `LazyRenderer`, the prompt renderer over the model's tokenizer (and,
before either reads the model folder, its re-hash: glm_dspy/lm/factory.py).

Most questions are answered by a reading with no LLM call; a process that answers only those
should pay for the readings alone, not for starting vLLM (a minute and several GB on a 2-core
CPU), loading the tokenizer (1-1.5 s there) or hashing the model (about 1 s; bench/cold_ask.py).
Invariants: the real object is built at most once per `OnFirstUse`, by the first thread that needs
it (a call, `warm`, or any attribute of the real object); the others wait on the lock and then
share it. A build that fails raises in the calling thread and is tried again by the next call.
Until the engine is built, `LazyTransport.is_alive()` is True (nothing has died) and `close()`
does nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any


class OnFirstUse:
    """`build()`'s result, built by the first `started()` (or attribute read) and shared after."""

    def __init__(self, build: Callable[[], Any]):
        self._build = build
        self._built = None
        self._lock = threading.Lock()

    @property
    def is_started(self) -> bool:
        return self._built is not None

    def started(self):
        """The real object, built now if nothing has built it yet."""
        if self._built is None:
            with self._lock:
                if self._built is None:
                    self._built = self._build()
        return self._built

    def __getattr__(self, attribute: str):  # the real object's own (successor, num_requests, tokenizer, ...)
        if attribute.startswith("__") or attribute in ("_build", "_built", "_lock"):
            raise AttributeError(attribute)
        return getattr(self.started(), attribute)


class LazyTransport(OnFirstUse):
    name = "inprocess"

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


class LazyRenderer(OnFirstUse):
    """A `PromptRenderer` (glm_dspy/lm/render.py) loaded by the first prompt rendered. A folder
    whose tokenizer has no chat template fails there, with the renderer's own message."""

    def render(self, messages: list[dict[str, str]]):
        return self.started().render(messages)
