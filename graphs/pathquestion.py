"""PathQuestion (Zhou et al. 2018): Freebase subgraphs as triples, and multi-hop questions.

KB files are triples files, loaded by `glm_dspy.graphs.triples` (entities as `entity` nodes, each
relation a neighbour type in both directions, `inv_<relation>` backwards).
Question lines: `question<TAB>answer(alt1/alt2/...)<TAB>path` with path `s#r1#e1#r2#answer...`
(PQ ends it with `#<end>#answer`); the path becomes `meta["path"]`. The answer set is every
right answer to the question (the dataset's readme: "answer, answer set"; the two spouses'
genders, a horse's four books): each of its answers is accepted alone, as the dataset's Hits@1
does, and so is the whole set, listed (`alternatives` holds both), since answering with all of
them is answering completely. A partial list of two or more is not accepted.
Every question is 2-hop, so its tier is multi_hop.
"""

from __future__ import annotations

import re
from pathlib import Path

from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.grbench import GraphFormatError
from glm_dspy.graphs.questions import Question
from glm_dspy.graphs.triples import triples_graph

VARIANTS = {"pq": ("2H-kb.txt", "PQ-2H.txt"), "pql": ("PQL2-KB.txt", "PQL-2H.txt")}


def _files(variant: str) -> tuple[str, str]:
    if variant not in VARIANTS:
        raise ValueError(f"unknown PathQuestion variant {variant!r}; use one of {', '.join(VARIANTS)}")
    return VARIANTS[variant]


def pathquestion_graph(data_dir: Path | str, variant: str = "pq") -> GraphData:
    kb_file, _ = _files(variant)
    return triples_graph(Path(data_dir) / kb_file)


def read_pathquestions(data_dir: Path | str, variant: str = "pq") -> list[Question]:
    _, question_file = _files(variant)
    path = Path(data_dir) / question_file
    questions = []
    for line_number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        parts = line.split("\t")
        match = re.match(r"^(.*?)\((.*)\)$", parts[1].strip()) if len(parts) == 3 else None
        if not match:
            raise GraphFormatError(f"{path}:{line_number}: expected question<TAB>answer(alts)<TAB>path")
        answer_set = tuple(dict.fromkeys(a for a in match.group(2).split("/") if a))
        alternatives = (*answer_set, ", ".join(answer_set)) if len(answer_set) > 1 else answer_set
        hops = parts[2].split("#<end>#")[0].split("#")
        questions.append(Question(f"{variant}-{line_number}", parts[0].strip(), match.group(1), alternatives,
                                  tier="multi_hop", meta={"path": hops, "topic_entity": hops[0]}))
    return questions
