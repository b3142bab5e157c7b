"""An existing Kuzu database as a graph (`glm-dspy build kuzu:PATH`): adopted by copying.

The user's database is opened read-only (glm_dspy.graphs.store.connect) and never written; its tables
are read out as Arrow and `glm-dspy build` writes them into a new database in this project's
layout (graphs/schema.py), beside the RetrieveNode index, meta.json and example bank in --db.
Copying, not reading the user's files in place, because every reader here relies on that
layout: string ids unique across types (NodeInfo(id), the id index), a `degree` and the
materialized NodeInfo view in each node table, relation tables named `rel_<relation>`.
What changes, said in the build's notes:
* node and relationship tables keep their names as written; a relationship table R is `rel_R`
  in Cypher over the copy;
* a node's id is its primary key as text; where two tables share a key value every id is
  written `<Table>:<key>`. The primary key also stays a property under its own name (unless
  it is called `id`);
* properties keep their names and types; types the copy cannot hold as they are (dates,
  timestamps, decimals, structs) become text; a property named as one the database keeps for
  itself (`id` when it is no primary key, `degree`, `glm_nbrs`) gets a `_` after its name;
* relationship properties are not copied (edges here keep none).
Which property names a table's nodes is graphs/name_choice.py's (name/title/label); where none
is, a text primary key (kept as a property) names them, else their ids do.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa

from glm_dspy.graphs.graph_data import EdgeList, GraphData, NodeTable
from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.literal import identifier, name_literal
from glm_dspy.graphs.name_choice import OPTION, named_feature
from glm_dspy.graphs.names import catalog_key
from glm_dspy.graphs.schema import RESERVED_COLUMNS
from glm_dspy.graphs.store import connect

KEY_SEPARATOR = ":"  # `<Table>:<key>` where keys repeat across tables
_RESERVED = {catalog_key(c) for c in RESERVED_COLUMNS}


def _rows(connection, cypher: str) -> list[dict]:
    result = connection.execute(cypher)
    columns, rows = result.get_column_names(), []
    while result.has_next():
        rows.append(dict(zip(columns, result.get_next())))
    result.close()
    return rows


def _storable(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A column as the copy can hold it: whole numbers as int64, reals as float64, lists of those
    or of text as such lists, text and booleans as they are, anything else as text."""
    kind = column.type
    if pa.types.is_integer(kind):
        return column.cast(pa.int64())
    if pa.types.is_floating(kind):
        return column.cast(pa.float64())
    if pa.types.is_string(kind) or pa.types.is_boolean(kind):
        return column
    if pa.types.is_list(kind) and (pa.types.is_integer(kind.value_type) or pa.types.is_floating(kind.value_type)
                                   or pa.types.is_string(kind.value_type)):
        inner = pa.string() if pa.types.is_string(kind.value_type) else \
            pa.int64() if pa.types.is_integer(kind.value_type) else pa.float64()
        return column.cast(pa.list_(inner))
    try:
        return column.cast(pa.string())
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid):
        return pa.chunked_array([pa.array([None if v is None else str(v) for v in column.to_pylist()], pa.string())])


def _node_table(connection, table: str, notes: list[str]) -> tuple[pa.Table, str]:
    """(the table's rows as the copy holds them, id column first as `key`; its primary key's name)."""
    info = _rows(connection, f"CALL table_info({name_literal(table)}) RETURN *")
    key = next(p["name"] for p in info if p["primary key"])
    rows = connection.execute(f"MATCH (n:{identifier(table)}) RETURN n.*").get_as_arrow()
    columns = {"key": rows.column(f"n.{key}")}
    for prop in (p["name"] for p in info):
        if prop == key and catalog_key(prop) == "id":
            continue
        stored = prop + "_" if catalog_key(prop) in _RESERVED else prop
        if stored != prop:
            notes.append(f"table {table!r}: property {prop!r} is stored as {stored!r} ({prop!r} is the database's own)")
        columns[stored] = _storable(rows.column(f"n.{prop}"))
    return pa.table(columns), key


def kuzu_graph(path: Path | str) -> GraphData:
    """The graph of the Kuzu database at `path`, read without writing to it (module doc)."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such Kuzu database (kuzu:PATH takes the path Kuzu opens)")
    try:
        connection = connect(path, read_only=True, buffer_pool_bytes=1024**3)
    except RuntimeError as error:
        raise GraphFormatError(f"{path}: Kuzu cannot open it read-only ({error}); if another program has it "
                               "open for writing, close that first") from None
    tables = _rows(connection, "CALL show_tables() RETURN *")
    node_names = [t["name"] for t in tables if t["type"] == "NODE"]
    rel_names = [t["name"] for t in tables if t["type"] == "REL"]
    if not node_names:
        raise GraphFormatError(f"{path}: the database has no node tables")
    notes = [f"{path}: copied (read-only) into this project's layout; relationship tables are rel_<NAME> in "
             "Cypher over the copy, node ids are the primary keys as text"]
    read = {name: _node_table(connection, name, notes) for name in node_names}
    keys = [k for table, _ in read.values() for k in table.column("key").cast(pa.string()).to_pylist()]
    prefixed = len(set(keys)) < len(keys)
    if prefixed:
        notes.append(f"{path}: primary key values repeat across tables, so every node id is "
                     f"<Table>{KEY_SEPARATOR}<key> (e.g. {node_names[0]}{KEY_SEPARATOR}{keys[0]})")

    def ids(table: str, values: pa.ChunkedArray | pa.Array) -> pa.Array:
        text = [str(v) for v in values.cast(pa.string()).to_pylist()]
        return pa.array([f"{table}{KEY_SEPARATOR}{v}" for v in text] if prefixed else text, pa.string())

    nodes, text_features = {}, {}
    for name, (table, key) in read.items():
        columns = {"id": ids(name, table.column("key"))} | {c: table.column(c) for c in table.column_names[1:]}
        nodes[name] = NodeTable(name, pa.table(columns))
        strings = [c for c in table.column_names[1:] if pa.types.is_string(table.schema.field(c).type)]
        if key in strings and named_feature(strings) is None:  # no name/title/label: its text key names it
            text_features[name] = key
            if len(strings) > 1:
                notes.append(f"table {name!r}: its nodes are known by their primary key {key!r}; other text "
                             f"properties: {', '.join(s for s in strings if s != key)} (to use one: "
                             f"{OPTION} {name}=PROP)")
    edges = []
    for rel in rel_names:
        if _rows(connection, f"CALL table_info({name_literal(rel)}) RETURN *"):
            notes.append(f"relationship table {rel!r}: its properties are not copied (edges here keep none)")
        for pair in _rows(connection, f"CALL show_connection({name_literal(rel)}) RETURN *"):
            src, dst = pair["source table name"], pair["destination table name"]
            src_key, dst_key = read[src][1], read[dst][1]
            found = connection.execute(
                f"MATCH (a:{identifier(src)})-[:{identifier(rel)}]->(b:{identifier(dst)}) "
                f"RETURN a.{identifier(src_key)} AS s, b.{identifier(dst_key)} AS d").get_as_arrow()
            edges.append(EdgeList(rel, src, dst, pa.table({"src": ids(src, found.column("s")),
                                                           "dst": ids(dst, found.column("d"))})))
    connection.close()
    return GraphData(nodes, edges, text_features, notes)
