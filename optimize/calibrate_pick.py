"""Fit the threshold of the model's pick among the readings (glm_dspy/readings/pick_confidence.py).

    python -m glm_dspy.bench.readings --questions Q1 --db DB1 --model qwen2.5-coder-0.5b --no-oracle --out /tmp/fit/a.jsonl
    python -m optimize.calibrate_pick /tmp/fit/a.jsonl /tmp/fit/b.jsonl ... --model qwen2.5-coder-0.5b [--target 0.9]
        [--chooser judge]   # records of bench.readings --chooser judge

Each record of a question the readings handed on and the model picked a reading for holds the
pick's probability and whether its answer was right. At least two files (two graphs) are
required, none of them a set the threshold is then measured on. The threshold is the lowest
probability at which the picks at or above it were right at `--target`, the lower end of their
share's one-sided 95% interval (a few right picks at the top do not set it); where none is, no
pick is given (every one says "not sure"). Writes the model's entry of
glm_dspy/compiled/pick_confidence.json (or --out); prints one line of JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from glm_dspy.readings.confidence import lowest_threshold
from glm_dspy.readings.pick_confidence import DEFAULT_FILE, JUDGE, PICK, key, save_threshold
from glm_dspy.optimize.fit_records import records_per_file

Z = 1.645  # the picks kept are right at the target with one-sided 95% confidence (Wilson), not by luck of a few


def _rows(path: Path) -> list[tuple[float, bool]]:
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            if record.get("picked") and record.get("pick_probability") is not None:
                rows.append((float(record["pick_probability"]), bool(record["model_right"])))
        except (ValueError, KeyError, TypeError) as error:
            sys.exit(f"{path}:{number}: not a record of python -m glm_dspy.bench.readings --model --out ({error})")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m optimize.calibrate_pick", description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", type=Path, help="bench/readings --model --out files, one per graph")
    parser.add_argument("--model", required=True, help="the model the picks were made by (its registered name)")
    parser.add_argument("--chooser", choices=(PICK, JUDGE), default=PICK,
                        help="the chooser the records were made with (bench.readings --chooser)")
    parser.add_argument("--target", type=float, default=0.9, help="the share of given picks to be right")
    parser.add_argument("--out", type=Path, default=DEFAULT_FILE)
    args = parser.parse_args(argv)
    per_file = records_per_file(args.records, _rows)
    rows = [row for found in per_file.values() for row in found]
    if not rows:
        sys.exit("no record holds a pick with its probability: run bench.readings with --model on GLM's engine")
    threshold, report = lowest_threshold([p for p, _ in rows], [right for _, right in rows], args.target, z=Z)
    by_file = {}
    for path, found in per_file.items():
        kept = [right for probability, right in found if probability >= threshold]
        by_file[path] = {"picks": len(found), "right": sum(right for _, right in found),
                         "given": len(kept), "given_right": sum(kept)}
    save_threshold(args.model, threshold, args.out, chooser=args.chooser, target=args.target, fitted=report, by_file=by_file,
                   fitted_on="; ".join(f"{p} ({len(r)} picks, {sum(right for _, right in r)} right)"
                                       for p, r in per_file.items()),
                   command=f"python -m optimize.calibrate_pick {' '.join(map(str, args.records))} --model {args.model}"
                           f" --chooser {args.chooser}")
    print(json.dumps({"out": str(args.out), "model": key(args.model, args.chooser), "threshold": round(threshold, 4), **report,
                      "by_file": by_file}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
