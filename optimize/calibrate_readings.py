"""Fit the readings' confidence (glm_dspy/readings/confidence.py) on per-question records.

    python -m glm_dspy.bench.readings --dataset nobel --split train --db data/nobel --limit 80 \\
        --no-oracle --off confidence --out /tmp/fit/nobel.jsonl          # one per graph, not the dev sets
    python -m optimize.calibrate_readings /tmp/fit/nobel.jsonl /tmp/fit/verbs1.jsonl ... [--target 0.9]

Each record holds the best reading's features and whether its answer was right; records whose
answer was computed or yes/no (no features: sure by construction) are left out. At least two
files (two graphs) are required: a threshold fitted on one graph's questions fits that graph.
Writes glm_dspy/compiled/reading_confidence.json (or --out), with what it was fitted on and how
it does there; prints one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from glm_dspy.readings.confidence import DEFAULT_FILE, FEATURES, fit
from glm_dspy.optimize.fit_records import records_per_file


def _rows(path: Path) -> list[tuple[dict, bool]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            found = record.get("features") or {}
            if set(FEATURES) <= set(found):
                rows.append(({name: float(found[name]) for name in FEATURES}, bool(record["guess_right"])))
        except (ValueError, KeyError, TypeError) as error:
            sys.exit(f"{path}:{number}: not a record of python -m glm_dspy.bench.readings --out ({error})")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m optimize.calibrate_readings", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path, help="bench/readings --out files, one per graph")
    parser.add_argument("--target", type=float, default=0.9, help="the share of no-call answers to be right")
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--out", type=Path, default=DEFAULT_FILE)
    args = parser.parse_args(argv)
    per_file = records_per_file(args.records, _rows)
    rows = [row for found in per_file.values() for row in found]
    model, report = fit(rows, l2=args.l2, target=args.target)
    model = type(model)(model.weights, model.bias, model.threshold,
                        fitted_on="; ".join(f"{p} ({len(r)} answers, {sum(right for _, right in r)} right)"
                                            for p, r in per_file.items()))
    by_file = {}
    for path, found in per_file.items():
        kept = [right for features, right in found if model.sure(features)]
        by_file[path] = {"answers": len(found), "right": sum(right for _, right in found),
                         "answered": round(len(kept) / max(1, len(found)), 3),
                         "precision": round(sum(kept) / len(kept), 3) if kept else None}
    model.save(args.out, target=args.target, fitted=report, by_file=by_file,
               command="python -m optimize.calibrate_readings " + " ".join(map(str, args.records)))
    print(json.dumps({"out": str(args.out), "threshold": round(model.threshold, 4), **report, "by_file": by_file}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
