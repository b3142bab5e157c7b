"""The in-memory form every loader produces and `glm_dspy.graphs.load` writes into Kuzu.

A graph is GRBench-shaped: typed nodes with features, and directed, named relations
whose name is the *neighbour type* an agent asks for (`NeighbourCheck(id, "author")`).
Ids are unique across node types. Columns are Arrow arrays so that loading is one
bulk COPY per table, never a row at a time.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from glm_dspy.graphs.names import check_name  # names as users wrote them, in any script (graphs/names.py)


@dataclass(slots=True)
class NodeTable:
    """All nodes of one type. Column `id` (string, unique) first, then one column per feature."""

    type: str
    table: pa.Table

    def __post_init__(self):
        check_name(self.type, "node type")
        assert self.table.num_columns >= 1 and self.table.column_names[0] == "id", (
            f"node table {self.type!r}: first column must be 'id', got {self.table.column_names[:1]}"
        )
        assert pa.types.is_string(self.table.schema.field("id").type) or pa.types.is_large_string(
            self.table.schema.field("id").type
        ), f"node table {self.type!r}: ids must be strings"
        for column in self.table.column_names[1:]:
            check_name(column, f"feature of {self.type!r}")

    @property
    def features(self) -> list[str]:
        return self.table.column_names[1:]


@dataclass(slots=True)
class EdgeList:
    """Directed edges `src -[relation]-> dst` from one node type to another.

    `relation` is the neighbour type an agent names; one relation may join several
    (src_type, dst_type) pairs, each its own EdgeList. Columns: `src`, `dst` (string ids).
    """

    relation: str
    src_type: str
    dst_type: str
    table: pa.Table

    def __post_init__(self):
        check_name(self.relation, "relation")
        assert self.table.column_names[:2] == ["src", "dst"], (
            f"edges {self.relation!r}: columns must start with src, dst; got {self.table.column_names}"
        )


@dataclass(slots=True)
class GraphData:
    """A whole graph: node tables by type and edge lists. Ids are unique across types.

    `text_features`: the feature a type's nodes are known by, where the reader chose one (a
    mapping file's `name`, an adopted database's name property); other types take the first
    STRING feature of `glm_dspy.graphs.schema.TEXT_FEATURES`. `notes`: what the reader changed or chose
    that a user should hear of (a renamed relation, an unclear name property), said by the build."""

    nodes: dict[str, NodeTable] = field(default_factory=dict)
    edges: list[EdgeList] = field(default_factory=list)
    text_features: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        for type_name, node_table in self.nodes.items():
            assert type_name == node_table.type, f"node table keyed {type_name!r} holds {node_table.type!r}"
        for type_name, feature in self.text_features.items():
            assert type_name in self.nodes and feature in self.nodes[type_name].features, (
                f"text feature {feature!r} of {type_name!r}: no such node type or feature")
        for edges in self.edges:
            for end in (edges.src_type, edges.dst_type):
                assert end in self.nodes, f"edges {edges.relation!r} refer to unknown node type {end!r}"

    @property
    def relations(self) -> list[str]:
        return sorted({edges.relation for edges in self.edges})

    @property
    def num_nodes(self) -> int:
        return sum(t.table.num_rows for t in self.nodes.values())

    @property
    def num_edges(self) -> int:
        return sum(e.table.num_rows for e in self.edges)
