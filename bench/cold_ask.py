"""A cold process asking one question, with the engine started before it (as `ask` did until the
engine was made lazy) and on the first LLM call (today): wall time and peak memory of the process
tree, for a question the readings answer (no LLM call) and one the model answers. The "first"
arm is lazy on a machine where no process has stored the graph's vectors yet (an empty
GLM_DSPY_VECTORS: glm_dspy/modules/stored_vectors.py), so it embeds the example bank.

    python -m glm_dspy.bench.cold_ask                # data/nobel, 2 runs per arm and question
    python -m glm_dspy.bench.cold_ask --quick        # 1 run each
    python -m glm_dspy.bench.cold_ask --db DB --reading-question Q --model-question Q

Each run is a fresh interpreter (imports, graph, tokenizer, and the engine where it starts),
exactly what `glm-dspy ask` does; memory is sampled every 50 ms over the interpreter and its
children (vLLM's engine core). The same arms, questions and machine in one run; the ratios are the
figures to read. Prints one table, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

READING_QUESTION = "In which year did Marie Curie receive the Nobel Prize in Physics?"
MODEL_QUESTION = "When did Niels Bohr die?"
ASK = """
import sys
from glm_dspy.configuration import configure
from glm_dspy.graph import open_graph
from glm_dspy.modules.glm import GLM
lm = configure(None)
if sys.argv[1] == "eager":  # "lazy" and "first" leave the engine to the first LLM call
    lm.engine.transport.warm()
with open_graph(sys.argv[2]) as graph:
    prediction = GLM(graph)(question=sys.argv[3])
print("ANSWER", prediction.answer, "CALLS", prediction.num_calls, flush=True)
"""


def tree_rss_bytes(process: psutil.Process) -> int:
    total = 0
    for member in [process, *process.children(recursive=True)]:
        try:
            total += member.memory_info().rss
        except psutil.Error:
            pass
    return total


def one_run(arm: str, db: Path, question: str) -> dict:
    environ = dict(os.environ)
    nothing_stored = tempfile.TemporaryDirectory(prefix="cold-ask-vectors-")
    if arm == "first":
        environ["GLM_DSPY_VECTORS"] = nothing_stored.name
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", ASK, arm, str(db), question], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True, env=environ)
    watched, peak = psutil.Process(child.pid), 0
    while child.poll() is None:
        try:
            peak = max(peak, tree_rss_bytes(watched))
        except psutil.Error:
            pass
        time.sleep(0.05)
    wall_s = time.perf_counter() - started
    output = child.stdout.read()
    nothing_stored.cleanup()
    said = next((line for line in output.splitlines() if line.startswith("ANSWER")), "ANSWER ? CALLS ?")
    return {"arm": arm, "wall_s": wall_s, "peak_mb": peak / 2**20, "said": said, "ok": child.returncode == 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--quick", action="store_true", help="one run per arm and question")
    parser.add_argument("--reading-question", default=READING_QUESTION)
    parser.add_argument("--model-question", default=MODEL_QUESTION)
    args = parser.parse_args()
    num_runs = 1 if args.quick else 2
    rows = []
    for kind, question in (("reading", args.reading_question), ("model", args.model_question)):
        for arm in ("eager", "lazy") + (("first",) if kind == "reading" else ()):
            runs = [one_run(arm, args.db, question) for _ in range(num_runs)]
            rows.append({"question": kind, "arm": arm, "wall_s": statistics.median(r["wall_s"] for r in runs),
                         "peak_mb": max(r["peak_mb"] for r in runs), "said": runs[-1]["said"],
                         "ok": all(r["ok"] for r in runs)})
    print(f"{'question':9} {'engine':7} {'wall s':>7} {'peak MB':>8} {'ok':>3}  answer")
    for row in rows:
        print(f"{row['question']:9} {row['arm']:7} {row['wall_s']:7.1f} {row['peak_mb']:8.0f} {str(row['ok']):>5}  "
              f"{row['said']}")
    by = {(r["question"], r["arm"]): r for r in rows}
    ratios = {kind: {"wall": by[(kind, "lazy")]["wall_s"] / by[(kind, "eager")]["wall_s"],
                     "memory": by[(kind, "lazy")]["peak_mb"] / by[(kind, "eager")]["peak_mb"]}
              for kind in ("reading", "model")}
    ratios["reading"]["first_wall"] = by[("reading", "first")]["wall_s"] / by[("reading", "eager")]["wall_s"]
    for kind, ratio in ratios.items():
        print(f"{kind}-answered, lazy / eager: wall {ratio['wall']:.2f}, peak memory {ratio['memory']:.2f}"
              + (f"; the first process on the machine / eager: wall {ratio['first_wall']:.2f}"
                 if "first_wall" in ratio else ""))
    print(json.dumps({"runs_per_arm": num_runs, "rows": rows, "ratios": ratios}))


if __name__ == "__main__":
    main()
