"""The NodeInfo view (GLM §5.1 vertex chunk): which neighbours a node shows, in what order, and the
exact text it renders to. The view is defined here alone; graphs/store.py only runs Cypher, and
graphs/top_neighbours.py materializes the view at load.

The view: a node's top-k neighbours taken round-robin over its relations, so that every kind of
neighbour shows. Within each relation the neighbours are ranked by degree descending, then id
(byte order); all of them are then ordered by (that rank, degree descending, id, relation) and
the first k kept: each relation's best, then each one's second best, and so on. Without the
round-robin a laureate's two prizes (degree ~2) never make the top 10 behind mentors and
students with dozens of edges.

Two ways to read it, equal for every node (tests/test_vertex_chunk.py checks all Nobel nodes):
* `node_records`: the `glm_nbrs` lists materialized at load, one primary-key lookup per node,
  for any k <= the materialized K (a prefix of the stored list);
* `node_records_live`: the definition evaluated in Kuzu — `node_info_query` ranks within each
  relation, `merge_neighbours` does the round-robin — and the fallback for k > K.

The rendering is canonical: keys sorted, values formatted by one function, long text and long
lists cut at fixed lengths, neighbours in the view's order. The same vertex therefore always
yields the same bytes — and so the same tokens and KV-cache blocks, which is what vertex-centric
prefix reuse depends on. The centre node shows all its features plus its `type`; a neighbour only
the text it is known by (its name/title), since `NodeInfo(neighbour_id)` gives the rest:

    [Node:<id> {k1:v1, k2:v2}]
    [neighbours:(<id>:<relation> {name:...}),(<id>:<relation> {title:...}),...]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from glm_dspy.graphs.literal import identifier, string_literal
from glm_dspy.graphs.schema import DEGREE, NBRS, REL_PREFIX, RESERVED_COLUMNS, rel_table
from glm_dspy.graphs.store import GraphStore

# The materialized view, one string per node (written by glm_dspy.graphs.top_neighbours):
#     records joined by RECORD_SEP, each `relation FIELD_SEP id FIELD_SEP type FIELD_SEP text`
RECORD_SEP, FIELD_SEP = "\x1e", "\x1f"  # ASCII record/unit separators: never in ids, whitespace in text
# (id, relation) branches per live query: a few hundred UNION ALL branches exhaust Kuzu's buffer pool.
LIVE_BRANCHES = 128
MAX_VALUE_CHARS = 300
MAX_NEIGHBOUR_VALUE_CHARS = 80
MAX_LIST_ITEMS = 20


@dataclass(slots=True)
class NodeRecord:
    """One node as the view shows it: type, id, features (nulls dropped), its top-k edges in view
    order; a neighbour's features are only its label text."""

    type: str
    id: str
    features: dict[str, Any]
    neighbours: list[tuple[str, "NodeRecord"]] = field(default_factory=list)  # (relation, node)


# ---- query ---------------------------------------------------------------------------------
def node_info_query(items: list[tuple[str, str, list[str]]], k: int) -> str:
    """The view's Cypher half: for each (node type, id, its relations), the node and, per
    relation, its top-`k` neighbours by degree descending then id.

    Kuzu 0.11.3 has no CREATE VIEW, crashes on macros with subqueries and has no per-group
    rank, so the view is this one named query plus `merge_neighbours`. Each (id, relation) is
    its own UNION ALL branch so that it is a primary-key lookup (`MATCH (n:T {id: <literal>})`;
    an unlabelled or `IN [...]` match is a full scan), and all ids go in one round trip. Rows:
    pos, node, rel, neighbour (node and neighbour as JSON text; rel/neighbour null where none).
    """
    assert items and k >= 0
    branches = []
    for pos, (type_name, node_id, relations) in enumerate(items):
        match = f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}}) "
        for relation in relations or [None]:
            edge = f"[r:{identifier(rel_table(relation))}]" if relation else "[r]"
            branches.append(
                f"{match}OPTIONAL MATCH (n)-{edge}->(m) "
                f"WITH n, r, m ORDER BY m.{DEGREE} DESC, m.id ASC LIMIT {max(k, 1)} "
                f"RETURN {pos} AS pos, to_json(n) AS node, label(r) AS rel, to_json(m) AS neighbour"
            )
    return " UNION ALL ".join(branches)


# ---- merge ---------------------------------------------------------------------------------
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


# ---- read ----------------------------------------------------------------------------------
def node_records(store: GraphStore, typed_ids: list[tuple[str, str]], *, k: int = 0) -> list[NodeRecord | None]:
    """The nodes at `typed_ids` ((type, id) pairs) with their top-`k` neighbours, in one query.

    Result i is None when node i does not exist. Read from the lists materialized at load when
    k <= the materialized K, else computed by `node_records_live`."""
    if not typed_ids:
        return []
    if k > store.schema.num_neighbours:
        return node_records_live(store, typed_ids, k=k)
    branches = [f"MATCH (n:{identifier(t)} {{id: {string_literal(i)}}}) RETURN {pos} AS pos, to_json(n) AS node"
                for pos, (t, i) in enumerate(typed_ids)]
    records: list[NodeRecord | None] = [None] * len(typed_ids)
    for row in store.query(" UNION ALL ".join(branches)):
        raw = json.loads(row["node"])
        record = _record(raw)
        for relation, node_id, type_name, text in parse_neighbours(raw.get(NBRS))[:k]:
            record.neighbours.append((relation, NodeRecord(type_name, node_id, _label(store, type_name, text))))
        records[row["pos"]] = record
    return records


def node_records_live(store: GraphStore, typed_ids: list[tuple[str, str]], *, k: int) -> list[NodeRecord | None]:
    """As `node_records`, evaluating the view in Kuzu (the definition of the materialized lists);
    one query per `LIVE_BRANCHES` (id, relation) branches."""
    records: list[NodeRecord | None] = [None] * len(typed_ids)
    candidates: list[list[tuple[str, int, NodeRecord]]] = [[] for _ in typed_ids]
    batch: list[tuple[int, str, str, list[str]]] = []
    num_branches = 0
    for pos, (type_name, node_id) in enumerate(typed_ids):
        batch.append((pos, type_name, node_id, store.schema.neighbour_types(type_name)))
        num_branches += max(len(batch[-1][3]), 1)
        if pos == len(typed_ids) - 1 or num_branches >= LIVE_BRANCHES:
            for row in store.query(node_info_query([item[1:] for item in batch], k)):
                pos_in_all = batch[row["pos"]][0]
                if records[pos_in_all] is None:
                    records[pos_in_all] = _record(json.loads(row["node"]))
                if k and row["neighbour"] is not None:
                    raw = json.loads(row["neighbour"])
                    neighbour = _record(raw)
                    text = neighbour.features.get(store.schema.node_types[neighbour.type].text_feature)
                    neighbour.features = _label(store, neighbour.type, text)
                    candidates[pos_in_all].append((_relation(row["rel"]), raw[DEGREE], neighbour))
            batch, num_branches = [], 0
    for record, found in zip(records, candidates):
        if record is not None:
            record.neighbours = merge_neighbours(found, k)
    return records


def parse_neighbours(value: str | None) -> list[tuple[str, str, str, str]]:
    """(relation, id, type, text) records of a stored `glm_nbrs` value, in view order."""
    if not value:
        return []
    return [tuple(record.split(FIELD_SEP)) for record in value.split(RECORD_SEP)]


def _label(store: GraphStore, type_name: str, text) -> dict[str, Any]:
    """A neighbour's features as a chunk shows them: only its label text, if it has one."""
    feature = store.schema.node_types[type_name].text_feature
    return {feature: str(text)} if feature and text is not None and str(text).strip() else {}


def _record(raw: dict[str, Any]) -> NodeRecord:
    features = {k: v for k, v in raw.items() if v is not None and not k.startswith("_") and k not in RESERVED_COLUMNS}
    return NodeRecord(raw["_LABEL"], raw["id"], features)


def _relation(rel_table_name: str) -> str:
    return rel_table_name[len(REL_PREFIX):] if rel_table_name.startswith(REL_PREFIX) else rel_table_name


# ---- render --------------------------------------------------------------------------------
def format_value(value: Any, max_chars: int = MAX_VALUE_CHARS) -> str:
    """One canonical text form for a feature value."""
    if isinstance(value, list):
        items = [format_value(v, max_chars) for v in value[:MAX_LIST_ITEMS]]
        more = f", ... +{len(value) - MAX_LIST_ITEMS} more" if len(value) > MAX_LIST_ITEMS else ""
        return "[" + ", ".join(items) + more + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() else repr(round(value, 6))
    text = " ".join(str(value).split())  # one line, single spaces
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _features(features: dict[str, Any], max_chars: int) -> str:
    return "{" + ", ".join(f"{k}:{format_value(features[k], max_chars)}" for k in sorted(features)) + "}"


CHUNK_OPENING = "[Node:"  # every vertex chunk begins with it (glm_dspy/prompts/notebook.py relies on it)


def render_vertex_chunk(node: NodeRecord, text_features: dict[str, str | None]) -> str:
    """The vertex chunk of `node`; `text_features[type]` names each type's label feature."""
    head = f"{CHUNK_OPENING}{node.id} {_features({**node.features, 'type': node.type}, MAX_VALUE_CHARS)}]"
    parts = []
    for relation, neighbour in node.neighbours:
        label = text_features.get(neighbour.type)
        shown = {label: neighbour.features[label]} if label and label in neighbour.features else {}
        parts.append(f"({neighbour.id}:{relation} {_features(shown, MAX_NEIGHBOUR_VALUE_CHARS)})")
    return head + "\n[neighbours:" + ",".join(parts) + "]"
