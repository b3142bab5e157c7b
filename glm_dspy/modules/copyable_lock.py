"""A lock a DSPy module can hold: DSPy's optimizers and `deepcopy` copy programs, and a copy gets a
lock of its own (a `threading.Lock` cannot be copied: DSPy warns and shares it)."""

from __future__ import annotations

import threading


class CopyableLock:
    def __init__(self):
        self._lock = threading.Lock()

    def __enter__(self):
        return self._lock.__enter__()

    def __exit__(self, *exc):
        return self._lock.__exit__(*exc)

    def __deepcopy__(self, memo) -> "CopyableLock":
        return CopyableLock()
