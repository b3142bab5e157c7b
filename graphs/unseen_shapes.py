"""Dev questions of shapes the example bank does not hold: how GLM answers a question it has no template for.

The Cypher Act copies the query shape of the bank's nearest train questions. Every dev question's
template family (`glm_dspy.graphs.cypher_examples.family`: a Nobel family, a synthetic template, a
PathQuestion relation path) is in its train split, so dev EM measures questions of known shapes.
A user's question often has none. This writes a held-out test for it:

    python -m glm_dspy.graphs.unseen_shapes --dataset nobel --db data/nobel --out /tmp/unseen/nobel
    glm-dspy eval --questions /tmp/unseen/nobel/questions.jsonl --db /tmp/unseen/nobel/db \\
        --programs glm --shuffle --seed 1 --concurrency 4 --glm-program none --out RESULTS

A seeded `--fraction` of the dev split's families is held out: `OUT/db` is the database (its files
linked, not copied) with a bank of the train examples of the other families, `OUT/questions.jsonl`
the dev questions of the held-out ones, `OUT/families.json` which were held out. PathQuestion's
held-out paths keep their relations in the bank, in other paths ("children-gender" held out,
"children-nationality" kept): the test is of composing known relations into a new path.
As `glm-dspy build` does, the bank ends with the examples written from the graph itself
(graphs/schema_examples.py); `--no-schema-examples` leaves them out.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from glm_dspy.graphs.cypher_examples import FILE_NAME, examples_text, family, graph_examples, make_examples

DEFAULT_FRACTION = 0.5


def held_out_families(families: set[str], fraction: float, seed: int) -> set[str]:
    """A seeded `fraction` of `families`, rounded down (at least one, never all)."""
    assert 0 < fraction < 1, f"fraction must be in (0, 1), got {fraction}"
    ordered = sorted(families)
    count = min(len(ordered) - 1, max(1, int(len(ordered) * fraction)))
    return set(random.Random(seed).sample(ordered, count))


def write_unseen(spec: str, db_dir: Path | str, out_dir: Path | str, *, fraction: float = DEFAULT_FRACTION,
                 seed: int = 0, schema_examples: bool = True) -> dict:
    """Write OUT/db, OUT/questions.jsonl and OUT/families.json (module doc); their counts."""
    from glm_dspy.graphs.datasets import load_questions

    db_dir, out_dir = Path(db_dir).resolve(), Path(out_dir)
    dev = load_questions(spec, db_dir, split="dev")
    examples = make_examples(spec, db_dir)
    if examples is None:
        raise ValueError(f"{spec}: no train questions with a way to write their Cypher; nothing to hold out")
    families = {family(question) for question in dev} - {""}
    if len(families) < 2:
        raise ValueError(f"{spec}: its dev questions have {len(families)} template family; at least 2 are needed")
    held = held_out_families(families, fraction, seed)
    kept = [example for example in examples if example["family"] not in held]
    if schema_examples:
        kept += graph_examples(db_dir)
    questions = [question for question in dev if family(question) in held]
    db = out_dir / "db"
    db.mkdir(parents=True, exist_ok=True)
    for entry in db_dir.iterdir():
        if entry.name != FILE_NAME and not (db / entry.name).exists():
            (db / entry.name).symlink_to(entry)
    (db / FILE_NAME).write_text(examples_text(kept), encoding="utf-8")
    (out_dir / "questions.jsonl").write_text(
        "".join(json.dumps(q.to_json(), ensure_ascii=False) + "\n" for q in questions), encoding="utf-8")
    counts = {"dataset": spec, "seed": seed, "fraction": fraction, "families": len(families),
              "held_out": sorted(held), "questions": len(questions), "examples": len(kept),
              "examples_held_out": sum(example["family"] in held for example in examples),
              "schema_examples": schema_examples}
    (out_dir / "families.json").write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    return counts


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", required=True, help="nobel, synthetic, pathquestion or pathquestion:pql")
    parser.add_argument("--db", type=Path, required=True, help="the built database (glm-dspy build)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write db/, questions.jsonl, families.json")
    parser.add_argument("--fraction", type=float, default=DEFAULT_FRACTION, help="of the dev families, held out")
    parser.add_argument("--seed", type=int, default=0, help="seed of which families are held out")
    parser.add_argument("--no-schema-examples", action="store_true",
                        help="a bank of train examples only, without those written from the graph itself")
    return parser


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if not (0 < args.fraction < 1):
        parser.error(f"--fraction must be between 0 and 1, got {args.fraction}")
    if not (args.db / "meta.json").is_file():
        parser.error(f"{args.db}: not a built database (no meta.json); run glm-dspy build first")
    counts = write_unseen(args.dataset, args.db, args.out, fraction=args.fraction, seed=args.seed,
                          schema_examples=not args.no_schema_examples)
    print(f"held out {len(counts['held_out'])} of {counts['families']} families: {counts['questions']} dev questions "
          f"in {args.out / 'questions.jsonl'}; bank of {counts['examples']} examples in {args.out / 'db'}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
