"""Write a `GraphData` into a new Kuzu database directory, in bulk.

Layout of a database directory (what `GraphStore.open` expects):
    graph.kuzu      the Kuzu database
    meta.json       the `GraphSchema` (types, typed features, relations, counts)
    id_index.npz    id -> node type (see `glm_dspy.graphs.id_index`)
    node_index/     the RetrieveNode FAISS index (built by `glm_dspy.graphs.node_index`)

Every table is filled by one `COPY <table> FROM $rows` of its Arrow table (never row by row;
no file path ever enters Cypher text, so any database path works); degrees
and the materialized NodeInfo view are computed on integer codes before the copy
(glm_dspy.graphs.top_neighbours). The directory is built under a temporary name and
renamed into place only when complete, so a failed build never leaves a half database
where a reader would open it, and an existing database is never overwritten in place.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from glm_dspy.graphs.id_index import IdIndex
from glm_dspy.graphs.literal import identifier, name_literal
from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.schema import DEGREE, NEIGHBOUR_COLUMNS, GraphSchema, rel_table
from glm_dspy.graphs.top_neighbours import DEFAULT_K, GraphLoadError, prepare
from glm_dspy.graphs.store import DB_FILE, ID_INDEX_FILE, META_FILE, connect


@dataclass(slots=True)
class LoadReport:
    db_dir: Path
    num_nodes: int
    num_edges: int
    num_dropped_edges: int
    seconds: float


def load_graph(
    graph: GraphData, db_dir: Path | str, *, name: str = "graph", overwrite: bool = False, progress: bool = False,
    num_neighbours: int = DEFAULT_K, finish: Callable[[Path], None] | None = None,
) -> LoadReport:
    """Build a Kuzu database for `graph` at `db_dir` (must not exist unless `overwrite`).

    `finish(build_dir)` may add files (the RetrieveNode index) before the directory is moved
    into place: if it fails, an existing database at `db_dir` is left untouched.
    """
    started = time.perf_counter()
    db_dir = Path(db_dir)
    if db_dir.exists() and any(db_dir.iterdir()) and not overwrite:
        raise FileExistsError(f"{db_dir} already exists and is not empty; pass overwrite=True (CLI: --force)")
    try:
        schema = GraphSchema.from_graph(graph, name)
    except AssertionError as error:
        raise GraphLoadError(str(error)) from None
    if graph.notes:
        schema.extra["notes"] = list(graph.notes)  # what the reader changed or chose (graphs/build.py)
    text_features = {t: n.text_feature for t, n in schema.node_types.items()}
    prepared = prepare(graph, text_features, degree=DEGREE, k=num_neighbours)
    graph, num_dropped = prepared.graph, prepared.num_dropped_edges
    if num_dropped:
        print(f"warning: dropped {num_dropped} duplicate or dangling edge(s)", file=sys.stderr)
    schema.extra["num_dropped_edges"] = num_dropped
    schema.num_neighbours = num_neighbours

    db_dir.parent.mkdir(parents=True, exist_ok=True)
    build_dir = Path(tempfile.mkdtemp(prefix=f".{db_dir.name}.building-", dir=db_dir.parent))
    try:
        _copy_into_kuzu(graph, schema, build_dir, progress)
        schema.save(build_dir / META_FILE)
        IdIndex.build({t: n.table.column("id").to_pylist() for t, n in graph.nodes.items()}).save(
            build_dir / ID_INDEX_FILE
        )
        if finish is not None:
            finish(build_dir)
        if db_dir.exists():
            old = db_dir.with_name(f".{db_dir.name}.old")
            shutil.rmtree(old, ignore_errors=True)
            db_dir.rename(old)
            build_dir.rename(db_dir)
            shutil.rmtree(old, ignore_errors=True)
        else:
            build_dir.rename(db_dir)
    finally:
        shutil.rmtree(build_dir, ignore_errors=True)
    return LoadReport(db_dir, graph.num_nodes, graph.num_edges, num_dropped, time.perf_counter() - started)


def _copy_into_kuzu(graph: GraphData, schema: GraphSchema, build_dir: Path, progress: bool) -> None:
    from rich.progress import Progress

    connection = connect(build_dir / DB_FILE, read_only=False)
    steps = len(schema.ddl()) + len(graph.nodes) + len(graph.edges)
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("loading into Kuzu", total=steps)
        for statement in schema.ddl():
            connection.execute(statement)
            bar.advance(task)
        for type_name, node_table in graph.nodes.items():
            table = _kuzu_ready(node_table.table, schema.node_types[type_name].features)
            connection.execute(f"COPY {identifier(type_name)} FROM $rows", {"rows": table})
            bar.advance(task)
        for edges in graph.edges:  # Kuzu 0.11.3 takes no parameter for from/to: literals
            ends = f"(from={name_literal(edges.src_type)}, to={name_literal(edges.dst_type)})"
            connection.execute(f"COPY {identifier(rel_table(edges.relation))} FROM $rows {ends}",
                               {"rows": edges.table})
            bar.advance(task)
    connection.close()


def _kuzu_ready(table: pa.Table, features: dict[str, str]) -> pa.Table:
    """Cast columns Kuzu would not read as declared (odd types become JSON text)."""
    columns = {"id": table.column("id").cast(pa.string())}
    for feature, kuzu_type in features.items():
        column = table.column(feature)
        if kuzu_type == "STRING" and not pa.types.is_string(column.type):
            values = [None if v is None else (v if isinstance(v, str) else json.dumps(v)) for v in column.to_pylist()]
            column = pa.array(values, pa.string())
        columns[feature] = column
    for column in (DEGREE, *NEIGHBOUR_COLUMNS):
        columns[column] = table.column(column)
    return pa.table(columns)
