"""PathQuestion (Zhou et al. 2018): Freebase subgraphs as triples, and multi-hop questions.

KB lines are `subject<TAB>relation<TAB>object`. Every entity becomes an `entity` node
(id = its Freebase name, feature `name` = the name with spaces); every relation a neighbour
type (`__people__person__nationality` -> `people_person_nationality`), stored forward and
inverted (`inv_<relation>`) so a node's chunk shows both ends.
Question lines: `question<TAB>answer(alt1/alt2/...)<TAB>path` with path `s#r1#e1#r2#answer...`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from graphs.grbench import GraphFormatError, Question
from graphs.graph_data import EdgeList, GraphData, NodeTable

DATASETS = {"pq": ("2H-kb.txt", "PQ-2H.txt"), "pql": ("PQL2-KB.txt", "PQL-2H.txt")}


def relation_name(raw: str) -> str:
    name = re.sub(r"[^A-Za-z0-9]+", "_", raw).strip("_").lower()
    if not name or not name[0].isalpha():
        name = "r_" + name
    return name


def read_triples(path: Path) -> list[tuple[str, str, str]]:
    triples = []
    for line_number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = [p for p in line.split("\t") if p != ""]
        if len(parts) != 3:
            raise GraphFormatError(f"{path}:{line_number}: expected subject<TAB>relation<TAB>object, got {line!r:.80}")
        triples.append(tuple(p.strip() for p in parts))
    return triples


def pathquestion_graph(data_dir: Path | str, variant: str = "pq") -> GraphData:
    kb_file, _ = DATASETS[variant]
    triples = read_triples(Path(data_dir) / kb_file)
    entities = sorted({t[0] for t in triples} | {t[2] for t in triples})
    nodes = NodeTable("entity", pa.table({"id": pa.array(entities, pa.string()),
                                           "name": pa.array([e.replace("_", " ") for e in entities], pa.string())}))
    by_relation: dict[str, set[tuple[str, str]]] = {}
    for subject, relation, obj in triples:
        by_relation.setdefault(relation_name(relation), set()).add((subject, obj))
        by_relation.setdefault("inv_" + relation_name(relation), set()).add((obj, subject))
    edges = []
    for relation, pairs in sorted(by_relation.items()):
        src, dst = zip(*sorted(pairs))
        edges.append(EdgeList(relation, "entity", "entity", pa.table({"src": list(src), "dst": list(dst)})))
    return GraphData({"entity": nodes}, edges)


def read_pathquestions(data_dir: Path | str, variant: str = "pq") -> list[Question]:
    _, question_file = DATASETS[variant]
    path = Path(data_dir) / question_file
    questions = []
    for line_number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        match = re.match(r"^(.*?)\((.*)\)$", parts[1].strip()) if len(parts) == 3 else None
        if not match:
            raise GraphFormatError(f"{path}:{line_number}: expected question<TAB>answer(alts)<TAB>path")
        alternatives = [a for a in match.group(2).split("/") if a]
        hops = parts[2].split("#<end>#")[0].split("#")
        questions.append(Question(f"{variant}-{line_number}", parts[0].strip(), match.group(1),
                                  {"alternatives": alternatives, "path": hops, "topic_entity": hops[0]}))
    return questions
