"""The Kuzu schema of a loaded graph and its DDL, in one place.

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
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pyarrow as pa

from glm_dspy.graphs.literal import identifier
from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.names import catalog_key, check_name

REL_PREFIX = "rel_"
DEGREE = "degree"
NBRS = "glm_nbrs"  # the materialized NodeInfo view (glm_dspy.graphs.node_info, written by glm_dspy.graphs.top_neighbours)
# Columns the loader adds to every node table; never features.
NEIGHBOUR_COLUMNS = {NBRS: "STRING"}
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
            reserved = {catalog_key(c) for c in RESERVED_COLUMNS} & {catalog_key(f) for f in node_type.features}
            assert not reserved, f"{type_name!r} has features named {sorted(reserved)} (reserved)"
            _assert_distinct(list(node_type.features), f"features of node type {type_name!r}")
        for relation, pairs in self.relations.items():
            check_name(relation, "relation")
            for src, dst in pairs:
                assert src in self.node_types and dst in self.node_types, f"{relation}: unknown pair {src}->{dst}"
        _assert_distinct([*self.node_types, *map(rel_table, self.relations)], "node and relation tables")

    @classmethod
    def from_graph(cls, graph: GraphData, name: str) -> "GraphSchema":
        node_types = {}
        for type_name, nodes in graph.nodes.items():
            features = {f: kuzu_type(nodes.table.schema.field(f).type) for f in nodes.features}
            text = graph.text_features.get(type_name) or next(
                (f for f in TEXT_FEATURES if features.get(f) == "STRING"), None)
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

    def one_hop_further(self, type_name: str, name: str) -> list[tuple[str, str]]:
        """[(relation, "feature" | "neighbour type")] for each relation of a `type_name` node whose
        neighbours have `name` (as a feature, else as a neighbour type): where a name the node
        lacks is one step further (a paper's `name` is its venue's or its authors')."""
        found = []
        for relation in self.neighbour_types(type_name):
            targets = {dst for src, dst in self.relations[relation] if src == type_name}
            if any(name in self.node_types[t].features for t in targets):
                found.append((relation, "feature"))
            elif any(name in self.neighbour_types(t) for t in targets):
                found.append((relation, "neighbour type"))
        return found

    def names(self) -> tuple[list[str], list[str]]:
        """(features, neighbour types) over every node type, sorted: all the names a snippet may pass."""
        features = sorted({f for node_type in self.node_types.values() for f in node_type.features})
        return features, sorted(self.relations)

    def summary(self, relations: Collection[str] | None = None) -> str:
        """A compact schema description for prompts: types, features, neighbour types (only those
        in `relations` where given: a large schema pruned to a question's)."""
        lines = []
        for type_name, node_type in self.node_types.items():
            features = ", ".join(node_type.features)
            neighbours = ", ".join(r for r in self.neighbour_types(type_name)
                                   if relations is None or r in relations) or "-"
            lines.append(f"{type_name} nodes: features [{features}]; neighbour types [{neighbours}]")
        return "\n".join(lines)


def _assert_distinct(names: list[str], what: str) -> None:
    """Kuzu's catalog compares names with ASCII case folded (graphs/names.py): two equal so clash."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(catalog_key(name), name)
        assert other == name, (f"{what}: {other!r} and {name!r} are one name to Kuzu (it ignores the case of "
                               "ASCII letters); rename one of them")


def rel_table(relation: str) -> str:
    return REL_PREFIX + relation


def spells(relation: str, word: str) -> bool:
    """Whether `word` (words joined by "_") is the relation's name or the end of it after an
    underscore (`place_of_birth`: people_person_place_of_birth)."""
    return relation == word or relation.endswith("_" + word)
