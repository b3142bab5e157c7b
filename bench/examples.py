"""Example choice for the Cypher Act: does the prompt show the query shape the question needs?

    python -m glm_dspy.bench.examples                 # every dev question of each built database
    python -m glm_dspy.bench.examples --quick         # the first 60 dev questions of each
    python -m glm_dspy.bench.examples --data data --k 3

No LLM call: each dev question's own query (its template's or its path's, in name form, as
`graphs/cypher_examples.py` writes train examples) has a shape, names aside; the bank of train
examples is read from the database. For each arm of `Text2Cypher.choose_examples`:
  meaning             the k nearest by the question forms' meaning (the default)
  + one per shape     the same, three wordings of one query count once
  + word order        and, among the 32 nearest, the forms' word order counts
Neither option is on by default: what this measures is whether the prompt holds the right shape,
not whether the model copies it, and on Nobel one example per shape made the 0.5B model mix the
shapes (EM 0.976 -> 0.570 on the dev split, at 773aa6b).
it counts how often the nearest example (the one printed last, next to the question) has the
question's shape, and how often any of the k has it; "in bank" is how often the bank holds that
shape at all (the ceiling of both). Databases: DATA/nobel, DATA/pq, DATA/pql, DATA/syn10k, as the
README builds them; one that is missing is left out, with the command that builds it.
Prints one table, then one JSON line of the headline figures.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from glm_dspy.modules.text2cypher import ORDER_WEIGHT

DATASETS = {"nobel": ("nobel", "nobel"), "pathquestion": ("pq", "pathquestion"),
            "pathquestion:pql": ("pql", "pathquestion:pql"), "synthetic": ("syn10k", "synthetic")}
ARMS = {"meaning": {},
        "+ one per shape": {"distinct_shapes": True},
        "+ word order": {"distinct_shapes": True, "order_weight": ORDER_WEIGHT}}


def shape(cypher: str) -> str:
    from glm_dspy.modules.text2cypher import query_shape

    return query_shape(cypher)


def gold_queries(spec: str, graph) -> list[dict]:
    """{"question", "cypher"} of each dev question whose query the bank's rules can write in name form."""
    from glm_dspy.graphs.cypher_examples import path_examples, template_examples
    from glm_dspy.graphs.datasets import load_questions

    questions = load_questions(spec, graph.store.db_dir, split="dev")
    make = path_examples if spec.startswith("pathquestion") else template_examples
    return make(graph.store, questions)


def measure(spec: str, db_dir: Path, k: int, limit: int | None) -> list[dict]:
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.text2cypher import Text2Cypher

    graph = open_graph(db_dir)
    gold = gold_queries(spec, graph)[:limit]
    rows = []
    for arm, options in ARMS.items():
        program = Text2Cypher(graph, k=k, **options)
        bank = {shape(e["cypher"]) for e in program.examples}
        started, nearest, among, distinct = time.perf_counter(), 0, 0, 0
        for item in gold:
            shapes = [shape(e["cypher"]) for e in program.choose_examples(item["question"])]
            nearest += bool(shapes) and shapes[0] == shape(item["cypher"])
            among += shape(item["cypher"]) in shapes
            distinct += len(set(shapes))
        n = max(1, len(gold))
        rows.append({"dataset": spec, "arm": arm, "questions": len(gold), "examples": len(program.examples),
                     "in_bank": sum(shape(g["cypher"]) in bank for g in gold) / n,
                     "nearest_right": nearest / n, "any_right": among / n, "shapes_per_prompt": distinct / n,
                     "ms_per_question": 1000 * (time.perf_counter() - started) / n})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the first 60 dev questions of each dataset")
    parser.add_argument("--data", type=Path, default=Path("data"), help="the folder of built databases")
    parser.add_argument("--k", type=int, default=3, help="examples per prompt")
    args = parser.parse_args(argv)
    rows = []
    for spec, (folder, build) in DATASETS.items():
        db_dir = args.data / folder
        if not (db_dir / "meta.json").is_file():
            print(f"{spec}: no database at {db_dir}; build it with `glm-dspy build {build} --db {db_dir}`",
                  file=sys.stderr)
            continue
        rows += measure(spec, db_dir, args.k, 60 if args.quick else None)
    if not rows:
        print("no database to measure", file=sys.stderr)
        return 1
    print(f"| dataset | arm | dev questions | in bank | nearest has its shape | one of {args.k} has it "
          "| shapes per prompt | ms/question |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['dataset']} | {r['arm']} | {r['questions']} | {r['in_bank']:.3f} | {r['nearest_right']:.3f} "
              f"| {r['any_right']:.3f} | {r['shapes_per_prompt']:.2f} | {r['ms_per_question']:.1f} |")
    default = {r["dataset"]: r for r in rows if r["arm"] == "meaning"}  # the default rule
    both = [r for r in rows if r["arm"] == "+ word order"]
    print(json.dumps({"bench": "examples", "k": args.k, "quick": args.quick,
                      **{f"{r['dataset']}_any_right": round(default[r["dataset"]]["any_right"], 3) for r in both},
                      **{f"{r['dataset']}_any_right_distinct_ordered": round(r["any_right"], 3) for r in both},
                      **{f"{r['dataset']}_nearest_right": round(default[r["dataset"]]["nearest_right"], 3)
                         for r in both},
                      **{f"{r['dataset']}_nearest_right_distinct_ordered": round(r["nearest_right"], 3)
                         for r in both}}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
