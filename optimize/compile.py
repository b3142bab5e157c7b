"""Compile the GLM program's agents with a DSPy optimizer: bootstrapped few-shot demos.

    python -m optimize.compile --dataset nobel --db data/nobel --train 16 --out optimize/compiled/glm-nobel.json
    python -m optimize.compile --dataset synthetic --db data/syn10k --train 32
    python -m optimize.compile --questions my-questions.jsonl --db data/kb --train 16

`BootstrapFewShot` runs GLM on training questions and keeps, for each agent (Classify,
Reason, Act), the calls of the runs whose answer was right (exact match): those become the
agent's demos, after the hand-written ones (glm_dspy/fewshot.py). No labeled demos are added:
a bare question/answer pair fits none of the three agents' signatures. The questions are
shuffled by `--seed`; the first `--train` are the training set, and their ids are saved
next to the program, so an eval can leave them out. Load the result with
`GLM(graph).load(path)`.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import dspy

from glm_dspy.metrics import exact_match


def metric(example: dspy.Example, prediction: dspy.Prediction, trace=None) -> bool:
    return bool(prediction.answer) and exact_match(prediction.answer, example.answer)


def compile_glm(program, trainset: list[dspy.Example], *, max_demos: int = 2) -> dspy.Module:
    """`program` with bootstrapped demos appended to each agent's hand-written ones."""
    from dspy.teleprompt import BootstrapFewShot

    optimizer = BootstrapFewShot(metric=metric, max_bootstrapped_demos=max_demos, max_labeled_demos=0,
                                 max_rounds=1)
    compiled = optimizer.compile(program.deepcopy(), trainset=trainset)
    for (name, before), (_, after) in zip(program.named_predictors(), compiled.named_predictors()):
        hand = list(before.demos)
        after.demos = hand + [d for d in after.demos if d not in hand]
    return compiled


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    asked = parser.add_mutually_exclusive_group()
    asked.add_argument("--dataset", default="nobel", help="a dataset name (graphs.datasets)")
    asked.add_argument("--questions", type=Path, default=None, help="a question file (graphs.questions JSON Lines)")
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--train", type=int, default=16, help="training questions")
    parser.add_argument("--max-demos", type=int, default=2, help="bootstrapped demos per agent")
    parser.add_argument("--model", default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="default optimize/compiled/glm-<dataset name or question file stem>.json")
    args = parser.parse_args(argv)

    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM
    from graphs.datasets import load_questions
    from graphs.questions import read_questions

    questions = read_questions(args.questions) if args.questions else load_questions(args.dataset, args.db)
    random.Random(args.seed).shuffle(questions)
    train = questions[: args.train]
    trainset = [dspy.Example(question=q.question, answer=q.answer).with_inputs("question") for q in train]
    label = args.questions.stem if args.questions else args.dataset.split(":")[0]
    out = args.out or Path(__file__).parent / "compiled" / f"glm-{label}.json"
    configure(args.model)
    with open_graph(args.db) as graph:
        compiled = compile_glm(GLM(graph), trainset, max_demos=args.max_demos)
        out.parent.mkdir(parents=True, exist_ok=True)
        compiled.save(str(out))
    out.with_suffix(".train.json").write_text(json.dumps({"dataset": str(args.questions or args.dataset),
                                                          "seed": args.seed, "train_qids": [q.qid for q in train]},
                                                         indent=1))
    counts = {name: len(p.demos) for name, p in compiled.named_predictors()}
    print(json.dumps({"out": str(out), "demos": counts, "train": len(train)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
