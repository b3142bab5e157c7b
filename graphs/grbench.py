"""GRBench `graph.json` files as graphs (question files are `glm_dspy.graphs.questions` JSON Lines).

graph.json: `{"<Type>_nodes": {"<id>": {"features": {...}, "neighbors": {"<relation>": [ids]}}}}`,
ids unique across types. Relations are named after the neighbour type an agent asks for
and are stored as given (GRBench lists both directions explicitly).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa

from glm_dspy.graphs.graph_data import EdgeList, GraphData, NodeTable
from glm_dspy.graphs.schema import RESERVED_COLUMNS

NODES_SUFFIX = "_nodes"
GRAPH_FILE = "graph.json"


class GraphFormatError(ValueError):
    """graph.json is not in GRBench format; the message names the file and the offending key."""


def column_name(key: str) -> str:
    """A feature or relation key as a Kuzu-safe name (`cited by` -> `cited_by`, `id` -> `id_`)."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", key.strip()) or "_"
    if not name[0].isalpha():
        name = "f" + name
    return name + "_" if name.lower() in RESERVED_COLUMNS else name


def feature_column(values: list[Any]) -> pa.Array:
    """An Arrow column for one feature's values; mixed or nested values become JSON text."""
    present = [v for v in values if v is not None]
    if all(isinstance(v, list) and all(isinstance(x, str) for x in v) for v in present) and present:
        return pa.array(values, pa.list_(pa.string()))
    if all(isinstance(v, bool) for v in present) and present:
        return pa.array(values, pa.bool_())
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present) and present:
        try:
            return pa.array(values, pa.int64())
        except OverflowError:
            pass
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in present) and present:
        return pa.array(values, pa.float64())
    return pa.array([None if v is None else v if isinstance(v, str) else json.dumps(v, sort_keys=True)
                     for v in values], pa.string())


def graph_from_grbench(raw: dict[str, Any], source: str = "graph.json") -> GraphData:
    """Convert a parsed GRBench graph.json into GraphData (errors name `source` and the key)."""
    if not isinstance(raw, dict) or not raw:
        raise GraphFormatError(f"{source}: expected a JSON object of '<Type>_nodes' entries")
    type_of: dict[str, str] = {}
    node_types: dict[str, dict[str, Any]] = {}
    for key, nodes in raw.items():
        if not key.endswith(NODES_SUFFIX) or not isinstance(nodes, dict):
            raise GraphFormatError(f"{source}: top-level key {key!r} must be '<Type>_nodes' mapping ids to nodes")
        type_name = column_name(key[: -len(NODES_SUFFIX)])
        node_types[type_name] = nodes
        for node_id, node in nodes.items():
            if not isinstance(node, dict) or not isinstance(node.get("features", {}), dict) \
                    or not isinstance(node.get("neighbors", {}), dict):
                raise GraphFormatError(f"{source}: {key}[{node_id!r}] must hold 'features' and 'neighbors' objects")
            if node_id in type_of:
                raise GraphFormatError(
                    f"{source}: node id {node_id!r} appears in both {type_of[node_id]!r} and {type_name!r}; "
                    "ids must be unique across types")
            type_of[node_id] = type_name

    tables, edges = {}, defaultdict(lambda: ([], []))
    for type_name, nodes in node_types.items():
        keys = sorted({k for node in nodes.values() for k in node.get("features", {})})
        columns = {"id": pa.array(list(nodes), pa.string())}
        for key in keys:
            name = column_name(key)
            if name in columns:
                raise GraphFormatError(f"{source}: features {key!r} and another key both map to column {name!r}")
            columns[name] = feature_column([node.get("features", {}).get(key) for node in nodes.values()])
        tables[type_name] = NodeTable(type_name, pa.table(columns))
        for node_id, node in nodes.items():
            for relation, neighbour_ids in node.get("neighbors", {}).items():
                if not isinstance(neighbour_ids, list):
                    raise GraphFormatError(f"{source}: neighbors[{relation!r}] of node {node_id!r} must be a list")
                for neighbour_id in neighbour_ids:
                    neighbour_type = type_of.get(str(neighbour_id))
                    if neighbour_type is None:
                        continue  # dangling reference: GRBench graphs have some; counted by the loader's report
                    src, dst = edges[(column_name(relation), type_name, neighbour_type)]
                    src.append(node_id)
                    dst.append(str(neighbour_id))
    edge_lists = [EdgeList(rel, s, d, pa.table({"src": pa.array(a, pa.string()), "dst": pa.array(b, pa.string())}))
                  for (rel, s, d), (a, b) in edges.items()]
    return GraphData(tables, edge_lists)


def read_graph_json(path: Path | str) -> GraphData:
    """The graph in `path`: a graph.json file, or a folder holding one."""
    path = Path(path)
    if path.is_dir():
        path = path / GRAPH_FILE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such file; give a GRBench graph.json or the folder holding it")
    try:
        with path.open() as f:
            raw = json.load(f)
    except json.JSONDecodeError as error:
        raise GraphFormatError(f"{path}:{error.lineno}:{error.colno}: invalid JSON ({error.msg})") from None
    return graph_from_grbench(raw, str(path))
