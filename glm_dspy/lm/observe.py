"""The calls the engine ran inside a block, as it ran them, and the DSPy warnings they make redundant.

    with observe_calls() as observed:              # one agent call (glm_dspy/modules/calls.py)
        predictor(...)
    observed.records                               # its CallRecords: temperature, finish reason, ...

DSPy 3.4.1 logs "LM response was truncated" (`dspy.clients.execution._result`, logger
`dspy.clients.lm`) for every response that stopped at max_tokens. Inside `observe_calls` that
warning is dropped when the truncated call is in the observer's records (the caller keeps it in
its step), or always with `expect_truncation=True` (a deliberate limit: the judge's one word, a
benchmark's fixed output lengths). A truncation no one recorded (another engine than ours) is
still logged.

The observers ride in a dspy setting, like the query id (query.py): DSPy logs the warning in the
thread that made the call, and `dspy.Parallel` copies the settings into its worker threads.
"""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import dspy

OBSERVERS_SETTING = "glm_call_observers"
TRUNCATION_WARNING = "LM response was truncated"
_DSPY_LM_LOGGER = "dspy.clients.lm"


class CallObserver:
    """The engine's records of the calls made inside one `observe_calls` block, in the order they
    finished. Invariant: without `expect_truncation`, no more truncation warnings are absorbed
    than there are truncated records (each recorded truncation silences its own warning)."""

    def __init__(self, *, expect_truncation: bool = False) -> None:
        self.expect_truncation = expect_truncation
        self.records: list = []
        self._num_absorbed = 0
        self._lock = threading.Lock()  # calls of one block may finish in several threads

    def add(self, record) -> None:
        with self._lock:
            self.records.append(record)

    @property
    def num_truncated(self) -> int:
        return sum(record.finish_reason == "length" for record in self.records)

    def absorb_truncation_warning(self) -> bool:
        """True if a truncation warning is accounted for here (and so need not be printed)."""
        with self._lock:
            if self.expect_truncation:
                return True
            if self._num_absorbed < sum(record.finish_reason == "length" for record in self.records):
                self._num_absorbed += 1
                return True
            return False


@contextmanager
def observe_calls(*, expect_truncation: bool = False) -> Iterator[CallObserver]:
    """Collect the engine's record of every call made inside the block (module doc)."""
    _install_warning_filter()
    observer = CallObserver(expect_truncation=expect_truncation)
    with dspy.context(**{OBSERVERS_SETTING: (*current_observers(), observer)}):
        yield observer


def current_observers() -> tuple[CallObserver, ...]:
    return dspy.settings.get(OBSERVERS_SETTING) or ()


def report_call(record) -> None:
    """Called by the engine for every call it finished, in the caller's context."""
    for observer in current_observers():
        observer.add(record)


class _RecordedTruncationFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(TRUNCATION_WARNING):
            return True
        # the innermost observer first: it is the one that made the call
        return not any(observer.absorb_truncation_warning() for observer in reversed(current_observers()))


_FILTER = _RecordedTruncationFilter()


def _install_warning_filter() -> None:
    logger = logging.getLogger(_DSPY_LM_LOGGER)
    if _FILTER not in logger.filters:
        logger.addFilter(_FILTER)
