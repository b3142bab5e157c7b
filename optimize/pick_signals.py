"""Does any signal the choosers give say when an answer to a handed-on question is right? The
records of `bench.readings --model M` (the pick by number) and `--chooser judge` of the same
questions, one pair of files a set, the pick's file first:

    python -m optimize.pick_signals /tmp/fit/verbs1.jsonl /tmp/fit/j_verbs1.jsonl /tmp/fit/world0.jsonl /tmp/fit/j_world0.jsonl ...

The class of questions served: every question the readings hand on, on any graph. A signal that
marks a share of them whose answer is right at 90% (the lower end of its one-sided 95% Wilson
interval) is one GLM could answer by; the table says, per signal, how many questions it marks and
how many of those each answer gets right: the best reading, the pick, the judge's pick. The
signals: the pick (or the judge) chose the best reading; the two chose the same reading; both
chose the best; the pick's probability (the judge's P(yes)) at or above its median over the set.
Prints one table and a last line of JSON.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

from glm_dspy.optimize.fit_records import records_per_file
from glm_dspy.readings.confidence import wilson_lower

TARGET, Z = 0.9, 1.645  # as calibrate_pick's: right at 90%, with one-sided 95% confidence


def _handed_on(path: Path) -> list[dict]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in rows if r.get("handed_on")]


def joined(paths: list[Path]) -> list[dict]:
    """The handed-on questions of each (pick, judge) pair of files, one row each."""
    if len(paths) % 2:
        sys.exit("give the files in pairs: each set's pick records, then its judge records")
    if len(paths) < 4:
        sys.exit("give the records of at least two sets (graphs): a signal read off one graph's questions fits that graph")
    records = records_per_file(paths, _handed_on)
    rows = []
    for picked, judged in zip(paths[::2], paths[1::2]):
        judge = {r["question"]: r for r in records[str(judged)]}
        for p in records[str(picked)]:
            j = judge.get(p["question"])
            if j is None:
                continue
            rows.append({"set": picked.stem, "best": bool(p["guess_right"]),
                         "pick": bool(p.get("model_right")), "judge": bool(j.get("model_right")),
                         "pick_best": bool(p.get("pick_is_best")), "judge_best": bool(j.get("pick_is_best")),
                         "agree": p.get("pick") is not None and p.get("pick") == j.get("pick"),
                         "pick_p": p.get("pick_probability") or 0.0, "judge_p": j.get("pick_probability") or 0.0})
    return rows


def signals(rows: list[dict]) -> dict[str, list[dict]]:
    pick_median = statistics.median(r["pick_p"] for r in rows) if rows else 0.0
    judge_median = statistics.median(r["judge_p"] for r in rows) if rows else 0.0
    return {"handed on": rows,
            "pick = best reading": [r for r in rows if r["pick_best"]],
            "judge = best reading": [r for r in rows if r["judge_best"]],
            "pick = judge": [r for r in rows if r["agree"]],
            "both = best reading": [r for r in rows if r["pick_best"] and r["judge_best"]],
            f"pick probability >= {pick_median:.2f}": [r for r in rows if r["pick_p"] >= pick_median],
            f"judge P(yes) >= {judge_median:.2f}": [r for r in rows if r["judge_p"] >= judge_median]}


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m optimize.pick_signals", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path, help="pairs: a set's pick records, then its judge records")
    args = parser.parse_args(argv)
    rows = joined(args.records)
    table = {}
    print(f"{'signal':28s} {'marks':>5s} {'best right':>10s} {'pick right':>10s} {'judge right':>11s}")
    for name, marked in signals(rows).items():
        n = len(marked)
        right = {a: sum(r[a] for r in marked) for a in ("best", "pick", "judge")}
        table[name] = {"marks": n, **right,
                       "trustworthy": any(n and wilson_lower(k / n, n, Z) >= TARGET for k in right.values())}
        print(f"{name:28s} {n:5d} {right['best']:10d} {right['pick']:10d} {right['judge']:11d}")
    found = [name for name, row in table.items() if row["trustworthy"]]
    print(f"signals whose marked answers are right at {TARGET:.0%} (95% lower bound): {', '.join(found) or 'none'}")
    result = {"questions": len(rows), "signals": table, "trustworthy": found}
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
