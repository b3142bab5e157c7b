"""Subject–relation–object files as graphs (`glm-dspy build triples:FILE.tsv`).

A line is `subject<TAB>relation<TAB>object`, UTF-8 (a byte-order mark is dropped). Empty fields
are skipped (PathQuestion writes `subject<TAB><TAB>relation<TAB>object`), fields are stripped,
blank lines ignored, repeated triples count once. A first line that names the columns
(`subject relation object`, `head relation tail`, `source predicate target`, ...: HEADER_WORDS)
is a header and skipped, and the build says so. A comma- or semicolon-separated file is refused
with a hint. The graph:
* every subject and object is one node of the single type `entity`: id = the text as written,
  feature `name` = the text with `_` as spaces (`marie_curie` -> `marie curie`), which
  RetrieveNode embeds;
* every relation is a neighbour type named `relation_name(raw)`: as written where it is one word
  in any script (`spouse`, `配偶`, `Ähnlich_zu`), else with each run of other characters as one
  `_` (`__people__person__nationality` -> `people_person_nationality`, `it's` -> `it_s`), which
  the build reports (GraphData.notes); it holds subject -> object, and `inv_<name>` holding
  object -> subject, so `NeighbourCheck(object, "inv_<name>")` walks back and a node's chunk
  shows both ends.
Invariant: each neighbour type comes from exactly one raw relation in one direction; a file
where two relations would share one (`a-b` and `a_b`, or `x` and `inv_x`) is refused, as is
an id that cannot be a node id (`glm_dspy.graphs.literal`) or a relation that cannot be a name
(`glm_dspy.graphs.names`: more than 256 characters, say). Errors name the file and line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa

from glm_dspy.graphs.graph_data import EdgeList, GraphData, NodeTable
from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.literal import InvalidId, string_literal
from glm_dspy.graphs.names import is_word, name_problem

NODE_TYPE = "entity"
INVERSE_PREFIX = "inv_"
HEADER_WORDS = ({"subject", "head", "source", "from", "s", "h"},
                {"relation", "predicate", "rel", "relationship", "property", "edge", "p", "r"},
                {"object", "tail", "target", "to", "o", "t"})
MAX_NOTED = 5  # renamed relations listed by name in the build's notes; the rest are counted


def relation_name(raw: str) -> str:
    """A relation as a neighbour type: as written where it is one word (letters in any script,
    digits, `_`, starting with a letter); else each run of other characters as one `_` (ASCII
    letters lower-cased, as PathQuestion's Freebase names always were), starting with a letter."""
    if is_word(raw):
        return raw
    name = re.sub(r"\W+|_+", "_", raw).strip("_")
    name = "".join(ch.lower() if ch.isascii() else ch for ch in name)
    if not name or not name[0].isalpha():
        name = "r_" + name
    return name


def is_header(fields: list[str]) -> bool:
    """Whether a first line's three fields name the columns (HEADER_WORDS) rather than a triple."""
    return len(fields) == 3 and all(f.lower() in words for f, words in zip(fields, HEADER_WORDS))


def _separator_hint(line: str) -> str:
    """A hint for a line that is no triple: it may use another separator than TAB."""
    for separator, name in ((",", "comma"), (";", "semicolon")):
        if "\t" not in line and line.count(separator) >= 2:
            return (f"; the line has no TAB but {line.count(separator)} {name}s: a triples file is "
                    f"TAB-separated (for a {name}-separated file of nodes and edges use tables:DIR)")
    return ""


def read_triples(path: Path | str) -> Iterator[tuple[int, str, str, str, bool]]:
    """(line number, subject, relation, object, is header) for every triple line of `path`; only
    the first line may be a header (`is_header`), which is then no triple."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such triples file (one subject<TAB>relation<TAB>object per line)")
    is_first = True
    with path.open("rb") as f:
        for line_number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8-sig" if line_number == 1 else "utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise GraphFormatError(f"{path}:{line_number}: not UTF-8 text ({error.reason})") from None
            if not line.strip():
                continue
            fields = [f.strip() for f in line.split("\t") if f.strip()]
            if is_first and is_header(fields):
                yield line_number, *fields, True
                is_first = False
                continue
            is_first = False
            if len(fields) != 3:
                raise GraphFormatError(f"{path}:{line_number}: expected subject<TAB>relation<TAB>object, "
                                       f"got {len(fields)} field(s): {line!r:.80}{_separator_hint(line)}")
            problem = name_problem(fields[1])
            if problem is not None:
                raise GraphFormatError(f"{path}:{line_number}: relation {fields[1]!r:.60} cannot be a name: {problem}")
            yield line_number, fields[0], fields[1], fields[2], False


def triples_graph(path: Path | str) -> GraphData:
    """The graph of a triples file (see module doc)."""
    entities: dict[str, None] = {}  # insertion-ordered set
    pairs: dict[str, set[tuple[str, str]]] = {}
    source_of: dict[str, tuple[str, str, int]] = {}  # neighbour type -> (raw relation, direction, first line)
    notes = []
    for line_number, subject, relation, obj, header in read_triples(path):
        if header:
            notes.append(f"{path}:{line_number}: skipped the header line {subject!r} {relation!r} {obj!r}")
            continue
        for entity in (subject, obj):
            if entity not in entities:
                try:
                    string_literal(entity)
                except InvalidId as error:
                    raise GraphFormatError(f"{path}:{line_number}: {error}") from None
                entities[entity] = None
        name = relation_name(relation)
        problem = name_problem(INVERSE_PREFIX + name)
        if problem is not None:
            raise GraphFormatError(f"{path}:{line_number}: relation {relation!r:.60} cannot be a name "
                                   f"(as {INVERSE_PREFIX}{name:.20}...): {problem}")
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
    renamed = [(raw, name) for name, (raw, direction, _) in sorted(source_of.items())
               if direction == "forward" and raw != name]
    if renamed:
        listed = ", ".join(f"{raw!r} as {name!r}" for raw, name in renamed[:MAX_NOTED])
        more = f" and {len(renamed) - MAX_NOTED} more" if len(renamed) > MAX_NOTED else ""
        notes.append(f"{path}: {len(renamed)} relation(s) are not one word and are stored with '_': {listed}{more}")
    ids = sorted(entities)
    nodes = NodeTable(NODE_TYPE, pa.table({"id": pa.array(ids, pa.string()),
                                           "name": pa.array([e.replace("_", " ") for e in ids], pa.string())}))
    edges = []
    for neighbour_type, relation_pairs in sorted(pairs.items()):
        src, dst = zip(*sorted(relation_pairs))
        edges.append(EdgeList(neighbour_type, NODE_TYPE, NODE_TYPE,
                              pa.table({"src": pa.array(src, pa.string()), "dst": pa.array(dst, pa.string())})))
    return GraphData({NODE_TYPE: nodes}, edges, notes=notes)
