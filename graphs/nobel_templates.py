"""The Nobel dev and train splits: `glm_dspy.graphs.nobel_families` instantiated over the graph's entities.

    python -m glm_dspy.graphs.nobel_templates            # rewrite datasets/nobel/dev.jsonl and train.jsonl
    python -m glm_dspy.graphs.nobel_templates --check    # re-derive both on a fresh database; exit 1 on any difference

Rules (tests/test_nobel_templates.py checks them on the shipped files):
- An entity is named by its `name`, and only when no other node of any type has that name.
- Every entity belongs to one split, by a stable hash of its id (`entity_split`): about
  DEV_SHARE of them are dev. A question goes to a split only if every entity it names
  belongs to it, so dev and train never name the same entity. Entities the hand-written
  demos name (DEMO_NAMES, glm_dspy/prompts/fewshot.py) are never dev; nor is any question of the
  49 hand-written samples (datasets/nobel/questions.jsonl), word for word.
- Answers come from the family's Cypher (`answer_from_rows`); a candidate whose answer is
  empty, null, or longer than the family's max_values is skipped.
- Within a tier the families take turns, each drawing its candidates in a seeded random
  order, until the tier has its size (DEV_PER_TIER, TRAIN_PER_TIER) or its families run out.
- qid: `nobel-<split>-<family>-<entity id>[+<entity id>][-<category>]`, stable across runs.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

from glm_dspy.graphs.literal import string_literal
from glm_dspy.graphs.nobel import slug as text_slug
from glm_dspy.graphs.nobel_families import FAMILIES, Family
from glm_dspy.graphs.questions import TIERS, Question, read_questions, write_questions
from glm_dspy.graphs.synthetic_questions import answer_from_rows

NOBEL_DIR = Path(__file__).resolve().parent.parent / "datasets" / "nobel"
SPLIT_FILES = {"dev": NOBEL_DIR / "dev.jsonl", "train": NOBEL_DIR / "train.jsonl"}
SAMPLE_FILE = NOBEL_DIR / "questions.jsonl"
DEV_SHARE = 0.4
DEV_PER_TIER = 110
TRAIN_PER_TIER = 200
SEED = 12  # issue 12
# every entity glm_dspy/prompts/fewshot.py names (tests/test_nobel_templates.py checks this list against that file)
DEMO_NAMES = frozenset({"Max Planck", "Niels Bohr", "Linus Pauling", "Nobel Prize in Physics 1921", "Ada Lovelace",
                        "Pierre Curie", "Marie Curie"})


def entity_split(node_id: str) -> str:
    """"dev" or "train" for an entity, from a hash of its id alone (stable across runs and graph versions)."""
    bucket = int.from_bytes(hashlib.sha256(node_id.encode()).digest()[:8], "big") / 2**64
    return "dev" if bucket < DEV_SHARE else "train"


def unique_names(store) -> dict[str, str]:
    """id -> name for every node whose name no other node (of any type) shares."""
    names = {row["id"]: row["name"] for row in store.query("MATCH (n) RETURN n.id AS id, n.name AS name")
             if row["name"]}
    counts = Counter(names.values())
    return {node_id: name for node_id, name in names.items() if counts[name] == 1}


def _instances(store, family: Family, names: dict[str, str], split: str, excluded: set[str]):
    """(qid, question, answer) for the family's candidates in `split`, in the family's seeded order."""
    rows = sorted(store.query(family.candidates), key=lambda r: tuple(str(v) for v in r.values()))
    random.Random(f"{SEED}:{family.slug}").shuffle(rows)
    for row in rows:
        ids = [row[k] for k in ("a", "b") if k in row]
        if not all(i in names and entity_split(i) == split for i in ids):
            continue
        if split == "dev" and any(names[i] in DEMO_NAMES for i in ids):
            continue
        category = row.get("category")
        values = {k: names[i] for k, i in zip("ab", ids)} | ({"category": category} if category else {})
        text = family.question.format(**values)
        if split == "dev" and text in excluded:
            continue
        literals = {k: string_literal(i) for k, i in zip("ab", ids)}
        literals |= {"category": string_literal(category)} if category else {}
        cypher = family.cypher.format(**literals)
        result = store.query(cypher)
        cells = [v for r in result for v in r.values()]
        num_values = sum(len(v) if isinstance(v, list) else 1 for v in cells)
        if not 1 <= num_values <= family.max_values or any(v is None for v in cells):
            continue
        qid = f"nobel-{split}-{family.slug}-{'+'.join(ids)}" + (f"-{text_slug(category)}" if category else "")
        yield Question(qid, text, answer_from_rows(result), tier=family.tier, cypher=cypher)


def make_split(store, split: str) -> list[Question]:
    """The questions of `split` ("dev" or "train"), tier by tier in TIERS order, deterministic for the graph."""
    assert split in SPLIT_FILES, split
    size = DEV_PER_TIER if split == "dev" else TRAIN_PER_TIER
    names = unique_names(store)
    excluded = {q.question for q in read_questions(SAMPLE_FILE)}
    questions = []
    for tier in TIERS:
        live = [_instances(store, f, names, split, excluded) for f in FAMILIES if f.tier == tier]
        made = 0
        while made < size and live:
            for instances in list(live):
                if made == size:
                    break
                question = next(instances, None)
                if question is None:
                    live.remove(instances)
                    continue
                questions.append(question)
                made += 1
    return questions


def main(argv: list[str] | None = None) -> int:
    from glm_dspy.graphs.nobel_questions import load_fresh_database
    from glm_dspy.graphs.store import GraphStore

    parser = argparse.ArgumentParser(prog="python -m glm_dspy.graphs.nobel_templates", description=__doc__.split("\n")[0])
    parser.add_argument("--db", type=Path, help="an existing Nobel database (default: load a fresh one)")
    parser.add_argument("--check", action="store_true",
                        help="compare the shipped files with a fresh generation; write nothing")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nobel-templates-") as tmp:
        store = GraphStore.open(args.db or load_fresh_database(Path(tmp) / "db"))
        splits = {split: make_split(store, split) for split in SPLIT_FILES}
        del store  # closes the database before its temporary directory goes
    status = 0
    for split, questions in splits.items():
        path = SPLIT_FILES[split]
        counts = ", ".join(f"{t} {sum(q.tier == t for q in questions)}" for t in TIERS)
        if not args.check:
            write_questions(questions, path)
            print(f"wrote {len(questions)} {split} questions ({counts}) to {path}", file=sys.stderr)
            continue
        shipped = read_questions(path)
        if shipped != questions:
            differ = [q.qid for q, f in zip(shipped, questions) if q != f] or ["(the number of questions)"]
            print(f"{path}: {len(differ)} questions differ from a fresh generation, first {differ[:5]}; "
                  "rewrite with `python -m glm_dspy.graphs.nobel_templates`", file=sys.stderr)
            status = 1
        else:
            print(f"{path}: {len(questions)} questions ({counts}) match a fresh generation", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
