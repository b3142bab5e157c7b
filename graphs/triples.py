"""Subject–relation–object files as graphs (`glm-dspy build triples:FILE.tsv`).

A line is `subject<TAB>relation<TAB>object`, UTF-8. Empty fields are skipped (PathQuestion
writes `subject<TAB><TAB>relation<TAB>object`), fields are stripped, blank lines ignored,
repeated triples count once. The graph:
* every subject and object is one node of the single type `entity`: id = the text as written,
  feature `name` = the text with `_` as spaces (`marie_curie` -> `marie curie`), which
  RetrieveNode embeds;
* every relation is a neighbour type named `relation_name(raw)` (`__people__person__nationality`
  -> `people_person_nationality`) holding subject -> object, and `inv_<name>` holding
  object -> subject, so `NeighbourCheck(object, "inv_<name>")` walks back and a node's chunk
  shows both ends.
Invariant: each neighbour type comes from exactly one raw relation in one direction; a file
where two relations would share one (`a-b` and `a_b`, or `x` and `inv_x`) is refused, as is
an id that cannot be a node id (`graphs.literal`). Errors name the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from graphs.graph_data import EdgeList, GraphData, NodeTable
from graphs.grbench import GraphFormatError
from graphs.literal import InvalidId, string_literal

NODE_TYPE = "entity"
INVERSE_PREFIX = "inv_"


def relation_name(raw: str) -> str:
    """A relation as a neighbour type: lower case, other characters as single `_`, starting with a letter."""
    name = re.sub(r"[^A-Za-z0-9]+", "_", raw).strip("_").lower()
    if not name or not name[0].isalpha():
        name = "r_" + name
    return name


def read_triples(path: Path | str) -> Iterator[tuple[int, str, str, str]]:
    """(line number, subject, relation, object) for every triple line of `path`."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such triples file (one subject<TAB>relation<TAB>object per line)")
    with path.open("rb") as f:
        for line_number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise GraphFormatError(f"{path}:{line_number}: not UTF-8 text ({error.reason})") from None
            if not line.strip():
                continue
            fields = [f.strip() for f in line.split("\t") if f.strip()]
            if len(fields) != 3:
                raise GraphFormatError(f"{path}:{line_number}: expected subject<TAB>relation<TAB>object, "
                                       f"got {len(fields)} field(s): {line!r:.80}")
            yield line_number, fields[0], fields[1], fields[2]


def triples_graph(path: Path | str) -> GraphData:
    """The graph of a triples file (see module doc)."""
    entities: dict[str, None] = {}  # insertion-ordered set
    pairs: dict[str, set[tuple[str, str]]] = {}
    source_of: dict[str, tuple[str, str, int]] = {}  # neighbour type -> (raw relation, direction, first line)
    for line_number, subject, relation, obj in read_triples(path):
        for entity in (subject, obj):
            if entity not in entities:
                try:
                    string_literal(entity)
                except InvalidId as error:
                    raise GraphFormatError(f"{path}:{line_number}: {error}") from None
                entities[entity] = None
        name = relation_name(relation)
        for neighbour_type, direction, pair in ((name, "forward", (subject, obj)),
                                                (INVERSE_PREFIX + name, "inverse", (obj, subject))):
            raw, seen_direction, first_line = source_of.setdefault(neighbour_type, (relation, direction, line_number))
            if (raw, seen_direction) != (relation, direction):
                raise GraphFormatError(
                    f"{path}:{line_number}: relation {relation!r} ({direction}) would be neighbour type "
                    f"{neighbour_type!r}, which relation {raw!r} ({seen_direction}, line {first_line}) already is; "
                    "rename one of them")
            pairs.setdefault(neighbour_type, set()).add(pair)
    if not entities:
        raise GraphFormatError(f"{path}: no triples (one subject<TAB>relation<TAB>object per line)")
    ids = sorted(entities)
    nodes = NodeTable(NODE_TYPE, pa.table({"id": pa.array(ids, pa.string()),
                                           "name": pa.array([e.replace("_", " ") for e in ids], pa.string())}))
    edges = []
    for neighbour_type, relation_pairs in sorted(pairs.items()):
        src, dst = zip(*sorted(relation_pairs))
        edges.append(EdgeList(neighbour_type, NODE_TYPE, NODE_TYPE,
                              pa.table({"src": pa.array(src, pa.string()), "dst": pa.array(dst, pa.string())})))
    return GraphData({NODE_TYPE: nodes}, edges)
