"""The one module that talks to Kuzu: open a database, run Cypher, find a node's table.

Kuzu 0.11.3 is archived upstream; its maintained fork (`ladybug`) renames the module and
reads no Kuzu files. Keeping every `import kuzu` here makes a later switch one file.

Invariants: a `GraphStore` owns one `kuzu.Database`; each thread gets its own
`kuzu.Connection` (created on first use), so concurrent agents never share a connection.
Every query runs under the store's query timeout, cut to the time left before the
thread's deadline (graphs/deadline.py) when one is set; past that deadline no query starts.
Values reach Cypher text only via `graphs.literal`. What a node shows (the NodeInfo view) is
graphs/node_info.py's, on top of `GraphStore.query`.
"""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import Any

import kuzu

from graphs.deadline import DeadlinePassed, remaining_s
from graphs.id_index import IdIndex
from graphs.literal import identifier, string_literal
from graphs.schema import GraphSchema

DB_FILE = "graph.kuzu"
META_FILE = "meta.json"
ID_INDEX_FILE = "id_index.npz"
DEFAULT_BUFFER_POOL_BYTES = 2 * 1024**3


def connect(db_path: Path, *, read_only: bool, buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES) -> kuzu.Connection:
    database = kuzu.Database(str(db_path), read_only=read_only, buffer_pool_size=buffer_pool_bytes)
    return kuzu.Connection(database)


class GraphStoreError(RuntimeError):
    """The database directory is missing, incomplete or unreadable."""


class GraphStore:
    def __init__(self, db_dir: Path, database: kuzu.Database, schema: GraphSchema, id_index: IdIndex,
                 query_timeout_ms: int):
        self.db_dir = db_dir
        self.schema = schema
        self.id_index = id_index
        self.query_timeout_ms = query_timeout_ms
        self._database = database
        self._local = threading.local()

    @classmethod
    def open(cls, db_dir: Path | str, *, query_timeout_ms: int = 5000,
             buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES) -> "GraphStore":
        db_dir = Path(db_dir)
        for name in (DB_FILE, META_FILE, ID_INDEX_FILE):
            if not (db_dir / name).exists():
                raise GraphStoreError(
                    f"{db_dir} is not a glm-dspy graph database (missing {name}); "
                    f"build one with `glm-dspy build DATASET --db {db_dir}`"
                )
        database = kuzu.Database(str(db_dir / DB_FILE), read_only=True, buffer_pool_size=buffer_pool_bytes)
        return cls(db_dir, database, GraphSchema.load(db_dir / META_FILE), IdIndex.load(db_dir / ID_INDEX_FILE),
                   query_timeout_ms)

    # ---- raw access ----------------------------------------------------------------------
    @property
    def connection(self) -> kuzu.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = kuzu.Connection(self._database)
            self._local.connection = connection
        return connection

    def query(self, cypher: str, parameters: dict[str, Any] | None = None) -> list[dict[str, Any]]:
        """Run `cypher` and return all rows as dicts (column name -> value).

        Raises DeadlinePassed, without querying, when the thread's deadline has passed; Kuzu
        raises RuntimeError("Interrupted.") for a query that outlives its timeout."""
        timeout_ms = self.query_timeout_ms
        remaining = remaining_s()
        if remaining is not None:
            if remaining <= 0:
                raise DeadlinePassed("the time for graph calls ran out; make fewer calls")
            remaining_ms = math.ceil(remaining * 1000)  # >= 1: 0 would mean no timeout at all
            timeout_ms = min(timeout_ms, remaining_ms) if timeout_ms > 0 else remaining_ms
        connection = self.connection
        connection.set_query_timeout(timeout_ms)  # Kuzu 0.11.3: applies to the next execute; 0 means none
        result = connection.execute(cypher, parameters or {})
        columns = result.get_column_names()
        rows = []
        while result.has_next():
            rows.append(dict(zip(columns, result.get_next())))
        result.close()
        return rows

    # ---- lookups by id (always a labelled primary-key match with a literal) ---------------
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
