"""Question -> Cypher examples for the Text2Cypher arm (glm_dspy/modules/text2cypher.py), from a train split.

    python -m graphs.cypher_examples --db data/nobel            # rewrite datasets/nobel/text2cypher_examples.jsonl
    python -m graphs.cypher_examples --db data/nobel --check    # exit 1 if the file is not what it would write

Only train questions (never dev) become examples. Their Cypher (graphs/nobel_templates.py)
finds an entity by its node id, which a question does not give; each `{id: '<id>'}` becomes
`{name: '<its name>'}`, the way a query written from the question finds it, and every example is
checked by running it: it must return the rows the id form returns. One JSON object a line:
{"question", "cypher", "family"}.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from graphs.datasets import data_dir

ID_PROPERTY = re.compile(r"\{id: '((?:[^'\\]|\\.)*)'\}")


def examples_path(dataset: str) -> Path:
    return data_dir() / dataset / "text2cypher_examples.jsonl"


def by_name(cypher: str, name_of) -> str | None:
    """`cypher` with each `{id: '<id>'}` written `{name: '<name>'}`; None if a node has no name."""
    def replace(match: re.Match) -> str:
        name = name_of(match.group(1))
        if name is None:
            raise LookupError(match.group(1))
        return "{name: " + "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'}"
    try:
        return ID_PROPERTY.sub(replace, cypher)
    except LookupError:
        return None


def make_examples(store, questions) -> list[dict]:
    from glm_dspy.retriever import Retriever

    retriever = Retriever(store, None)
    examples = []
    for question in questions:
        if not question.cypher:
            continue
        cypher = by_name(question.cypher, retriever.label)
        if cypher is None:
            continue
        if _rows(store, cypher) != _rows(store, question.cypher):  # a name shared by two nodes
            continue
        examples.append({"question": question.question, "cypher": cypher, "family": question.qid.split("-")[2]})
    return examples


def _rows(store, cypher: str) -> list:
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in store.query(cypher))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--dataset", default="nobel")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args(argv)
    from graphs.datasets import load_questions
    from graphs.store import GraphStore

    store = GraphStore.open(args.db)
    text = "".join(json.dumps(e, ensure_ascii=False) + "\n"
                   for e in make_examples(store, load_questions(args.dataset, args.db, split="train")))
    path = examples_path(args.dataset)
    if args.check:
        same = path.is_file() and path.read_text(encoding="utf-8") == text
        print(f"{path}: {'up to date' if same else 'differs from what the train split gives'}")
        return 0 if same else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {text.count(chr(10))} examples to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
