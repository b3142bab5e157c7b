"""Fixed dev and train splits of PathQuestion and the synthetic graph, written down in `datasets/splits/`.

Dev questions measure the program: they are never used for demos, instructions or training;
train questions are for optimizers. The Nobel splits are question files of their own
(`glm_dspy.graphs.nobel_templates`); the others are defined here:

- PathQuestion (`pathquestion-pq.json`, `pathquestion-pql.json`): `{"seed", "dev": [qid...],
  "train": [qid...]}`, chosen once by a seeded shuffle of the question file's topic entities
  (`python -m glm_dspy.graphs.splits` rewrites them): in that order, the first PATHQUESTION_DEV questions
  with distinct text and a distinct (entity, relation path) are dev; train is every question
  about an entity no dev question names.
- Synthetic (`synthetic.json`): `{"dev": {"seed", "num_per_tier"}, "train": {...}}`, the
  question-generator settings of each split. The graph is generated deterministically, so
  `glm-dspy build synthetic` writes `dev.jsonl` and `train.jsonl` beside `questions.jsonl`
  with them; qids are prefixed `syn-<split>-`, and train drops any question whose text is in
  dev or that names an entity a dev question names.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.questions import Question

SPLITS = ("dev", "train")
SPLITS_FOLDER = "splits"
PATHQUESTION_DEV = 200
PATHQUESTION_SEED = 12  # issue 12


def check_split(split: str, more: Sequence[str] = ()) -> None:
    """Refuse a split name that is not in SPLITS; `more` names the datasets' own further splits in the message."""
    if split not in SPLITS:
        named = ", ".join((*SPLITS, *dict.fromkeys(more)))
        raise ValueError(f"unknown split {split!r}; use one of: {named} (or none for every question)")


def split_file(name: str) -> Path:
    from glm_dspy.graphs.data_dir import data_dir

    return data_dir() / SPLITS_FOLDER / f"{name}.json"


def _read(name: str) -> dict:
    path = split_file(name)
    if not path.is_file():
        raise FileNotFoundError(f"no split file {path}; `python -m glm_dspy.graphs.splits` writes the PathQuestion ones")
    return json.loads(path.read_text())


def select_split(questions: list[Question], name: str, split: str) -> list[Question]:
    """The questions of `split` listed in split file `name`, in the file's order; a listed qid
    missing from `questions` is an error (the question file changed since the split was chosen)."""
    check_split(split)
    qids = _read(name)[split]
    by_qid = {q.qid: q for q in questions}
    missing = [qid for qid in qids if qid not in by_qid]
    if missing:
        raise ValueError(f"{split_file(name)}: {len(missing)} {split} qids are not in the question file "
                         f"(first: {missing[:3]}); rewrite the split with `python -m glm_dspy.graphs.splits`")
    return [by_qid[qid] for qid in qids]


def topic_entity(question: Question) -> str:
    """The entity a PathQuestion question names (its path's first entity; the question text if it has no path)."""
    return question.meta.get("topic_entity") or question.question


def choose_pathquestion_split(questions: list[Question], seed: int = PATHQUESTION_SEED) -> dict:
    """The split file's content for a PathQuestion question list (see the module docstring).

    Split by topic entity, not by text: PathQuestion words each (entity, path) several ways
    ("X 's couple 's nation", "which nationality is X 's couple"), so a text-only split put a
    rewording of every dev question, with its entity and path, into train. Dev takes one wording
    of each (entity, relation path), so its 200 questions ask about more entities."""
    entities = sorted({topic_entity(q) for q in questions})
    random.Random(seed).shuffle(entities)
    rank = {entity: i for i, entity in enumerate(entities)}
    order = sorted(questions, key=lambda q: (rank[topic_entity(q)], q.qid))
    dev, dev_texts, dev_paths, dev_entities = [], set(), set(), set()
    for question in order:
        if len(dev) == PATHQUESTION_DEV:
            break
        path = (topic_entity(question), tuple((question.meta.get("path") or [])[1::2]) or question.question)
        if question.question not in dev_texts and path not in dev_paths:
            dev.append(question.qid)
            dev_texts.add(question.question)
            dev_paths.add(path)
            dev_entities.add(topic_entity(question))
    train = [q.qid for q in order if topic_entity(q) not in dev_entities]
    return {"seed": seed, "dev": dev, "train": train}


def named_ids(question: Question) -> set[str]:
    """The node ids a generated question's Cypher finds its entities by (`{id: '...'}`, read off
    its parse: a template that does not parse is an error)."""
    from glm_dspy.graphs.cypher import parse
    from glm_dspy.graphs.cypher.name_literals import id_literals

    return set(id_literals(parse(question.cypher)))


def synthetic_splits(graph: GraphData) -> dict[str, list[Question]]:
    """split -> questions over a synthetic graph, by the settings in synthetic.json. A split the
    graph is too small for is left out (loading it then says so)."""
    from glm_dspy.graphs.synthetic_questions import make_questions

    settings, made = _read("synthetic"), {}
    for split in SPLITS:
        try:
            questions = make_questions(graph, num_per_tier=settings[split]["num_per_tier"],
                                       seed=settings[split]["seed"])
        except ValueError:
            continue
        dev = made.get("dev", [])
        taken_texts, taken_ids = {q.question for q in dev}, {i for q in dev for i in named_ids(q)}
        made[split] = [Question(f"syn-{split}-{q.qid}", q.question, q.answer, q.alternatives, q.tier, q.cypher)
                       for q in questions if q.question not in taken_texts and not named_ids(q) & taken_ids]
    return made


def main() -> int:
    from glm_dspy.graphs.data_dir import data_dir
    from glm_dspy.graphs.pathquestion import VARIANTS, read_pathquestions

    for variant in VARIANTS:
        content = choose_pathquestion_split(read_pathquestions(data_dir() / "pathquestion", variant))
        path = split_file(f"pathquestion-{variant}")
        path.write_text(json.dumps(content, indent=0) + "\n")
        print(f"wrote {path}: {len(content['dev'])} dev, {len(content['train'])} train", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
