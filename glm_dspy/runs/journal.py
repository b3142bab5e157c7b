"""A durable journal of GLM queries: each question, every agent call it completed, its answer.

What it is for (GLM paper §6.1, fault tolerance): if the engine dies, or the whole process is
killed, a batch run again on the same journal finishes every query that was not finished,
each from its last completed step, and answers none twice.

How a query resumes: GLM's control flow is a function of its agents' outputs (the graph and the
snippets are deterministic), so replaying the outputs of the calls a query completed, in the
order it asks for them, brings it back to the step where it stopped without asking the LLM
again; the first call not in the journal is the first one made. `call_agent`
(glm_dspy/modules/calls.py) asks the active `QueryRun` before calling the LLM and records
after. A call is keyed by its agent, inputs and sampling config (the sample draws carry their
own rollout ids) and by how many identical calls the run has already made, so concurrent
sample draws replay whatever order they finish in.

Storage: one SQLite file in WAL mode (a commit is durable when it returns; readers never block
the writer); one connection, used under a lock, so one `Journal` serves a batch's threads.
Invariants:
* a call row is written only after its call completed (parsed, or given up as unexpected
  output): a call cut short by a dead engine leaves no row and is asked again;
* `finish` stores a query's prediction once; a finished query is never run again, so asking it
  again returns that prediction (`resumed` and `runs` say how it got there);
* `runs` counts the runs started on a query: a query with runs > 1 was resumed;
* a query ends `done` (its prediction) or `failed` (its error, `fail`); a failed query runs
  again only when a batch is run again on the journal (`start`), never by itself.

Schema versions (`PRAGMA user_version`): 0 is the first (statuses pending, running, done), 1
adds the `failed` status and the `error` column. Opening a version-0 file migrates it in one
transaction (SQLite cannot change a CHECK in place: the table is copied into the new one).
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import sqlite3
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

QUERIES_COLUMNS = """(
    id TEXT PRIMARY KEY,
    batch TEXT NOT NULL,
    position INTEGER NOT NULL,
    question TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('pending', 'running', 'done', 'failed')),
    runs INTEGER NOT NULL DEFAULT 0,
    prediction TEXT,
    error TEXT,
    submitted_at REAL NOT NULL,
    finished_at REAL
)"""
SCHEMA = f"""
CREATE TABLE IF NOT EXISTS queries {QUERIES_COLUMNS};
CREATE TABLE IF NOT EXISTS calls (
    query_id TEXT NOT NULL REFERENCES queries(id),
    key TEXT NOT NULL,
    agent TEXT NOT NULL,
    outputs TEXT,
    step TEXT NOT NULL,
    PRIMARY KEY (query_id, key)
);
"""

MAX_RUNS = 3  # a question's runs: the first and two resumes after the process stopped while it ran
STATUSES = ("pending", "running", "done", "failed")
SCHEMA_VERSION = 1
# version 0 -> 1: the queries table rebuilt with the 'failed' status and the error column
MIGRATE_TO_1 = f"""
CREATE TABLE queries_1 {QUERIES_COLUMNS};
INSERT INTO queries_1 (id, batch, position, question, status, runs, prediction, submitted_at, finished_at)
    SELECT id, batch, position, question, status, runs, prediction, submitted_at, finished_at FROM queries;
DROP TABLE queries;
ALTER TABLE queries_1 RENAME TO queries;
"""


@dataclass(frozen=True, slots=True)
class QueryState:
    """One query as the journal holds it."""

    id: str
    batch: str
    position: int
    question: str
    status: str
    runs: int
    num_calls: int  # completed agent calls journaled
    prediction: dict | None  # the finished query's prediction fields; None until done
    error: str | None = None  # why the query failed; None unless failed

    @property
    def resumed(self) -> bool:
        return self.runs > 1


def batch_id_of(questions: list[str]) -> str:
    """The default batch id: the same questions in the same order are the same batch."""
    return hashlib.sha256(json.dumps(list(questions)).encode()).hexdigest()[:16]


class Journal:
    """The journal in one SQLite file (module doc); `Journal(":memory:")` keeps it in memory."""

    def __init__(self, path: str | Path):
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._migrate()
        except sqlite3.DatabaseError as error:
            raise ValueError(f"{self.path}: not a GLM journal ({error}); give a new file or an existing journal")
        self._lock = threading.Lock()

    def _migrate(self) -> None:
        """Create the tables of a new journal, or bring an older one to SCHEMA_VERSION (module doc)."""
        self._db.execute("BEGIN IMMEDIATE")  # another process opening the same file waits for the migration
        try:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise sqlite3.DatabaseError(f"its schema version {version} is newer than this glm-dspy's "
                                            f"{SCHEMA_VERSION}; upgrade glm-dspy")
            old = self._db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'queries'").fetchone()
            if old is not None and "'failed'" not in old[0]:
                for statement in MIGRATE_TO_1.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def submit(self, questions: list[str], batch: str | None = None) -> list[str]:
        """Journal `questions` as batch `batch` (default: `batch_id_of(questions)`); their query ids,
        in order. Submitting a batch again adds nothing: the ids are those of the first time."""
        batch = batch or batch_id_of(questions)
        ids = [f"{batch}-{i}" for i in range(len(questions))]
        now = time.time()
        with self._transaction() as db:
            for position, (query_id, question) in enumerate(zip(ids, questions)):
                row = db.execute("SELECT question FROM queries WHERE id = ?", (query_id,)).fetchone()
                if row is not None and row[0] != question:
                    raise ValueError(f"{self.path}: batch {batch!r} already has question {position} "
                                     f"{row[0]!r}, not {question!r}; give another batch id")
                db.execute("INSERT OR IGNORE INTO queries (id, batch, position, question, status, submitted_at) "
                           "VALUES (?, ?, ?, ?, 'pending', ?)", (query_id, batch, position, question, now))
        return ids

    def start(self, query_id: str) -> "QueryRun":
        """A new run of an unfinished query (its `runs` + 1): replays its journaled calls, records new ones."""
        with self._transaction() as db:
            row = db.execute("SELECT status FROM queries WHERE id = ?", (query_id,)).fetchone()
            if row is None:
                raise KeyError(f"{self.path}: no query {query_id!r} in the journal")
            if row[0] == "done":
                raise ValueError(f"{self.path}: query {query_id!r} is finished; read its prediction instead")
            db.execute("UPDATE queries SET status = 'running', runs = runs + 1, error = NULL WHERE id = ?",
                       (query_id,))
            calls = {key: (json.loads(outputs) if outputs is not None else None, json.loads(step))
                     for key, outputs, step in db.execute("SELECT key, outputs, step FROM calls WHERE query_id = ?",
                                                          (query_id,))}
        return QueryRun(self, query_id, calls)

    def record_call(self, query_id: str, key: str, agent: str, outputs: dict | None, step: dict) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO calls (query_id, key, agent, outputs, step) VALUES (?, ?, ?, ?, ?)",
                       (query_id, key, agent, None if outputs is None else json.dumps(outputs, default=str),
                        json.dumps(step, default=str)))

    def finish(self, query_id: str, prediction: dict) -> bool:
        """Store the query's prediction; False (and nothing changes) if it was already finished."""
        with self._transaction() as db:
            changed = db.execute("UPDATE queries SET status = 'done', prediction = ?, finished_at = ? "
                                 "WHERE id = ? AND status != 'done'",
                                 (json.dumps(prediction, default=str), time.time(), query_id)).rowcount
        return changed == 1

    def release(self, query_id: str) -> bool:
        """A running query back to pending, its runs kept: it stopped for a reason not its own (the
        engine was lost past its restarts), so it is no poison question when run again. False if
        it was not running."""
        with self._transaction() as db:
            changed = db.execute("UPDATE queries SET status = 'pending' WHERE id = ? AND status = 'running'",
                                 (query_id,)).rowcount
        return changed == 1

    def fail(self, query_id: str, error: str) -> bool:
        """Mark the query failed with `error`; False (and nothing changes) if it had ended (done or failed)."""
        with self._transaction() as db:
            changed = db.execute("UPDATE queries SET status = 'failed', error = ?, finished_at = ? "
                                 "WHERE id = ? AND status IN ('pending', 'running')",
                                 (error, time.time(), query_id)).rowcount
        return changed == 1

    def state(self, query_id: str) -> QueryState:
        with self._lock:
            row = self._db.execute("SELECT id, batch, position, question, status, runs, prediction, "
                                   "(SELECT COUNT(*) FROM calls WHERE query_id = queries.id), error "
                                   "FROM queries WHERE id = ?", (query_id,)).fetchone()
        if row is None:
            raise KeyError(f"{self.path}: no query {query_id!r} in the journal")
        id_, batch, position, question, status, runs, prediction, num_calls, error = row
        return QueryState(id_, batch, position, question, status, runs, num_calls,
                          None if prediction is None else json.loads(prediction), error)

    def states(self, batch: str | None = None) -> list[QueryState]:
        with self._lock:
            ids = [row[0] for row in self._db.execute(
                "SELECT id FROM queries WHERE (? IS NULL OR batch = ?) ORDER BY submitted_at, batch, position",
                (batch, batch))]
        return [self.state(query_id) for query_id in ids]

    def unfinished(self) -> list[QueryState]:
        """The queries pending or running, in the order they were submitted."""
        with self._lock:
            ids = [row[0] for row in self._db.execute(
                "SELECT id FROM queries WHERE status IN ('pending', 'running') ORDER BY submitted_at, batch, position")]
        return [self.state(query_id) for query_id in ids]


class QueryRun:
    """One run of one query: `replay` gives a completed call's outputs, `record` journals a new one.

    Thread-safe (sample draws call it from their threads). A key's n-th use in this run maps to
    its n-th journaled occurrence (module doc)."""

    def __init__(self, journal: Journal, query_id: str, calls: dict[str, tuple[dict | None, dict]]):
        self.journal = journal
        self.query_id = query_id
        self._calls = calls
        self._seen: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.num_replayed = 0

    def key(self, agent: str, inputs: dict[str, Any], config: dict[str, Any]) -> str:
        base = hashlib.sha256(json.dumps([agent, inputs, config], sort_keys=True, default=str).encode()).hexdigest()
        with self._lock:
            self._seen[base] += 1
            return f"{base[:32]}#{self._seen[base]}"

    def replay(self, key: str) -> tuple[dict | None, dict] | None:
        """(outputs, step fields) of the call journaled under `key` (outputs None: it was unparseable)."""
        found = self._calls.get(key)
        if found is not None:
            with self._lock:
                self.num_replayed += 1
        return found

    def record(self, key: str, agent: str, outputs: dict | None, step: dict) -> None:
        self.journal.record_call(self.query_id, key, agent, outputs, step)


_current: contextvars.ContextVar[QueryRun | None] = contextvars.ContextVar("glm_query_run", default=None)


@contextmanager
def running(run: QueryRun | None) -> Iterator[QueryRun | None]:
    """Make `run` the journaled run of the calling context (and of contexts copied from it)."""
    token = _current.set(run)
    try:
        yield run
    finally:
        _current.reset(token)


def current_run() -> QueryRun | None:
    return _current.get()


def poison_error(state: QueryState, max_runs: int) -> str:
    """Why a question found still running after `max_runs` runs is not run again."""
    return (f"poison question: it was still running when the process stopped, after {state.runs} runs "
            f"(at most {max_runs}); not resumed again. Ask it again to run it once more")
