"""Write a `GraphData` into a new Kuzu database directory, in bulk.

Layout of a database directory (what `GraphStore.open` expects):
    graph.kuzu      the Kuzu database
    meta.json       the `GraphSchema` (types, typed features, relations, counts)
    id_index.npz    id -> node type (see `graphs.id_index`)
    node_index/     the RetrieveNode FAISS index (built by `graphs.node_index`)

Every table is filled by one `COPY ... FROM '<file>.parquet'` (never row by row); degrees
are computed in Arrow before the copy. The directory is built under a temporary name and
renamed into place only when complete, so a failed build never leaves a half database
where a reader would open it, and an existing database is never overwritten in place.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from graphs.id_index import IdIndex
from graphs.literal import identifier
from graphs.model import EdgeList, GraphData
from graphs.schema import DEGREE, NEIGHBOUR_COLUMNS, RESERVED_COLUMNS, GraphSchema, rel_table
from graphs.top_neighbours import DEFAULT_K, with_top_neighbours
from graphs.store import DB_FILE, ID_INDEX_FILE, META_FILE, connect


class GraphLoadError(ValueError):
    """The graph cannot be loaded as given; the message says what and where."""


@dataclass(slots=True)
class LoadReport:
    db_dir: Path
    num_nodes: int
    num_edges: int
    num_dropped_edges: int
    seconds: float


def load_graph(
    graph: GraphData, db_dir: Path | str, *, name: str = "graph", overwrite: bool = False, progress: bool = False,
    num_neighbours: int = DEFAULT_K,
) -> LoadReport:
    """Build a Kuzu database for `graph` at `db_dir` (must not exist unless `overwrite`)."""
    started = time.perf_counter()
    db_dir = Path(db_dir)
    if db_dir.exists() and any(db_dir.iterdir()) and not overwrite:
        raise FileExistsError(f"{db_dir} already exists and is not empty; pass overwrite=True (CLI: --force)")
    _check_unique_ids(graph)
    graph, num_dropped = _clean_edges(graph)
    graph = _with_degrees(graph)
    schema = GraphSchema.from_graph(graph, name)
    schema.extra["num_dropped_edges"] = num_dropped
    text_features = {t: n.text_feature for t, n in schema.node_types.items()}
    graph = with_top_neighbours(graph, text_features, DEGREE, num_neighbours)
    schema.num_neighbours = num_neighbours

    db_dir.parent.mkdir(parents=True, exist_ok=True)
    build_dir = Path(tempfile.mkdtemp(prefix=f".{db_dir.name}.building-", dir=db_dir.parent))
    try:
        _copy_into_kuzu(graph, schema, build_dir, progress)
        schema.save(build_dir / META_FILE)
        IdIndex.build({t: n.table.column("id").to_pylist() for t, n in graph.nodes.items()}).save(
            build_dir / ID_INDEX_FILE
        )
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


def _check_unique_ids(graph: GraphData) -> None:
    ids = pa.chunked_array([n.table.column("id").cast(pa.string()) for n in graph.nodes.values()])
    nulls = ids.null_count
    if nulls:
        raise GraphLoadError(f"{nulls} node(s) have no id")
    if pc.count_distinct(ids).as_py() == len(ids):
        return
    counts = pc.value_counts(ids)
    duplicate = next(v["values"].as_py() for v in counts if v["counts"].as_py() > 1)
    where = [t for t, n in graph.nodes.items() if pc.any(pc.equal(n.table.column("id"), duplicate)).as_py()]
    raise GraphLoadError(f"node id {duplicate!r} is not unique (found in types {where}); ids must be unique across types")


def _clean_edges(graph: GraphData) -> tuple[GraphData, int]:
    """Drop duplicate edges and edges whose ends are not nodes of the declared types."""
    cleaned, num_dropped = [], 0
    for edges in graph.edges:
        table = edges.table.select(["src", "dst"]).cast(pa.schema([("src", pa.string()), ("dst", pa.string())]))
        known = pc.and_(
            pc.is_in(table.column("src"), value_set=graph.nodes[edges.src_type].table.column("id")),
            pc.is_in(table.column("dst"), value_set=graph.nodes[edges.dst_type].table.column("id")),
        )
        kept = table.filter(known).group_by(["src", "dst"]).aggregate([])
        num_dropped += table.num_rows - kept.num_rows
        cleaned.append(EdgeList(edges.relation, edges.src_type, edges.dst_type, kept.select(["src", "dst"])))
    if num_dropped:
        print(f"warning: dropped {num_dropped} duplicate or dangling edge(s)", file=sys.stderr)
    return GraphData(graph.nodes, cleaned), num_dropped


def _with_degrees(graph: GraphData) -> GraphData:
    """Append `degree` (outgoing edges over all relations) to every node table."""
    from graphs.model import NodeTable

    nodes = {}
    for type_name, node_table in graph.nodes.items():
        sources = [e.table.column("src") for e in graph.edges if e.src_type == type_name]
        ids = node_table.table.column("id").cast(pa.string())
        degree = pa.array([0] * len(ids), pa.int64())
        if sources:
            counts = pc.value_counts(pa.chunked_array(sources, type=pa.string()).combine_chunks())
            where = pc.index_in(ids, value_set=counts.field("values"))
            degree = pc.fill_null(pc.take(counts.field("counts"), where), 0).cast(pa.int64())
        table = node_table.table
        reserved = sorted((RESERVED_COLUMNS - {"id"}) & set(table.column_names))
        if reserved:
            raise GraphLoadError(f"node type {type_name!r} has features named {reserved}, which are reserved")
        nodes[type_name] = NodeTable(type_name, table.append_column(DEGREE, degree))
    return GraphData(nodes, graph.edges)


def _copy_into_kuzu(graph: GraphData, schema: GraphSchema, build_dir: Path, progress: bool) -> None:
    from rich.progress import Progress

    connection = connect(build_dir / DB_FILE, read_only=False)
    staging = build_dir / "staging"
    staging.mkdir()
    steps = len(schema.ddl()) + len(graph.nodes) + len(graph.edges)
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("loading into Kuzu", total=steps)
        for statement in schema.ddl():
            connection.execute(statement)
            bar.advance(task)
        for type_name, node_table in graph.nodes.items():
            path = staging / f"node_{type_name}.parquet"
            pq.write_table(_kuzu_ready(node_table.table, schema.node_types[type_name].features), path)
            connection.execute(f"COPY {identifier(type_name)} FROM '{path}'")
            bar.advance(task)
        for i, edges in enumerate(graph.edges):
            path = staging / f"edges_{i}.parquet"
            pq.write_table(edges.table, path)
            ends = f"(from='{edges.src_type}', to='{edges.dst_type}')"
            connection.execute(f"COPY {identifier(rel_table(edges.relation))} FROM '{path}' {ends}")
            bar.advance(task)
    connection.close()
    shutil.rmtree(staging)


def _kuzu_ready(table: pa.Table, features: dict[str, str]) -> pa.Table:
    """Cast columns Kuzu would not read as declared (odd types become JSON text)."""
    import json

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
