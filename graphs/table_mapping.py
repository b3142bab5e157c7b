"""Which files of a tables folder hold which node types and relations (`glm-dspy build tables:DIR`).

By convention, with no mapping file:

    DIR/nodes/<Type>.csv      one file per node type: an `id` column, then properties
    DIR/edges/<RELATION>.csv  one file per relation: `source` and `target` columns (node ids)

(`.tsv` and `.parquet` files too). A mapping file `DIR/graph.toml` (or `DIR/graph.json`, the
same keys) names what the convention cannot; each entry adds a type or relation, or changes the
one its convention file gives (same name):

    [nodes.Person]
    file = "people.csv"          # relative to DIR; default nodes/Person.csv|.tsv|.parquet
    id = "person_id"             # the id column; default "id"
    name = "full_name"           # the property nodes are known by; default name/title/label
    delimiter = ";"              # default: read from the header line
    types = { born = "INT64" }   # STRING, INT64, DOUBLE or BOOLEAN; default: inferred

    [edges.ACTED_IN]
    file = "cast.csv"
    source = "actor"             # default: source, else from, else src
    target = "movie"             # default: target, else to, else dst

Type and relation names are kept as written (graphs/names.py). Unknown keys are errors naming
the mapping file and key.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.names import name_problem

MAPPING_FILES = ("graph.toml", "graph.json")
SUFFIXES = (".csv", ".tsv", ".parquet")
KUZU_TYPES = ("STRING", "INT64", "DOUBLE", "BOOLEAN")
_NODE_KEYS = {"file", "id", "name", "delimiter", "types"}
_EDGE_KEYS = {"file", "source", "target", "delimiter"}


@dataclass(frozen=True, slots=True)
class TableFile:
    """One file: the nodes of a type (`kind` "nodes") or the edges of a relation (`kind` "edges").
    `columns` names the id column (nodes: {"id": ...}) or the end columns (edges: {"source": ...,
    "target": ...}) where given; `name` the nodes' name property; `types` declared property types."""

    kind: str
    name: str  # the node type or relation, as written
    path: Path
    columns: dict[str, str] = field(default_factory=dict)
    label: str | None = None
    delimiter: str | None = None
    types: dict[str, str] = field(default_factory=dict)

    def __post_init__(self):
        assert self.kind in ("nodes", "edges"), self.kind
        problem = name_problem(self.name)
        if problem is not None:
            what = "node type" if self.kind == "nodes" else "relation"
            raise GraphFormatError(f"{self.path}: {what} {self.name!r:.60} cannot be a name: {problem}")
        if self.path.suffix.lower() not in SUFFIXES:
            raise GraphFormatError(f"{self.path}: not a table file (use {', '.join(SUFFIXES)})")
        if self.delimiter is not None and len(self.delimiter) != 1:
            raise GraphFormatError(f"{self.path}: delimiter {self.delimiter!r} must be one character")
        for column, kuzu_type in self.types.items():
            if kuzu_type.upper() not in KUZU_TYPES:
                raise GraphFormatError(f"{self.path}: column {column!r} declared {kuzu_type!r}; "
                                       f"use one of {', '.join(KUZU_TYPES)}")


def _convention(folder: Path, kind: str) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((folder / kind).glob("*")) if (folder / kind).is_dir() else []:
        if path.suffix.lower() not in SUFFIXES or path.name.startswith("."):
            continue
        if path.stem in found:
            raise GraphFormatError(f"{path} and {found[path.stem]}: two files for {kind[:-1]} {path.stem!r}; keep one")
        found[path.stem] = path
    return found


def _read_mapping(path: Path) -> dict:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8-sig")) if path.suffix == ".toml" \
            else json.loads(path.read_text(encoding="utf-8-sig"))
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise GraphFormatError(f"{path}: not valid {path.suffix[1:].upper()}: {error}") from None
    unknown = set(raw) - {"nodes", "edges"}
    if unknown:
        raise GraphFormatError(f"{path}: unknown section(s) {sorted(unknown)}; use [nodes.TYPE] and [edges.RELATION]")
    return raw


def _entry(mapping: Path, kind: str, name: str, entry: object, default: Path | None, folder: Path) -> TableFile:
    where = f"{mapping}: [{kind}.{name}]"
    if not isinstance(entry, dict):
        raise GraphFormatError(f"{where} must be a table of keys")
    unknown = set(entry) - (_NODE_KEYS if kind == "nodes" else _EDGE_KEYS)
    if unknown:
        raise GraphFormatError(f"{where}: unknown key(s) {sorted(unknown)}; "
                               f"use {', '.join(sorted(_NODE_KEYS if kind == 'nodes' else _EDGE_KEYS))}")
    if "file" not in entry and default is None:
        raise GraphFormatError(f"{where}: no file; give file = \"...\" or put it at {kind}/{name}.csv")
    path = folder / entry["file"] if "file" in entry else default
    if not path.is_file():
        raise GraphFormatError(f"{where}: file {path} does not exist")
    ends = ("id",) if kind == "nodes" else ("source", "target")
    types = entry.get("types", {})
    if not isinstance(types, dict) or not all(isinstance(v, str) for v in types.values()):
        raise GraphFormatError(f"{where}: types must map column names to type names, e.g. {{ born = \"INT64\" }}")
    return TableFile(kind, name, path, {end: entry[end] for end in ends if end in entry}, entry.get("name"),
                     entry.get("delimiter"), dict(types))


def table_files(folder: Path | str) -> list[TableFile]:
    """Every table file of `folder`, node files first (module doc); an error where there are none."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"{folder}: no such folder; tables:DIR needs a folder with nodes/ and edges/ "
                                "(or a graph.toml naming its files)")
    mappings = [folder / name for name in MAPPING_FILES if (folder / name).is_file()]
    if len(mappings) > 1:
        raise GraphFormatError(f"{folder}: both graph.toml and graph.json; keep one")
    raw = _read_mapping(mappings[0]) if mappings else {}
    files = []
    for kind in ("nodes", "edges"):
        convention, entries = _convention(folder, kind), raw.get(kind, {})
        for name in [*convention, *(n for n in entries if n not in convention)]:
            files.append(_entry(mappings[0], kind, name, entries[name], convention.get(name), folder)
                         if name in entries else TableFile(kind, name, convention[name]))
    if not any(f.kind == "nodes" for f in files):
        raise GraphFormatError(f"{folder}: no node files; put one file per node type in {folder / 'nodes'}/ "
                               "(TYPE.csv with an id column) or name them in graph.toml")
    return files
