"""The one module that talks to Kuzu.

Kuzu 0.11.3 is archived upstream; its maintained fork (`ladybug`) renames the module and
reads no Kuzu files. Keeping every `import kuzu` here makes a later switch one file.

Invariants: a `GraphStore` owns one `kuzu.Database`; each thread gets its own
`kuzu.Connection` (created on first use), so concurrent agents never share a connection.
Every query runs under the store's query timeout, cut to the time left before the
thread's deadline (graphs/deadline.py) when one is set; past that deadline no query starts.
Values reach Cypher text only via `graphs.literal`.
"""

from __future__ import annotations

import json
import math
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import kuzu

from graphs.deadline import DeadlinePassed, remaining_s
from graphs.id_index import IdIndex
from graphs.literal import identifier, string_literal
from graphs.schema import DEGREE, REL_PREFIX, RESERVED_COLUMNS, GraphSchema, node_info_query
from graphs.top_neighbours import NBRS, parse_neighbours

LIVE_BRANCHES = 128

DB_FILE = "graph.kuzu"
META_FILE = "meta.json"
ID_INDEX_FILE = "id_index.npz"
DEFAULT_BUFFER_POOL_BYTES = 2 * 1024**3


def connect(db_path: Path, *, read_only: bool, buffer_pool_bytes: int = DEFAULT_BUFFER_POOL_BYTES) -> kuzu.Connection:
    database = kuzu.Database(str(db_path), read_only=read_only, buffer_pool_size=buffer_pool_bytes)
    return kuzu.Connection(database)


class GraphStoreError(RuntimeError):
    """The database directory is missing, incomplete or unreadable."""


@dataclass(slots=True)
class NodeRecord:
    """One node as Kuzu returned it: type, id, features (nulls dropped), and its top-k edges."""

    type: str
    id: str
    features: dict[str, Any]
    neighbours: list[tuple[str, "NodeRecord"]] = field(default_factory=list)  # (relation, node)


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

    def nodes(self, typed_ids: list[tuple[str, str]], *, k: int = 0) -> list[NodeRecord | None]:
        """The nodes at `typed_ids` ((type, id) pairs) with their top-`k` neighbours, in one query.

        Result i is None when node i does not exist. Neighbours follow the NodeInfo view's
        order (round-robin over relations, graphs/top_neighbours.py): read from the lists materialized
        at load when k <= the materialized K, else computed by the view itself.
        """
        if not typed_ids:
            return []
        if k > self.schema.num_neighbours:
            return self.nodes_live(typed_ids, k=k)
        branches = [f"MATCH (n:{identifier(t)} {{id: {string_literal(i)}}}) RETURN {pos} AS pos, to_json(n) AS node"
                    for pos, (t, i) in enumerate(typed_ids)]
        records: list[NodeRecord | None] = [None] * len(typed_ids)
        for row in self.query(" UNION ALL ".join(branches)):
            raw = json.loads(row["node"])
            record = _record(raw)
            for relation, node_id, type_name, text in parse_neighbours(raw.get(NBRS))[:k]:
                record.neighbours.append((relation, NodeRecord(type_name, node_id, self._label(type_name, text))))
            records[row["pos"]] = record
        return records

    def _label(self, type_name: str, text) -> dict[str, Any]:
        """A neighbour's features as a chunk shows them: only its label text, if it has one."""
        feature = self.schema.node_types[type_name].text_feature
        return {feature: str(text)} if feature and text is not None and str(text).strip() else {}

    def nodes_live(self, typed_ids: list[tuple[str, str]], *, k: int) -> list[NodeRecord | None]:
        """As `nodes`, evaluating the NodeInfo view in Kuzu (the definition of the lists).

        One query per `LIVE_BRANCHES` (id, relation) branches: a few hundred UNION ALL
        branches exhaust Kuzu's buffer pool."""
        records: list[NodeRecord | None] = [None] * len(typed_ids)
        candidates: list[list[tuple[str, int, NodeRecord]]] = [[] for _ in typed_ids]
        batch: list[tuple[int, str, str, list[str]]] = []
        num_branches = 0
        for pos, (type_name, node_id) in enumerate(typed_ids):
            batch.append((pos, type_name, node_id, self.schema.neighbour_types(type_name)))
            num_branches += max(len(batch[-1][3]), 1)
            if pos == len(typed_ids) - 1 or num_branches >= LIVE_BRANCHES:
                rows = self.query(node_info_query([item[1:] for item in batch], k))
                for row in rows:
                    pos_in_all = batch[row["pos"]][0]
                    if records[pos_in_all] is None:
                        records[pos_in_all] = _record(json.loads(row["node"]))
                    if k and row["neighbour"] is not None:
                        raw = json.loads(row["neighbour"])
                        neighbour = _record(raw)
                        text = neighbour.features.get(self.schema.node_types[neighbour.type].text_feature)
                        neighbour.features = self._label(neighbour.type, text)
                        candidates[pos_in_all].append((_relation(row["rel"]), raw[DEGREE], neighbour))
                batch, num_branches = [], 0
        for record, found in zip(records, candidates):
            if record is not None:
                record.neighbours = merge_neighbours(found, k)
        return records


def merge_neighbours(found: list[tuple[str, int, NodeRecord]], k: int) -> list[tuple[str, NodeRecord]]:
    """The view's round-robin over (relation, degree, neighbour) rows: rank each neighbour
    within its relation by (degree descending, id), then order all by (rank, degree
    descending, id, relation); the first `k`."""
    def by_degree_then_id(row):
        return -row[1], row[2].id.encode()

    ranked, seen = [], {}
    for relation, degree, neighbour in sorted(found, key=lambda row: (row[0], *by_degree_then_id(row))):
        rank = seen[relation] = seen.get(relation, -1) + 1
        ranked.append((rank, -degree, neighbour.id.encode(), relation, neighbour))
    ranked.sort(key=lambda row: row[:4])
    return [(relation, neighbour) for _, _, _, relation, neighbour in ranked[:k]]


def _record(raw: dict[str, Any]) -> NodeRecord:
    features = {k: v for k, v in raw.items() if v is not None and not k.startswith("_") and k not in RESERVED_COLUMNS}
    return NodeRecord(raw["_LABEL"], raw["id"], features)


def _relation(rel_table_name: str) -> str:
    return rel_table_name[len(REL_PREFIX):] if rel_table_name.startswith(REL_PREFIX) else rel_table_name
