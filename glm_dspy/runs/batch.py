"""Many questions on one engine: `run_batch`, which `GLM.batch` calls.

The questions run `concurrency` at a time from a thread pool over one program, so one engine
batches their LLM requests and one graph store and executor serve their snippets. Each query
runs under a `QueryRun` of the journal (glm_dspy/runs/journal.py): every agent call it completes is
journaled, and its prediction when it finishes.

Recovery: when a query fails because the engine is lost (`engine_lost`: the in-process engine
died, our server went away, any other server refuses connections) or hung (a call still
timed out after call_agent's retries, glm_dspy/modules/calls.py), the engine's transport
is restarted once (`VllmEngine.recover`; the first thread to see the loss restarts it, the
others wait for it) and the query runs again from its journal, resuming at its first call
not journaled. A batch gives up after `max_recoveries` restarts, with the error of the last
loss; what finished stays in the journal, and running the batch again on it finishes the rest.
An engine that is not ours (a `dspy.LM` of any provider) cannot be restarted: the batch stops at
once and its unfinished questions stay pending, not failed.
Any other error is the question's own: the query is journaled `failed` with the error, which
is raised (running the batch again runs it again). A question found still `running` after
MAX_RUNS runs (the process died during each) is a poison question: journaled failed and raised
as `PoisonQuestion`, not run a fourth time. A question the batch gave up on because the engine stayed lost is
pending again (`Journal.release`), not poison.
Running a batch again on its journal (the same questions, or the same `batch_id`) re-runs no
finished query: its journaled prediction comes back, marked `resumed` where it took more than
one run.
"""

from __future__ import annotations

import contextvars
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import dspy

from glm_dspy.runs.journal import MAX_RUNS, Journal, QueryState, poison_error, running
from glm_dspy.lm.transport import engine_lost, timed_out

DEFAULT_MAX_RECOVERIES = 3
RECOVERY_BACKOFF_S = (0.0, 2.0, 8.0)  # wait before the n-th restart (a server may need time to come back)


class Recovery:
    """Restarts the engine of `lm` after a loss, at most `max_recoveries` times for the batch."""

    def __init__(self, lm, max_recoveries: int):
        self.engine = getattr(lm, "engine", None)
        self.max_recoveries = max_recoveries
        self.num_restarts = 0
        self._lock = threading.Lock()

    def transport(self):
        return getattr(self.engine, "transport", None)

    def recover(self, lost_transport, error: BaseException) -> None:
        """Restart `lost_transport` unless another thread already did; raise `error` when out of restarts."""
        if self.engine is None or not hasattr(self.engine, "recover"):
            raise error  # not our engine: nothing to restart
        with self._lock:
            if self.engine.transport is not lost_transport:
                return  # another query's thread restarted it already
            if self.num_restarts >= self.max_recoveries:
                raise error
            time.sleep(RECOVERY_BACKOFF_S[min(self.num_restarts, len(RECOVERY_BACKOFF_S) - 1)])
            self.engine.recover(lost_transport)
            self.num_restarts += 1


def error_text(error: BaseException, max_chars: int = 2000) -> str:
    """How a failed query's error is journaled and reported: its type and message, cut to `max_chars`."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= max_chars else text[:max_chars - 15] + " ... (cut off)"


def _prediction(state: QueryState) -> dspy.Prediction:
    return dspy.Prediction(**state.prediction, resumed=state.resumed, runs=state.runs)


class PoisonQuestion(RuntimeError):
    """A question found still running after `max_runs` runs: it took the process down each time."""


def answer_query(program, journal: Journal, query_id: str, question: str, recovery: Recovery,
                 max_runs: int = MAX_RUNS) -> dspy.Prediction:
    """The journaled query's prediction: the stored one if it finished, else a run (resumed from
    its journaled calls), again after each engine restart (module doc). A query this process
    finds still `running` after `max_runs` runs (a process died during each) is journaled failed
    and raises PoisonQuestion instead of running again."""
    state = journal.state(query_id)
    if state.status == "running" and state.runs >= max_runs:
        journal.fail(query_id, poison_error(state, max_runs))
        raise PoisonQuestion(poison_error(state, max_runs))
    while True:
        state = journal.state(query_id)
        if state.status == "done":
            return _prediction(state)
        transport = recovery.transport()
        try:
            with running(journal.start(query_id)):
                prediction = program(question=question)
        except Exception as error:  # noqa: BLE001 - only a lost or hung engine is retried
            if engine_lost(error) is None and not timed_out(error):
                journal.fail(query_id, error_text(error))
                raise
            try:
                recovery.recover(transport, error)
            except BaseException:  # out of restarts: the engine's fault, not the question's
                journal.release(query_id)
                raise
            continue
        journal.finish(query_id, prediction.toDict())
        return _prediction(journal.state(query_id))


def run_batch(program, questions: list[str], *, concurrency: int = 4, journal: Journal | str | Path | None = None,
              batch_id: str | None = None, max_recoveries: int = DEFAULT_MAX_RECOVERIES,
              on_done=None) -> list[dspy.Prediction]:
    """`program(question=q)` for every question, `concurrency` at a time; the predictions in order.

    `journal`: a Journal, or the path of its SQLite file (created if new); None journals in
    memory (the engine is still restarted after a loss, but a killed process loses the batch).
    `batch_id` names the batch in the journal (default: from the questions). `on_done(i,
    prediction)` is called as each question finishes (e.g. a progress bar). Each prediction has
    `resumed` (True: it took more than one run) and `runs`.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    questions = list(questions)
    for i, question in enumerate(questions):
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"question {i} is {question!r}; every question must be a non-empty string")
    owned = not isinstance(journal, Journal)
    journal = Journal(":memory:" if journal is None else journal) if owned else journal
    recovery = Recovery(dspy.settings.lm, max_recoveries)
    try:
        ids = journal.submit(questions, batch_id)

        def task(i: int) -> dspy.Prediction:
            prediction = answer_query(program, journal, ids[i], questions[i], recovery)
            if on_done is not None:
                on_done(i, prediction)
            return prediction

        with ThreadPoolExecutor(max_workers=min(concurrency, max(1, len(questions)))) as pool:
            # each question in a copy of the caller's context: its dspy.context (LM, adapter) and no journal run
            futures = [pool.submit(contextvars.copy_context().run, task, i) for i in range(len(questions))]
            return [future.result() for future in futures]
    finally:
        if owned:
            journal.close()
