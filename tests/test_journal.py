"""The journal's `failed` status: how a query fails, and how a journal of the first schema migrates."""

import sqlite3

import dspy
import pytest

from glm_dspy.runs.journal import SCHEMA_VERSION, Journal
from tests.test_batch import QUESTIONS, DyingEngine, scripted_lm

# the first schema (version 0): no 'failed' status, no error column
SCHEMA_0 = """
CREATE TABLE queries (
    id TEXT PRIMARY KEY, batch TEXT NOT NULL, position INTEGER NOT NULL, question TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done')),
    runs INTEGER NOT NULL DEFAULT 0, prediction TEXT, submitted_at REAL NOT NULL, finished_at REAL
);
CREATE TABLE calls (
    query_id TEXT NOT NULL REFERENCES queries(id), key TEXT NOT NULL, agent TEXT NOT NULL, outputs TEXT,
    step TEXT NOT NULL, PRIMARY KEY (query_id, key)
);
INSERT INTO queries VALUES ('b-0', 'b', 0, 'Who?', 'done', 1, '{"answer": "Ada"}', 1.0, 2.0);
INSERT INTO queries VALUES ('b-1', 'b', 1, 'When?', 'running', 2, NULL, 1.0, NULL);
INSERT INTO calls VALUES ('b-1', 'k#1', 'classify', '{"kind": "deterministic"}', '{}');
"""


def test_a_journal_of_the_first_schema_keeps_its_queries_and_can_journal_failures(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(SCHEMA_0)
    with Journal(path) as journal:
        done, running = journal.state("b-0"), journal.state("b-1")
        assert (done.status, done.prediction, done.error) == ("done", {"answer": "Ada"}, None)
        assert (running.status, running.runs, running.num_calls) == ("running", 2, 1)
        assert journal.fail("b-1", "RuntimeError: boom") and not journal.fail("b-0", "too late")
        assert journal.state("b-1").error == "RuntimeError: boom" and journal.state("b-0").status == "done"
    with Journal(path) as journal:  # opened again: nothing migrates twice
        assert [s.status for s in journal.states()] == ["done", "failed"]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_journal_newer_than_this_code_is_refused_not_changed(tmp_path):
    path = tmp_path / "new.sqlite"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(ValueError, match="newer than this glm-dspy"):
        Journal(path)


def test_a_query_its_program_fails_on_is_journaled_failed_and_a_batch_run_again_retries_it(tmp_path):
    path, attempts = tmp_path / "batch.sqlite", []

    class FailsOnce(dspy.Module):
        def forward(self, question):
            attempts.append(question)
            if len(attempts) == 1:
                raise ValueError("a snippet the sandbox refused")
            return dspy.Prediction(answer="1843")

    from glm_dspy.runs.batch import run_batch

    with dspy.context(lm=scripted_lm(DyingEngine())):
        with pytest.raises(ValueError, match="sandbox refused"):
            run_batch(FailsOnce(), QUESTIONS[:1], journal=path)
        with Journal(path) as journal:
            (state,) = journal.states()
            assert state.status == "failed" and state.error == "ValueError: a snippet the sandbox refused"
        (prediction,) = run_batch(FailsOnce(), QUESTIONS[:1], journal=path)
    assert prediction.answer == "1843" and prediction.runs == 2
    with Journal(path) as journal:
        assert journal.states()[0].status == "done" and journal.states()[0].error is None


def test_a_batch_gives_up_on_a_question_found_running_after_max_runs(tmp_path):
    """A question the process died on, every time: a batch run again journals it failed as a
    poison question and raises, instead of running it a fourth time."""
    from glm_dspy.runs.batch import PoisonQuestion, run_batch
    from glm_dspy.runs.journal import MAX_RUNS

    path, attempts = tmp_path / "batch.sqlite", []

    class Counts(dspy.Module):
        def forward(self, question):
            attempts.append(question)
            return dspy.Prediction(answer="1843")

    with Journal(path) as journal:
        (query_id,) = journal.submit(QUESTIONS[:1])
        for _ in range(MAX_RUNS):  # each run ends with the process killed: the row stays running
            journal.start(query_id)
    with dspy.context(lm=scripted_lm(DyingEngine())), pytest.raises(PoisonQuestion, match="poison question"):
        run_batch(Counts(), QUESTIONS[:1], journal=path)
    assert attempts == []
    with Journal(path) as journal:
        (state,) = journal.states()
        assert state.status == "failed" and "poison question" in state.error and state.runs == MAX_RUNS
