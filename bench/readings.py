"""The graph's readings of questions (issue 31): is the right reading among them, and which one
does each chooser take?

    python -m glm_dspy.bench.readings --questions $GLM_DATA_DIR/nobel/natural_dev.jsonl --db data/nobel
    python -m glm_dspy.bench.readings --dataset pathquestion:pql --db /tmp/pql --limit 150   # a fresh graph
    python -m glm_dspy.bench.readings --questions Q.jsonl --db DB --model qwen2.5-coder-0.5b  # + the model's pick
    python -m glm_dspy.bench.readings ... --quick     # the first 20 questions

For each question, `Discriminate.shown` (glm_dspy/modules/discriminate.py) gives the `k` best
fitting readings that read rows. Reported per question kind (the file's `kind`, or the tier):
  oracle@k  some reading shown reads exactly the gold answer (the ceiling of any chooser)
  nearest   the best fitting one does, or a yes/no question's join (GLM's readings: no LLM call)
  model     the readings' sure answer, else the model's pick among those shown does, as GLM
            (`Discriminate.choose_among`, GLM's adapter: one call; only with --model; each record
            gets the pick's probability, the records `python -m optimize.calibrate_pick` fits on;
            `--chooser judge`: one yes/no call for each of the first readings instead)
  none      no reading answers (GLM then runs Algorithm 1)
`--register` asks each question lower-cased or with one typo (bench/registers.py).
`--off LEVER` measures with one of Discriminate's levers off (ranked, likened, stated, yes/no, meets,
union, counted, absent, loops, compared, persons, meant, order, gate, voice, one, repeated, forms, detour,
which, passive, asked-end, referred, meet-order, types, time-said, absence, gaps, exists, inverse:
glm_dspy/modules/discriminate.py LEVERS).
Exact match as `glm-dspy eval` counts it, any gold or alternative. "answered right" is of the
questions the readings answer with no LLM call (sure, by glm_dspy/readings/confidence.py), the share
right; `--out` writes each question's answer, the best reading's guess, its confidence and its
features (the records `python -m optimize.calibrate_readings` fits on). Prints one table, then one
JSON line of the totals (with the p50 and p95 seconds a question, the readings alone).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

from glm_dspy.bench.registers import REGISTERS, in_register

ARMS = ("oracle@k", "nearest", "model", "none")


def _questions(args) -> list[tuple[str, str, list[str]]]:
    """(kind, question, golds) of each question, in file order (shuffled by --seed for --dataset)."""
    if args.questions:
        rows = []
        for number, line in enumerate(Path(args.questions).read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    record = json.loads(line)
                    rows.append((record.get("kind") or record.get("tier") or "all", record["question"],
                                 [record["answer"], *record.get("alternatives", [])]))
                except (json.JSONDecodeError, KeyError) as error:
                    sys.exit(f"{args.questions}:{number}: not a question record ({error})")
        return rows
    from glm_dspy.evaluation.evaluate import question_kind
    from glm_dspy.graphs.datasets import load_questions

    found = load_questions(args.dataset, args.db, split=args.split)
    random.Random(args.seed).shuffle(found)
    return [(q.tier or question_kind(q) or "all", q.question, list(q.golds)) for q in found]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m glm_dspy.bench.readings", description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--questions", help="JSON Lines: {question, answer[, alternatives, kind]}")
    source.add_argument("--dataset", help="a dataset of graphs/datasets.py (its questions, shuffled by --seed)")
    parser.add_argument("--split", default=None, help="with --dataset: dev, train or natural (default: all)")
    parser.add_argument("--db", required=True, help="the graph's database directory")
    parser.add_argument("--model", default=None, help="also let this model choose (one call a question)")
    parser.add_argument("--chooser", choices=("pick", "judge"), default="pick",
                        help="with --model: pick a reading by number (one call), or judge each of the first "
                             "yes or no (one call each; glm_dspy/modules/reading_judge.py)")
    parser.add_argument("--k", type=int, default=8, help="readings shown (default 8)")
    parser.add_argument("--limit", type=int, default=None, help="the first N questions")
    parser.add_argument("--quick", action="store_true", help="the first 20 questions")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-oracle", action="store_true",
                        help="only the answer of each question (no oracle@k: half the time)")
    parser.add_argument("--out", default=None, help="also write each question's answer here (JSON Lines)")
    parser.add_argument("--register", default="plain", choices=REGISTERS,
                        help="ask each question in this register (bench/registers.py): lower, typo")
    parser.add_argument("--also-as-typed", action="store_true",
                        help="where GLM restores a question's names (lever as-written), also answer it as typed: "
                             "both, side by side, in one run")
    parser.add_argument("--off", action="append", default=[], metavar="LEVER",
                        help="measure with this lever of Discriminate off (one of "
                             "glm_dspy.modules.discriminate.LEVERS); repeatable")
    args = parser.parse_args(argv)
    if not Path(args.db).is_dir():
        sys.exit(f"{args.db}: no database (glm-dspy build ... --db {args.db})")

    import dspy

    from glm_dspy.graph import open_graph
    from glm_dspy.evaluation.metrics import exact_match
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.prompts.adapter import GLMAdapter
    from glm_dspy.runs.steps import StepLog

    from glm_dspy.modules.discriminate import LEVERS

    if set(args.off) - LEVERS:
        sys.exit(f"--off: no lever {', '.join(sorted(set(args.off) - LEVERS))} (levers: {', '.join(sorted(LEVERS))})")
    rows = _questions(args)[: 20 if args.quick else args.limit]
    graph = open_graph(args.db)
    nearest = Discriminate(graph, k=args.k, levers=LEVERS - set(args.off))
    if args.model:
        from glm_dspy import configure

        configure(args.model)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    started = time.perf_counter()
    records, seconds_each = [], []
    restored: dict[str, int] = defaultdict(int)  # --also-as-typed: the question as typed and as written
    for kind, said, golds in rows:
        asked_at = time.perf_counter()
        typed = in_register(said, args.register)
        question = nearest.as_written(typed)  # as GLM reads it
        shown = [] if args.no_oracle else nearest.shown(question)
        right = [any(exact_match(", ".join(values), gold) for gold in golds) for _, values, _ in shown]
        judged = nearest.judge(question, StepLog())  # the first shown, or a yes/no question's answer
        found = (judged.answer, judged.cypher) if judged is not None and judged.sure else None
        seconds_each.append(time.perf_counter() - asked_at)
        correct = found is not None and any(exact_match(found[0], gold) for gold in golds)
        guessed = judged is not None and any(exact_match(judged.answer, gold) for gold in golds)
        if args.also_as_typed:
            as_typed = nearest.judge(typed, StepLog()) if typed != question else judged
            answered_typed = as_typed is not None and as_typed.sure
            restored["restored"] += typed != question
            restored["typed answered"] += answered_typed
            restored["typed right"] += answered_typed and any(exact_match(as_typed.answer, g) for g in golds)
            restored["written answered"] += found is not None
            restored["written right"] += correct
        record = {"kind": kind, "question": said, "asked": question, "golds": golds, "answer": found and found[0],
                  "right": correct, "guess": judged and judged.answer, "guess_right": guessed,
                  "probability": judged and judged.probability, "features": judged and judged.features,
                  "handed_on": found is None, **({} if args.no_oracle else {"oracle": any(right)})}
        records.append(record)
        for key in dict.fromkeys((kind, "all")):  # a question of no kind counts once
            counts[key]["n"] += 1
            counts[key]["oracle@k"] += any(right)
            counts[key]["nearest"] += correct
            counts[key]["none"] += found is None
        if args.model:  # as GLM: the readings' sure answer, else the model's pick among those shown
            picked = correct
            if found is None and judged is not None and judged.shown:
                with dspy.context(adapter=GLMAdapter()):
                    chosen = nearest.choose_among(question, judged, StepLog(), by=args.chooser)
                picked = chosen is not None and any(exact_match(chosen.answer, gold) for gold in golds)
                record.update(model_right=picked, picked=chosen is not None, pick=chosen and chosen.answer,
                              pick_is_best=chosen is not None and chosen.answer == judged.answer,
                              pick_probability=chosen and chosen.probability,
                              pick_sure=chosen is not None and chosen.sure)
            for key in dict.fromkeys((kind, "all")):  # a question of no kind counts once
                counts[key]["model"] += picked
    seconds = (time.perf_counter() - started) / max(1, len(rows))
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    arms = [arm for arm in ARMS if (arm != "model" or args.model) and (arm != "oracle@k" or not args.no_oracle)]
    # "answered right": of the questions the readings answer (no LLM call), the share right
    print(f"{'kind':<14}{'n':>5}" + "".join(f"{arm:>11}" for arm in arms) + f"{'answered right':>16}")
    for kind in sorted(counts, key=lambda k: (k == "all", k)):
        row = counts[kind]
        answered = row["n"] - row["none"]
        print(f"{kind:<14}{row['n']:>5}" + "".join(f"{row[arm] / row['n']:>11.3f}" for arm in arms)
              + f"{row['nearest'] / answered if answered else 0:>16.3f}")
    total = counts["all"]
    answered = total["n"] - total["none"]
    handed = [r for r in records if r["handed_on"]]
    if handed:  # what a chooser among the readings could do where the readings are not sure
        print(f"handed on {len(handed)}: the best reading right {sum(r['guess_right'] for r in handed)}"
              + ("" if args.no_oracle else f", some reading shown right {sum(r['oracle'] for r in handed)}")
              + (f", the model's pick right {sum(r.get('model_right', False) for r in handed)}"
                 f" (sure picks right / given: {sum(r.get('pick_sure', False) and r['model_right'] for r in handed)}"
                 f" / {sum(r.get('pick_sure', False) for r in handed)})" if args.model else ""))
    if args.also_as_typed:
        print(f"names restored in {restored['restored']} of {total['n']}; answered with no call, right / given: "
              f"as typed {restored['typed right']} / {restored['typed answered']}, "
              f"as written {restored['written right']} / {restored['written answered']}")
    print(json.dumps({"db": str(args.db), "n": total["n"], "k": args.k, "model": args.model,
                      **{arm: round(total[arm] / max(1, total["n"]), 4) for arm in arms},
                      "answered_right": round(total["nearest"] / answered, 4) if answered else None,
                      "handed_on": len(handed), "handed_on_guess_right": sum(r["guess_right"] for r in handed),
                      **({} if args.no_oracle else {"handed_on_oracle": sum(r["oracle"] for r in handed)}),
                      **({"handed_on_model_right": sum(r.get("model_right", False) for r in handed),
                          "sure_picks": sum(r.get("pick_sure", False) for r in handed),
                          "sure_picks_right": sum(r.get("pick_sure", False) and r["model_right"] for r in handed)}
                         if args.model else {}),
                      "off": sorted(args.off), "register": args.register, **({"as_typed": dict(restored)}
                                                                             if args.also_as_typed else {}),
                      "seconds_per_question": round(seconds, 2),
                      "p50_s": round(_quantile(seconds_each, 0.5), 2), "p95_s": round(_quantile(seconds_each, 0.95), 2)}))
    return 0


def _quantile(values: list[float], q: float) -> float:
    """The `q` quantile of `values` (nearest rank), 0 of none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


if __name__ == "__main__":
    sys.exit(main())
