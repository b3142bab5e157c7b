"""A folder of node and edge tables as a graph (`glm-dspy build tables:DIR`, also `csv:DIR`, `parquet:DIR`).

Which file holds what is graphs/table_mapping.py (nodes/<Type>.csv, edges/<RELATION>.csv, or a
graph.toml); how a file is read and typed is graphs/table_file.py. The graph:
* each node file is one node type, named as written: its id column becomes `id` (text), every
  other column a property named as written, typed as declared or inferred; a column named as
  one the database keeps for itself (`degree`, `glm_nbrs`) is stored with a `_` after it, and
  the build says so;
* each edge file is one relation, named as written: a row is an edge from its source id to its
  target id; the ends' types are those of the nodes holding the ids, so one file may join several
  type pairs. Other columns of an edge file are not stored (edge properties are not supported),
  and the build says so.
Ids are unique across all node files (as in every graph here: `NodeInfo(id)` needs no type). Errors
name the file, line and column: a missing id column, an empty or repeated id, an edge to an id no
node file has, a value that is not of its declared type.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from glm_dspy.graphs.graph_data import EdgeList, GraphData, NodeTable
from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.names import catalog_key, name_problem
from glm_dspy.graphs.schema import RESERVED_COLUMNS
from glm_dspy.graphs.table_file import ReadTable, id_column, read_table, typed_column
from glm_dspy.graphs.table_mapping import TableFile, table_files

END_COLUMNS = (("source", "target"), ("from", "to"), ("src", "dst"))
_RESERVED = {catalog_key(c) for c in RESERVED_COLUMNS}


def _node_table(spec: TableFile, read: ReadTable, notes: list[str]) -> tuple[NodeTable, list[str]]:
    id_name = spec.columns.get("id", "id")
    if id_name not in read.table.column_names:
        raise GraphFormatError(f"{read.path}:1: no {id_name!r} column (columns: {', '.join(read.table.column_names)})"
                               f"; name the id column: [nodes.{spec.name}] id = \"...\" in graph.toml")
    ids = id_column(read, id_name)
    columns: dict[str, pa.Array] = {"id": pa.array(ids, pa.string())}
    for column in read.table.column_names:
        if column == id_name:
            continue
        problem = name_problem(column)
        if problem is not None:
            raise GraphFormatError(f"{read.path}:1: column {column!r:.60} cannot be a name: {problem}")
        stored = column + "_" if catalog_key(column) in _RESERVED else column
        if stored != column:
            notes.append(f"{read.path}: column {column!r} is stored as {stored!r} ({column!r} is the database's own)")
        columns[stored] = typed_column(read, column, spec.types.get(column))
    unknown = set(spec.types) - set(read.table.column_names)
    if unknown:
        raise GraphFormatError(f"{read.path}: graph.toml declares types of {sorted(unknown)}, which it has no column of")
    if spec.label is not None and spec.label not in columns:
        raise GraphFormatError(f"{read.path}: graph.toml names {spec.label!r} as the name of {spec.name!r} nodes; "
                               f"it has no such column (columns: {', '.join(read.table.column_names)})")
    return NodeTable(spec.name, pa.table(columns)), ids


def _end_columns(spec: TableFile, read: ReadTable) -> tuple[str, str]:
    names = read.table.column_names
    if spec.columns:
        ends = (spec.columns.get("source", "source"), spec.columns.get("target", "target"))
    else:
        ends = next((pair for pair in END_COLUMNS if all(c in names for c in pair)), END_COLUMNS[0])
    missing = [c for c in ends if c not in names]
    if missing:
        raise GraphFormatError(f"{read.path}:1: no {missing[0]!r} column (columns: {', '.join(names)}); an edge file "
                               "has source and target columns of node ids, or names them in graph.toml: "
                               f"[edges.{spec.name}] source = \"...\", target = \"...\"")
    return ends


def _edge_lists(spec: TableFile, read: ReadTable, type_of: dict[str, str], notes: list[str]) -> list[EdgeList]:
    ends = _end_columns(spec, read)
    sources, targets = id_column(read, ends[0]), id_column(read, ends[1])
    pairs: dict[tuple[str, str], tuple[list[str], list[str]]] = {}
    for row, (source, target) in enumerate(zip(sources, targets)):
        for column, node_id in zip(ends, (source, target)):
            if node_id not in type_of:
                raise GraphFormatError(f"{read.where(row, column)}: {column} {node_id!r:.60} is the id of no node "
                                       "(in no node file)")
        src, dst = pairs.setdefault((type_of[source], type_of[target]), ([], []))
        src.append(source)
        dst.append(target)
    dropped = [c for c in read.table.column_names if c not in ends]
    if dropped:
        notes.append(f"{read.path}: column(s) {', '.join(map(repr, dropped))} not stored (edges keep no properties)")
    return [EdgeList(spec.name, s, d, pa.table({"src": pa.array(a, pa.string()), "dst": pa.array(b, pa.string())}))
            for (s, d), (a, b) in pairs.items()]


def tables_graph(folder: Path | str) -> GraphData:
    """The graph of a tables folder (module doc)."""
    nodes, edges, notes, text_features = {}, [], [], {}
    first_seen: dict[str, str] = {}  # id -> where it was first read
    type_of: dict[str, str] = {}
    for spec in table_files(folder):
        read = read_table(spec.path, spec.delimiter)
        if spec.kind == "edges":
            edges += _edge_lists(spec, read, type_of, notes)
            continue
        if catalog_key(spec.name) in {catalog_key(t) for t in nodes}:
            raise GraphFormatError(f"{spec.path}: node type {spec.name!r} is another file's type to Kuzu, "
                                   "which ignores the case of ASCII letters; rename one")
        table, ids = _node_table(spec, read, notes)
        id_name = spec.columns.get("id", "id")
        for row, node_id in enumerate(ids):
            where = read.where(row, id_name)
            if node_id in first_seen:
                raise GraphFormatError(f"{where}: id {node_id!r:.60} is already the id of a node at {first_seen[node_id]}"
                                       "; ids must be unique across all node files (prefix them per type, e.g. m1)")
            first_seen[node_id], type_of[node_id] = where, spec.name
        nodes[spec.name] = table
        if spec.label is not None:
            text_features[spec.name] = spec.label
    return GraphData(nodes, edges, text_features, notes)
