"""Pipelined retrieval and many questions at once: latency and throughput of GLM on the real model.

    python -m glm_dspy.bench.pipeline --quick     # 8 Nobel dev questions; concurrency 1, 4; a few minutes
    python -m glm_dspy.bench.pipeline             # 32 questions; concurrency 1, 4, 16
    python -m glm_dspy.bench.pipeline --db data/big --dataset synthetic   # a graph where RetrieveNode is slow

Arms, all on the same questions, in one run:
  pipelining on / off   GLM(pipelined=...) at concurrency 1 on the priority engine, question by
                        question in alternating order: latency per question p50/p95, RetrieveNode
                        time (every index search, timed) and the share of it hidden under Act's
                        decoding, the RetrieveNode cache hit rate
  throughput            GLM.batch at each concurrency, on the priority engine and on stock
                        vLLM's LRU eviction (a second engine, started after the first is closed):
                        questions/s and LLM calls/s, each with its ratio to concurrency 1
                        (batched decoding changes the numerics, so a question can take another
                        path at another concurrency: calls/s compares the engine on what it ran)
GLM runs greedy (samples=0) with its Python Act (act="python": pipelining prefetches the
RetrieveNode calls of snippets) so that every arm does the same work; DSPy's response cache is
off; the RetrieveNode cache is emptied before each arm, and a warm-up question runs first on
each engine. The machine is shared and noisy: compare ratios within one run, and run nothing
else meanwhile (a test suite beside it halves a throughput arm).
Prints one table, then one JSON line with `latency_reduction` (1 - p50 on / p50 off),
`throughput_by_concurrency` (questions/s) and `calls_per_s_by_concurrency`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import threading
import time
from pathlib import Path


class SearchTimer:
    """Times every node-index search (prefetched or not) while installed."""

    def __init__(self, node_index):
        self.node_index = node_index
        self.seconds = 0.0
        self.count = 0
        self._lock = threading.Lock()
        self._search = node_index.search

    def __enter__(self):
        def timed(*args, **kwargs):
            started = time.perf_counter()
            try:
                return self._search(*args, **kwargs)
            finally:
                with self._lock:
                    self.seconds += time.perf_counter() - started
                    self.count += 1
        self.node_index.search = timed
        return self

    def __exit__(self, *exc):
        self.node_index.search = self._search


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def latency_arms(graph, questions: list[str]) -> dict[str, dict]:
    """Pipelining on and off, question by question, in alternating order (on-off, off-on, ...), so
    the engine's warm prefix cache and the machine's drift favour neither arm."""
    from glm_dspy.modules.glm import GLM

    arms = {"on": GLM(graph, compiled=None, samples=0, act="python", pipelined=True),
            "off": GLM(graph, compiled=None, samples=0, act="python", pipelined=False)}
    cache = graph.retriever.retrieve_cache
    found = {name: {"latencies": [], "hidden": 0.0, "prefetched": 0, "retrieval_s": 0.0, "searches": 0,
                    "hits": 0, "lookups": 0} for name in arms}
    for i, question in enumerate(questions):
        for name in (("on", "off") if i % 2 == 0 else ("off", "on")):
            cache._items.clear()  # each arm looks every text up itself
            hits, misses = cache.hits, cache.misses
            with SearchTimer(graph.retriever.node_index) as timer:
                started = time.perf_counter()
                prediction = arms[name](question=question)
                elapsed = time.perf_counter() - started
            arm = found[name]
            arm["latencies"].append(elapsed)
            arm["retrieval_s"] += timer.seconds
            arm["searches"] += timer.count
            arm["hits"] += cache.hits - hits
            arm["lookups"] += (cache.hits - hits) + (cache.misses - misses)
            for step in prediction.steps:
                arm["hidden"] += step.get("prefetch_hidden_s") or 0.0
                arm["prefetched"] += step.get("prefetched") or 0
    return {name: {"p50_s": statistics.median(a["latencies"]), "p95_s": percentile(a["latencies"], 0.95),
                   "retrieval_s": a["retrieval_s"], "searches": a["searches"], "hidden_s": a["hidden"],
                   "prefetched": a["prefetched"], "hidden_share": a["hidden"] / a["retrieval_s"] if a["retrieval_s"] else 0.0,
                   "cache_hit_rate": a["hits"] / a["lookups"] if a["lookups"] else 0.0}
            for name, a in found.items()}


def throughput_arm(graph, questions: list[str], concurrency: int) -> dict:
    from glm_dspy.modules.glm import GLM

    program = GLM(graph, compiled=None, samples=0, act="python",
                  executor=graph.executor(num_workers=max(2, concurrency)))
    graph.retriever.retrieve_cache._items.clear()
    started = time.perf_counter()
    predictions = program.batch(questions, concurrency=concurrency)
    elapsed = time.perf_counter() - started
    # batched decoding changes the numerics, so a question may take another path (more or fewer
    # calls) at another concurrency: LLM calls/s is the engine's throughput on that same workload
    num_calls = sum(p.num_calls for p in predictions)
    return {"qps": len(questions) / elapsed, "calls_per_s": num_calls / elapsed, "calls": num_calls}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="8 questions, concurrency 1 and 4")
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--dataset", default="nobel", help="whose dev split the questions come from")
    parser.add_argument("--questions", type=int, default=None, help="default 8 (--quick) or 32")
    parser.add_argument("--concurrency", default=None, help="comma-separated; default 1,4 (--quick) or 1,4,16")
    parser.add_argument("--model", default=None, help="default: the default local model")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if not (args.db / "meta.json").exists():
        raise SystemExit(f"no graph at {args.db}: run `make graph` (or glm-dspy build {args.dataset} --db {args.db})")
    levels = [int(c) for c in (args.concurrency or ("1,4" if args.quick else "1,4,16")).split(",")]
    num_questions = args.questions or (8 if args.quick else 32)

    import dspy

    from glm_dspy.graph import open_graph
    from glm_dspy.lm.factory import make_lm
    from glm_dspy.graphs.datasets import load_questions

    questions = load_questions(args.dataset, args.db, split="dev")
    random.Random(args.seed).shuffle(questions)
    asked = [q.question for q in questions[:num_questions]]
    warm_up = questions[num_questions].question
    results: dict = {"latency": {}, "throughput": {}}
    with open_graph(args.db) as graph:
        for policy in ("priority", "lru"):
            lm = make_lm(args.model, policy=policy, cache=False)
            try:
                with dspy.context(lm=lm):
                    from glm_dspy.modules.glm import GLM

                    GLM(graph, compiled=None, samples=0, act="python")(question=warm_up)
                    if policy == "priority":
                        results["latency"] = latency_arms(graph, asked)
                    results["throughput"][policy] = {c: throughput_arm(graph, asked, c) for c in levels}
            finally:
                lm.engine.close()
    on, off = results["latency"]["on"], results["latency"]["off"]
    print(f"GLM on {args.db} ({args.dataset} dev), {num_questions} questions, greedy\n")
    print("| arm | p50 s | p95 s | RetrieveNode s (searches) | hidden under decoding | RetrieveNode cache hits |")
    print("|---|---|---|---|---|---|")
    for name, arm in (("pipelining on", on), ("pipelining off", off)):
        print(f"| {name} | {arm['p50_s']:.2f} | {arm['p95_s']:.2f} | {arm['retrieval_s']:.3f} ({arm['searches']}) | "
              f"{arm['hidden_share']:.0%} ({arm['prefetched']} prefetched) | {arm['cache_hit_rate']:.0%} |")
    print("\n| engine | " + " | ".join(f"concurrency {c}: q/s (x c=1) | LLM calls/s (x c=1)" for c in levels) + " |")
    print("|---|" + "---|---|" * len(levels))
    for policy, by_level in results["throughput"].items():
        base = by_level[levels[0]]
        print(f"| {policy} | " + " | ".join(
            f"{by_level[c]['qps']:.3f} ({by_level[c]['qps'] / base['qps']:.2f}x) | "
            f"{by_level[c]['calls_per_s']:.3f} ({by_level[c]['calls_per_s'] / base['calls_per_s']:.2f}x, "
            f"{by_level[c]['calls']} calls)" for c in levels) + " |")
    headline = {"latency_reduction": round(1 - on["p50_s"] / off["p50_s"], 4),
                "hidden_share": round(on["hidden_share"], 4),
                "throughput_by_concurrency": {policy: {str(c): round(v["qps"], 4) for c, v in by_level.items()}
                                              for policy, by_level in results["throughput"].items()},
                "calls_per_s_by_concurrency": {policy: {str(c): round(v["calls_per_s"], 4) for c, v in by_level.items()}
                                               for policy, by_level in results["throughput"].items()},
                "num_questions": num_questions}
    print(json.dumps(headline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
