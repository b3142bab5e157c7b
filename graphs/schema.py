"""The Kuzu schema of a loaded graph, its DDL, and the named NodeInfo view — all in one place.

Naming, fixed for every database this project writes:
* one node table per node type, named as the type (`paper`), columns `id STRING PRIMARY KEY`,
  one typed column per feature, and `degree INT64` = number of outgoing edges (all relations),
  computed at load;
* one rel table per relation, named `rel_<relation>` (Kuzu's catalog is case-insensitive and
  shared by node and rel tables, and GRBench names relations after neighbour types, so
  `paper` the type and `paper` the relation need different table names).

The schema is saved as `meta.json` next to the database so a reader never has to guess.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow as pa

from graphs.literal import identifier, string_literal
from graphs.graph_data import GraphData, check_name

REL_PREFIX = "rel_"
DEGREE = "degree"
# Columns the loader adds to every node table; never features (see graphs.top_neighbours).
NEIGHBOUR_COLUMNS = {"glm_nbrs": "STRING"}
RESERVED_COLUMNS = {"id", DEGREE, *NEIGHBOUR_COLUMNS}
# Features tried, in order, as the text an entity is known by (RetrieveNode, neighbour labels).
TEXT_FEATURES = ("name", "title", "knownName", "label", "text")


def kuzu_type(arrow_type: pa.DataType) -> str:
    """The Kuzu column type for an Arrow type; anything unusual is stored as JSON text."""
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return "STRING"
    if pa.types.is_integer(arrow_type):
        return "INT64"
    if pa.types.is_floating(arrow_type):
        return "DOUBLE"
    if pa.types.is_boolean(arrow_type):
        return "BOOLEAN"
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        inner = kuzu_type(arrow_type.value_type)
        if inner in ("STRING", "INT64", "DOUBLE"):
            return inner + "[]"
    return "STRING"


@dataclass(slots=True)
class NodeType:
    features: dict[str, str]  # feature -> Kuzu type, in column order
    num_nodes: int
    text_feature: str | None  # the feature RetrieveNode embeds and neighbours are labelled by


@dataclass(slots=True)
class GraphSchema:
    """What a database holds: node types with typed features, relations with their type pairs."""

    name: str
    node_types: dict[str, NodeType]
    relations: dict[str, list[tuple[str, str]]]  # relation -> [(src_type, dst_type), ...]
    num_edges: int = 0
    num_neighbours: int = 0  # K of the materialized top-K neighbour lists (0: none)
    extra: dict = field(default_factory=dict)

    def __post_init__(self):
        for type_name, node_type in self.node_types.items():
            check_name(type_name, "node type")
            reserved = RESERVED_COLUMNS & set(node_type.features)
            assert not reserved, f"{type_name!r} has features named {sorted(reserved)} (reserved)"
        for relation, pairs in self.relations.items():
            check_name(relation, "relation")
            for src, dst in pairs:
                assert src in self.node_types and dst in self.node_types, f"{relation}: unknown pair {src}->{dst}"

    @classmethod
    def from_graph(cls, graph: GraphData, name: str) -> "GraphSchema":
        node_types = {}
        for type_name, nodes in graph.nodes.items():
            features = {f: kuzu_type(nodes.table.schema.field(f).type) for f in nodes.features}
            text = next((f for f in TEXT_FEATURES if features.get(f) == "STRING"), None)
            node_types[type_name] = NodeType(features, nodes.table.num_rows, text)
        relations: dict[str, list[tuple[str, str]]] = {}
        for edges in graph.edges:
            pairs = relations.setdefault(edges.relation, [])
            if (edges.src_type, edges.dst_type) not in pairs:
                pairs.append((edges.src_type, edges.dst_type))
        return cls(name, node_types, relations, graph.num_edges)

    # ---- persistence -------------------------------------------------------------------
    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self), indent=1, sort_keys=True))

    @classmethod
    def load(cls, path: Path) -> "GraphSchema":
        raw = json.loads(path.read_text())
        node_types = {t: NodeType(**v) for t, v in raw["node_types"].items()}
        relations = {r: [tuple(p) for p in pairs] for r, pairs in raw["relations"].items()}
        return cls(raw["name"], node_types, relations, raw.get("num_edges", 0), raw.get("num_neighbours", 0),
                   raw.get("extra", {}))

    # ---- DDL ---------------------------------------------------------------------------
    def ddl(self) -> list[str]:
        """CREATE statements for every table, node tables first."""
        statements = []
        for type_name, node_type in self.node_types.items():
            columns = ["id STRING PRIMARY KEY"]
            columns += [f"{identifier(f)} {t}" for f, t in node_type.features.items()]
            columns.append(f"{DEGREE} INT64")
            columns += [f"{c} {t}" for c, t in NEIGHBOUR_COLUMNS.items()]
            statements.append(f"CREATE NODE TABLE {identifier(type_name)}({', '.join(columns)})")
        for relation, pairs in self.relations.items():
            ends = ", ".join(f"FROM {identifier(s)} TO {identifier(d)}" for s, d in pairs)
            statements.append(f"CREATE REL TABLE {identifier(rel_table(relation))}({ends})")
        return statements

    # ---- what an agent sees ------------------------------------------------------------
    def neighbour_types(self, type_name: str) -> list[str]:
        """Relations leaving nodes of `type_name` (the valid `neighbourType`s for such a node)."""
        return sorted(r for r, pairs in self.relations.items() if any(s == type_name for s, _ in pairs))

    def summary(self) -> str:
        """A compact schema description for prompts: types, features, neighbour types."""
        lines = []
        for type_name, node_type in self.node_types.items():
            features = ", ".join(node_type.features)
            neighbours = ", ".join(self.neighbour_types(type_name)) or "-"
            lines.append(f"{type_name} nodes: features [{features}]; neighbour types [{neighbours}]")
        return "\n".join(lines)


def rel_table(relation: str) -> str:
    return REL_PREFIX + relation


def node_info_query(items: list[tuple[str, str, list[str]]], k: int) -> str:
    """The NodeInfo view's Cypher half: for each (node type, id, its relations), the node and,
    per relation, its top-`k` neighbours by degree descending then id.

    `graphs.store.merge_neighbours` then takes them round-robin over the relations (the
    view's other half; Kuzu has no per-group rank to do it in the query). Kuzu 0.11.3 has no
    CREATE VIEW and crashes on macros with subqueries, so the view is this one named query.
    Each (id, relation) is its own UNION ALL branch so that it is a primary-key lookup
    (`MATCH (n:T {id: <literal>})`; an unlabelled or `IN [...]` match is a full scan), and all
    ids go in one round trip. The loader materializes the view (graphs.top_neighbours); this
    is its definition and the fallback for a k beyond the materialized K. Rows: pos, node,
    rel, neighbour (node and neighbour as JSON text; rel/neighbour null where there are none).
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