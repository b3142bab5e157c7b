"""The one module that talks to Kuzu: open a database, run Cypher, find a node's table.

Kuzu 0.11.3 is archived upstream; its maintained fork (`ladybug`) renames the module and
reads no Kuzu files. Keeping every `import kuzu` here makes a later switch one file.

Two ways in. `query` runs this project's own Cypher (graph functions, loaders: text built
from the schema, values through `glm_dspy.graphs.literal`). `read` and `explain` run Cypher that a model
wrote or a pass changed: only after `glm_dspy.graphs.cypher.gate` (one reading statement, allow-listed
functions) and only as the text the gate printed from its parse, never the text that came in.

Invariants: a `GraphStore` owns one read-only `kuzu.Database` for its own queries; each runs on
a fresh `kuzu.Connection` (0.03 ms), so no setting or transaction outlives it. Every query runs
under the store's query timeout, cut to the time left before the thread's deadline
(graphs/deadline.py) when one is set; past that deadline no query starts.
A model's (and a reading's) queries never run in this process: `read` and `explain` send the
gated text to a warm question worker (graphs/query_pool.py, graphs/query_worker.py: at most
`num_question_workers` children, each with the database open read-only, a buffer pool of
`question_buffer_pool_bytes` and `question_memory_bytes` of address space beyond it). Kuzu
crashing on a query is a QueryCrashed, a query past its time is killed (QueryLimit), a query
past its memory fails in its worker (QueryLimit); the worker is replaced and this process lives
on. `read` fetches under the same clock and stops at MAX_FETCH_ROWS rows or MAX_FETCH_BYTES,
saying so (`python -m glm_dspy.bench.hostile` measures the bounds).
What a node shows (the NodeInfo view) is graphs/node_info.py's, on top of `GraphStore.query`.
"""

from __future__ import annotations

import math
import os
import stat
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kuzu

from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.deadline import DeadlinePassed, remaining_s
from glm_dspy.graphs.id_index import IdIndex
from glm_dspy.graphs.query_pool import QueryCrashed, QueryPool, WorkerSettings
from glm_dspy.graphs.literal import identifier, string_literal
from glm_dspy.graphs.schema import GraphSchema

DB_FILE = "graph.kuzu"
META_FILE = "meta.json"
ID_INDEX_FILE = "id_index.npz"
DEFAULT_BUFFER_POOL_BYTES = 2 * 1024**3
DEFAULT_QUESTION_BUFFER_POOL_BYTES = 512 * 1024**2  # the memory bound of every model-written query together
MAX_FETCH_ROWS = 10_000  # rows `read` fetches of a model's query before it stops
MAX_FETCH_BYTES = 16 * 1024**2  # of values (query_worker.value_bytes) `read` fetches before it stops
# what each question worker may allocate outside Kuzu's buffer pool (strings, lists, collect): its RLIMIT_AS
DEFAULT_QUESTION_MEMORY_BYTES = 1024**3
DEFAULT_QUESTION_WORKERS = 2  # the cores of the machine this was sized on; more wait for a free one
# the address space each open database reserves (Kuzu's default is 8 TiB: a process holding
# ~15 open at once ran out of its 128 TiB); also the largest a database may grow
MAX_DB_BYTES = 1 << 40


def connect(db_path: Path, *, read_only: bool, buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES) -> kuzu.Connection:
    database = kuzu.Database(str(db_path), read_only=read_only, buffer_pool_size=buffer_pool_bytes,
                              max_db_size=MAX_DB_BYTES)
    return kuzu.Connection(database)


class GraphStoreError(RuntimeError):
    """The database directory is missing, incomplete or unreadable."""


def check_database_files(db_dir: Path) -> None:
    """`db_dir` holds the files `glm-dspy build` writes, each a regular file (a named pipe, a
    socket, a device or a folder in its place is refused before anything opens it: opening a
    pipe blocks forever). Looks with stat only; raises GraphStoreError naming the file."""
    build = f"build one with `glm-dspy build DATASET --db {db_dir}`"
    if not db_dir.is_dir():
        raise GraphStoreError(f"{db_dir} is not a folder; {build}")
    for name in (DB_FILE, META_FILE, ID_INDEX_FILE):
        try:
            mode = os.stat(db_dir / name).st_mode
        except FileNotFoundError:
            raise GraphStoreError(f"{db_dir} is not a glm-dspy graph database (missing {name}); {build}") from None
        except OSError as error:
            raise GraphStoreError(f"{db_dir / name}: cannot be read ({error.strerror})") from None
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a named pipe" if stat.S_ISFIFO(mode) else "not a regular file"
            raise GraphStoreError(f"{db_dir / name} is {kind}, not the file `glm-dspy build` writes; {build}")


class QueryLimit(RuntimeError):
    """A model's query stopped at one of its limits: its time (Kuzu's "Interrupted.", or its
    worker killed past it) or its memory (Kuzu's "buffer pool is full", or the worker's address
    space). Which one a runaway query meets first depends on the machine; the message names it,
    and the serving process lives on either way."""


@dataclass(slots=True)
class ReadResult:
    """What `GraphStore.read` fetched: the rows, why fetching stopped early (None: all were
    read) and the canonical text that ran."""
    rows: list[dict[str, Any]]
    truncated: str | None
    text: str


class GraphStore:
    def __init__(self, db_dir: Path, database: kuzu.Database, schema: GraphSchema, id_index: IdIndex,
                 query_timeout_ms: int, question_buffer_pool_bytes: int = DEFAULT_QUESTION_BUFFER_POOL_BYTES,
                 question_memory_bytes: int = DEFAULT_QUESTION_MEMORY_BYTES,
                 num_question_workers: int = DEFAULT_QUESTION_WORKERS):
        self.db_dir = db_dir
        self.schema = schema
        self.id_index = id_index
        self.query_timeout_ms = query_timeout_ms
        self._database = database
        self.question_buffer_pool_bytes = question_buffer_pool_bytes
        self.question_memory_bytes = question_memory_bytes
        self._questions = QueryPool(WorkerSettings(str(db_dir / DB_FILE), question_buffer_pool_bytes,
                                                   question_memory_bytes, MAX_DB_BYTES), num_question_workers)
        weakref.finalize(self, self._questions.close)

    @classmethod
    def open(cls, db_dir: Path | str, *, query_timeout_ms: int = 5000,
             buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES,
             question_buffer_pool_bytes: int = DEFAULT_QUESTION_BUFFER_POOL_BYTES,
             question_memory_bytes: int = DEFAULT_QUESTION_MEMORY_BYTES,
             num_question_workers: int = DEFAULT_QUESTION_WORKERS) -> "GraphStore":
        db_dir = Path(db_dir)
        check_database_files(db_dir)
        database = kuzu.Database(str(db_dir / DB_FILE), read_only=True, buffer_pool_size=buffer_pool_bytes,
                                  max_db_size=MAX_DB_BYTES)
        return cls(db_dir, database, GraphSchema.load(db_dir / META_FILE), IdIndex.load(db_dir / ID_INDEX_FILE),
                   query_timeout_ms, question_buffer_pool_bytes, question_memory_bytes, num_question_workers)

    def close(self) -> None:
        """Stop the question workers (they also stop when the store is garbage-collected)."""
        self._questions.close()

    # ---- running Cypher ------------------------------------------------------------------
    def _timeout_ms(self) -> int:
        """The timeout for the next query: the store's, cut to the thread's deadline."""
        timeout_ms = self.query_timeout_ms
        remaining = remaining_s()
        if remaining is not None:
            if remaining <= 0:
                raise DeadlinePassed("the time for graph calls ran out; make fewer calls")
            remaining_ms = math.ceil(remaining * 1000)  # >= 1: 0 would mean no timeout at all
            timeout_ms = min(timeout_ms, remaining_ms) if timeout_ms > 0 else remaining_ms
        return timeout_ms

    def _execute(self, cypher: str, parameters: dict[str, Any] | None = None):
        """The one call into Kuzu's execute in this process: a fresh connection under `_timeout_ms`."""
        connection = kuzu.Connection(self._database)
        connection.set_query_timeout(self._timeout_ms())  # Kuzu 0.11.3: applies to the next execute
        return connection.execute(cypher, parameters or {})

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run this project's own `cypher` and return all rows as dicts (column name -> value).

        Raises DeadlinePassed, without querying, when the thread's deadline has passed; Kuzu
        raises RuntimeError("Interrupted.") for a query that outlives its timeout."""
        result = self._execute(cypher, parameters)
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(dict(zip(columns, result.get_next())))
        result.close()
        return rows

    def read(self, cypher: str, *, max_rows: int = MAX_FETCH_ROWS, max_bytes: int = MAX_FETCH_BYTES) -> ReadResult:
        """Run Cypher a model (or a reading) wrote: gated (raises QueryRefused or
        CypherSyntaxError), then the gate's canonical text in a question worker, fetched under
        the query's timeout and the row and byte caps. Kuzu's errors are RuntimeErrors; past the
        time or the memory a QueryLimit that says which; Kuzu dying on it a QueryCrashed;
        DeadlinePassed once the thread's deadline has passed."""
        text = gate(cypher).text
        reply = self._run_question({"text": text, "max_rows": max_rows, "max_bytes": max_bytes})
        columns = reply["columns"]
        return ReadResult([dict(zip(columns, values)) for values in reply["rows"]], reply["truncated"], text)

    def explain(self, cypher: str) -> str:
        """Check that Kuzu can plan Cypher a model wrote, running nothing but EXPLAIN of the one
        gated statement in a question worker; returns the canonical text. Raises as `read` does."""
        text = gate(cypher).text
        self._run_question({"text": f"EXPLAIN {text}", "explain": True, "max_rows": 0, "max_bytes": 0})
        return text

    def _run_question(self, request: dict) -> dict:
        """The worker's rows for a gated request, or the exception its error means."""
        timeout_ms = self._timeout_ms()
        reply = self._questions.run(request, timeout_ms)
        if reply["op"] == "rows":
            return reply
        if reply["kind"] == "time":
            if (left := remaining_s()) is not None and left <= 0:
                raise DeadlinePassed("the question's time ran out while a query ran")
            raise QueryLimit(f"the query ran past its time limit ({timeout_ms / 1000:g} s)")
        if reply["kind"] == "memory":
            if "buffer pool is full" in reply["message"]:
                raise QueryLimit(f"the query ran past its memory limit "
                                 f"({self.question_buffer_pool_bytes // 1024**2} MiB of buffer pool)")
            raise QueryLimit(f"the query ran past its memory limit "
                             f"({self.question_memory_bytes // 1024**2} MiB beyond the buffer pool)")
        raise RuntimeError(reply["message"])

    # ---- lookups by id (always a labelled primary-key match with a literal) ---------------
    def name_of(self, node_id: str) -> str | None:
        """The node's name (its type's text feature) as text; None where no node has the id, or
        its type has no text feature, or the node no name."""
        type_name = self.type_of(node_id)
        feature = self.schema.node_types[type_name].text_feature if type_name is not None else None
        if feature is None:
            return None
        rows = self.query(f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}}) "
                          f"RETURN n.{identifier(feature)} AS name")
        return None if not rows or rows[0]["name"] is None else str(rows[0]["name"])

    def type_of(self, node_id: str) -> str | None:
        """The node type holding `node_id`, or None if no node has it."""
        string_literal(node_id)  # validate before anything else
        candidates = self.id_index.candidate_types(node_id)
        if len(candidates) == 1:
            return candidates[0]
        for type_name in candidates:  # a hash collision: ask Kuzu which table really has it
            rows = self.query(f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}}) RETURN n.id")
            if rows:
                return type_name
        return None
