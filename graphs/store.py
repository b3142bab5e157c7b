"""The one module that talks to Kuzu: open a database, run Cypher, find a node's table.

Kuzu 0.11.3 is archived upstream; its maintained fork (`ladybug`) renames the module and
reads no Kuzu files. Keeping every `import kuzu` here makes a later switch one file.

Two ways in. `query` runs this project's own Cypher (graph functions, loaders: text built
from the schema, values through `glm_dspy.graphs.literal`). `read` and `explain` run Cypher that a model
wrote or a pass changed: only after `glm_dspy.graphs.cypher.gate` (one reading statement, allow-listed
functions) and only as the text the gate printed from its parse, never the text that came in.

Invariants: a `GraphStore` owns one read-only `kuzu.Database`; every query runs on a fresh
`kuzu.Connection` (0.03 ms), so no setting or transaction outlives it and concurrent agents
never share one. Every query runs under the store's query timeout, cut to the time left before
the thread's deadline (graphs/deadline.py) when one is set; past that deadline no query starts.
`read` fetches under the same clock and stops at MAX_FETCH_ROWS rows or MAX_FETCH_BYTES,
saying so. Kuzu bounds its own memory by its buffer pool: a query that needs more fails with
Kuzu's "buffer pool is full" (checked on 0.11.3), and the process lives on. A model's queries
run on a second read-only `kuzu.Database` over the same files, opened on first use, whose pool
is `question_buffer_pool_bytes` (512 MiB): all of them together hold at most that much, plus
what `read` fetches, however hostile (`python -m glm_dspy.bench.hostile` measures it); the graph
functions keep their own, larger pool (`buffer_pool_bytes`).
What a node shows (the NodeInfo view) is graphs/node_info.py's, on top of `GraphStore.query`.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import kuzu

from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.deadline import DeadlinePassed, remaining_s
from glm_dspy.graphs.id_index import IdIndex
from glm_dspy.graphs.literal import identifier, string_literal
from glm_dspy.graphs.schema import GraphSchema

DB_FILE = "graph.kuzu"
META_FILE = "meta.json"
ID_INDEX_FILE = "id_index.npz"
DEFAULT_BUFFER_POOL_BYTES = 2 * 1024**3
DEFAULT_QUESTION_BUFFER_POOL_BYTES = 512 * 1024**2  # the memory bound of every model-written query together
MAX_FETCH_ROWS = 10_000  # rows `read` fetches of a model's query before it stops
MAX_FETCH_BYTES = 16 * 1024**2  # of values (`_size`) `read` fetches before it stops
# the address space each open database reserves (Kuzu's default is 8 TiB: a process holding
# ~15 open at once ran out of its 128 TiB); also the largest a database may grow
MAX_DB_BYTES = 1 << 40


def connect(db_path: Path, *, read_only: bool, buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES) -> kuzu.Connection:
    database = kuzu.Database(str(db_path), read_only=read_only, buffer_pool_size=buffer_pool_bytes,
                              max_db_size=MAX_DB_BYTES)
    return kuzu.Connection(database)


class GraphStoreError(RuntimeError):
    """The database directory is missing, incomplete or unreadable."""


class QueryLimit(RuntimeError):
    """A model's query stopped at one of its limits: its time (Kuzu's "Interrupted.") or its
    memory (Kuzu's "buffer pool is full"). Which one a runaway query meets first depends on the
    machine; the message names it, and the process lives on either way."""


def _limit_hit(error: RuntimeError, timeout_ms: int, pool_bytes: int) -> QueryLimit | None:
    """The QueryLimit that Kuzu's `error` means, or None for any other error."""
    text = str(error)
    if "Interrupted" in text:
        return QueryLimit(f"the query ran past its time limit ({timeout_ms / 1000:g} s)")
    if "buffer pool is full" in text:
        return QueryLimit(f"the query ran past its memory limit ({pool_bytes // 1024**2} MiB of buffer pool)")
    return None


@dataclass(slots=True)
class ReadResult:
    """What `GraphStore.read` fetched: the rows, why fetching stopped early (None: all were
    read) and the canonical text that ran."""
    rows: list[dict[str, Any]]
    truncated: str | None
    text: str


def _size(value: Any) -> int:
    """About how many bytes `value` holds once in Python (strings by length, containers summed)."""
    if isinstance(value, (str, bytes)):
        return len(value) + 8
    if isinstance(value, dict):
        return 8 + sum(len(str(key)) + _size(item) for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return 8 + sum(_size(item) for item in value)
    return 8


class GraphStore:
    def __init__(self, db_dir: Path, database: kuzu.Database, schema: GraphSchema, id_index: IdIndex,
                 query_timeout_ms: int, question_buffer_pool_bytes: int = DEFAULT_QUESTION_BUFFER_POOL_BYTES):
        self.db_dir = db_dir
        self.schema = schema
        self.id_index = id_index
        self.query_timeout_ms = query_timeout_ms
        self._database = database
        self.question_buffer_pool_bytes = question_buffer_pool_bytes
        self._question_database: kuzu.Database | None = None  # opened by the first `read`/`explain`
        self._question_lock = threading.Lock()

    @classmethod
    def open(cls, db_dir: Path | str, *, query_timeout_ms: int = 5000,
             buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES,
             question_buffer_pool_bytes: int = DEFAULT_QUESTION_BUFFER_POOL_BYTES) -> "GraphStore":
        db_dir = Path(db_dir)
        for name in (DB_FILE, META_FILE, ID_INDEX_FILE):
            if not (db_dir / name).exists():
                raise GraphStoreError(
                    f"{db_dir} is not a glm-dspy graph database (missing {name}); "
                    f"build one with `glm-dspy build DATASET --db {db_dir}`"
                )
        database = kuzu.Database(str(db_dir / DB_FILE), read_only=True, buffer_pool_size=buffer_pool_bytes,
                                  max_db_size=MAX_DB_BYTES)
        return cls(db_dir, database, GraphSchema.load(db_dir / META_FILE), IdIndex.load(db_dir / ID_INDEX_FILE),
                   query_timeout_ms, question_buffer_pool_bytes)

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

    def _questions_database(self) -> kuzu.Database:
        with self._question_lock:
            if self._question_database is None:
                self._question_database = kuzu.Database(str(self.db_dir / DB_FILE), read_only=True,
                                                        buffer_pool_size=self.question_buffer_pool_bytes,
                                                        max_db_size=MAX_DB_BYTES)
            return self._question_database

    def _execute(self, cypher: str, parameters: dict[str, Any] | None = None, *, question: bool = False,
                 timeout_ms: int | None = None):
        """The one call into Kuzu's execute: a fresh connection (to the questions' database for a
        model's query), under `timeout_ms` (None: `_timeout_ms`). Returns (result, the monotonic
        time the query must be fetched by, or None)."""
        timeout_ms = self._timeout_ms() if timeout_ms is None else timeout_ms
        connection = kuzu.Connection(self._questions_database() if question else self._database)
        connection.set_query_timeout(timeout_ms)  # Kuzu 0.11.3: applies to the next execute; 0 means none
        ends_at = time.monotonic() + timeout_ms / 1000 if timeout_ms > 0 else None
        return connection.execute(cypher, parameters or {}), ends_at

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run this project's own `cypher` and return all rows as dicts (column name -> value).

        Raises DeadlinePassed, without querying, when the thread's deadline has passed; Kuzu
        raises RuntimeError("Interrupted.") for a query that outlives its timeout."""
        result, _ = self._execute(cypher, parameters)
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(dict(zip(columns, result.get_next())))
        result.close()
        return rows

    def read(self, cypher: str, *, max_rows: int = MAX_FETCH_ROWS, max_bytes: int = MAX_FETCH_BYTES) -> ReadResult:
        """Run Cypher a model wrote: gated (raises QueryRefused or CypherSyntaxError), then the
        gate's canonical text, fetched under the query's timeout and the row and byte caps.
        Kuzu's errors are RuntimeErrors; past the timeout (whether Kuzu was still running or the
        rows were still being read) or the buffer pool, a QueryLimit that says which;
        DeadlinePassed once the thread's deadline has passed."""
        gated = gate(cypher)
        timeout_ms = self._timeout_ms()
        try:
            return self._fetch(gated.text, max_rows, max_bytes, timeout_ms)
        except QueryLimit:
            raise
        except RuntimeError as error:
            if (limit := _limit_hit(error, timeout_ms, self.question_buffer_pool_bytes)) is not None:
                raise limit from error
            raise

    def _fetch(self, text: str, max_rows: int, max_bytes: int, timeout_ms: int) -> ReadResult:
        result, ends_at = self._execute(text, question=True, timeout_ms=timeout_ms)
        columns = result.get_column_names()
        rows, num_bytes, truncated = [], 0, None
        try:
            while result.has_next():
                if len(rows) >= max_rows:
                    truncated = f"more than {max_rows:,} rows; only the first {max_rows:,} were read"
                    break
                if ends_at is not None and len(rows) % 256 == 0 and time.monotonic() > ends_at:
                    if (left := remaining_s()) is not None and left <= 0:
                        raise DeadlinePassed("the question's time ran out while a query's rows were read")
                    raise RuntimeError("Interrupted. (past the query's time limit while its rows were read)")
                values = result.get_next()
                num_bytes += sum(_size(value) for value in values)
                if num_bytes > max_bytes:
                    truncated = f"more than {max_bytes // 1024**2} MiB of values; only {len(rows):,} rows were read"
                    break
                rows.append(dict(zip(columns, values)))
        finally:
            result.close()
        return ReadResult(rows, truncated, text)

    def explain(self, cypher: str) -> str:
        """Check that Kuzu can plan Cypher a model wrote, running nothing but EXPLAIN of the one
        gated statement; returns the canonical text. Raises as `read` does."""
        gated = gate(cypher)
        result, _ = self._execute(f"EXPLAIN {gated.text}", question=True)
        result.close()
        return gated.text

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
