"""KV-cache policy benchmark: the four-tier policy vs vLLM's LRU, on the real engine and in the simulator.

    python -m glm_dspy.bench.cache --quick        # tiny random-weight model, 24 queries, a few minutes
    python -m glm_dspy.bench.cache                # 60 queries; --model qwen2.5-coder-0.5b for real compute

Workload (one seeded list of GLM agent calls, the same for every arm): queries over the Nobel
graph (`make graph`), `--in-flight` at a time on as many threads. Each query: Classify; a third
are deterministic (one Act); the others alternate Reason (stable prefix + notebook of real
vertex chunks, Zipf-drawn over nodes by degree, + question) and Act (stable prefix + missing
information) for 1-4 retrievals, then a last Reason. Prompts are the real GLM agent prompts
(GLMAdapter + demos + this graph's schema), sent with their tier hints and query ids; output
lengths are fixed (Classify 6, Reason 60, Act 90 tokens: the model's text is irrelevant).
The pool is small (`--blocks` of `--block-size` tokens), so the arms differ in what they keep.

Arms: the real engine with `policy="lru"` and with `policy="priority"` at each `--pinned-shares`
(tier-I share of the pool), each on a fresh engine `--repeats` times in rotating order; figures
are medians over repeats, the throughput ratio the median of within-repeat ratios; then the same calls' block trace (chain-hashed token ids, tiers from the hints) through the simulator under LRU,
tiered and Belady at several capacities, and the simulator's vertex-chunk vs fine-grained
retrieval comparison. Prints one table, then one JSON line of the headline figures.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from glm_dspy.backends.vllm_priority.tiered_queue import PINNED_SHARE

OUTPUT_TOKENS = {"classify": 6, "reason": 60, "act": 90}


@dataclass(slots=True)
class Call:
    query_id: str
    agent: str
    messages: list[dict]
    is_query_end: bool = False


def build_workload(graph, num_queries: int, seed: int) -> list[list[Call]]:
    """Per query, its agent calls in order (see the module doc)."""
    from glm_dspy.prompts.adapter import GLMAdapter
    from glm_dspy.modules.glm import GLM

    rng = random.Random(seed)
    program, adapter = GLM(graph, readings=False), GLMAdapter()  # the agents' calls
    rows = graph.store.query("MATCH (n:laureate) RETURN n.id AS id, n.name AS name, n.degree AS d ORDER BY d DESC, id")
    nodes = [(r["id"], r["name"]) for r in rows]
    weights = list(itertools.accumulate(1 / (rank + 1) ** 1.1 for rank in range(len(nodes))))
    chunks: dict[str, str] = {}

    def chunk(node_id: str) -> str:
        if node_id not in chunks:
            chunks[node_id] = graph.retriever.node_info(node_id)
        return chunks[node_id]

    def call(query_id, agent, inputs, end=False) -> Call:
        predict = {"classify": program.classify.predict, "reason": program.reason.predict,
                   "act": program.act.predict}[agent]
        signature = program.act.signature() if agent == "act" else predict.signature
        return Call(query_id, agent, adapter.format(signature, predict.demos, inputs), end)

    workload = []
    for q in range(num_queries):
        query_id = f"q{q}"
        first, second = rng.choices(nodes, cum_weights=weights, k=2)
        question = f"Which prizes, institutions and students do {first[1]} and {second[1]} have in common? (#{q})"
        calls = [call(query_id, "classify", {"question": question})]
        if rng.random() < 1 / 3:
            calls.append(call(query_id, "act", {"request": question, "previous_code": "", "error": ""}, True))
        else:
            notebook = []
            for _ in range(rng.randint(1, 4)):
                calls.append(call(query_id, "reason", {"notebook": "\n\n".join(notebook), "question": question}))
                node_id, name = rng.choices(nodes, cum_weights=weights)[0]
                request = f"everything about {name} (node {node_id}) for question #{q}"
                calls.append(call(query_id, "act", {"request": request, "previous_code": "", "error": ""}))
                notebook.append(chunk(node_id))
            calls.append(call(query_id, "reason", {"notebook": "\n\n".join(notebook), "question": question}, True))
        workload.append(calls)
    return workload


def run_engine(model: str, policy: str, workload: list[list[Call]], *, blocks: int, block_size: int,
               in_flight: int) -> dict:
    """Replay the workload on a fresh in-process engine; its call log (per query in call order) and wall time."""
    import dspy

    from glm_dspy.lm import make_lm, query_context
    from glm_dspy.lm.observe import observe_calls

    lm = make_lm(model, max_model_len=min(8192, (blocks - 1) * block_size), kv_cache_gib=1, cache=False, policy=policy, block_size=block_size,
                 num_gpu_blocks_override=blocks)

    def one_query(calls: list[Call]) -> None:
        # output lengths are fixed by design: a call stopping at max_tokens is expected, not warned about
        with dspy.context(lm=lm), query_context(calls[0].query_id), observe_calls(expect_truncation=True):
            for c in calls:
                lm(messages=c.messages, max_tokens=OUTPUT_TOKENS[c.agent], temperature=0.0)

    with observe_calls(expect_truncation=True):  # warm-up, outside any query; then a clean cache
        lm(messages=workload[0][0].messages, max_tokens=1)
    lm.engine.transport.scheduler.reset_prefix_cache()
    lm.engine.calls.clear()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=in_flight) as pool:
        list(pool.map(one_query, workload))
    wall = time.perf_counter() - started
    calls = list(lm.engine.calls)
    renderer = lm.engine.renderer
    lm.engine.close()
    return {"calls": calls, "wall_s": wall, "renderer": renderer}


def summarize(run: dict, num_queries: int) -> dict:
    calls = run["calls"]
    prompt = sum(c.num_prompt_tokens for c in calls)
    cached = sum(c.num_cached_tokens for c in calls)
    latency = np.array([c.latency_s for c in calls]) * 1000
    return {"hit_rate": cached / prompt, "prefill_tokens": prompt - cached, "prompt_tokens": prompt,
            "p50_ms": float(np.percentile(latency, 50)), "p95_ms": float(np.percentile(latency, 95)),
            "queries_per_s": num_queries / run["wall_s"], "calls": len(calls)}


def median_row(rows: list[dict]) -> dict:
    """Each figure's median over the repeats of one arm."""
    return {key: type(rows[0][key])(np.median([row[key] for row in rows])) for key in rows[0]}


def block_trace(workload: list[list[Call]], run: dict, block_size: int):
    """The simulator's trace of the calls in the order the engine started them."""
    from glm_dspy.backends.vllm_priority.hints import block_tiers
    from glm_dspy.backends.vllm_priority.simulator import Request

    by_query = {calls[0].query_id: iter(calls) for calls in workload}
    trace = []
    for record in sorted(run["calls"], key=lambda c: c.started_at):
        c = next(by_query[record.query_id])
        prompt = run["renderer"].render(c.messages)
        ids, num_full = list(prompt.token_ids), len(prompt.token_ids) // block_size
        blocks, parent = [], None
        for index, tier in enumerate(block_tiers(prompt.segments, block_size, 0, num_full)):
            parent = hash((parent, tuple(ids[index * block_size:(index + 1) * block_size])))
            blocks.append((parent, tier))
        generated = (len(ids) + OUTPUT_TOKENS[c.agent]) // block_size - num_full
        trace.append(Request(c.query_id, tuple(blocks), generated, c.is_query_end))
    return trace


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="24 queries on the tiny random-weight model")
    parser.add_argument("--queries", type=int, default=None, help="default 60, --quick 24")
    parser.add_argument("--model", default=None, help="default: the tiny random-weight model (bench/tiny_model.py)")
    parser.add_argument("--db", type=Path, default=Path("data/nobel"))
    parser.add_argument("--blocks", type=int, default=160, help="KV-cache pool size in blocks")
    parser.add_argument("--block-size", type=int, default=32)
    parser.add_argument("--in-flight", type=int, default=6)
    parser.add_argument("--repeats", type=int, default=3, help="runs per arm, in rotating order (median counts)")
    parser.add_argument("--pinned-shares", type=lambda text: [float(x) for x in text.split(",")], default=[PINNED_SHARE],
                        help="priority arms by tier-I pinned share of the pool, comma-separated; the first is the "
                             f"headline arm (default {PINNED_SHARE:g}, the engine default)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    num_queries = args.queries or (24 if args.quick else 60)

    from platformdirs import user_cache_dir

    from glm_dspy.backends.vllm_priority.scheduler import PINNED_SHARE_ENV
    from glm_dspy.backends.vllm_priority.simulator import POLICIES, simulate, synthetic_glm_trace
    from glm_dspy.graph import open_graph

    if not (args.db / "meta.json").exists():
        raise SystemExit(f"no graph at {args.db}: run `make graph` (or glm-dspy build nobel --db {args.db})")
    model = args.model
    if model is None:
        from glm_dspy.bench.tiny_model import build_tiny_model

        model = str(build_tiny_model(Path(user_cache_dir("glm-dspy")) / "tiny-qwen2"))
    with open_graph(args.db) as graph:
        workload = build_workload(graph, num_queries, args.seed)
    # Each repeat runs every arm once on a fresh engine, the order rotating between repeats; the
    # throughput ratio is the median over repeats of priority/LRU within the repeat, so the slow
    # drifts of a shared machine (and the first engine's warm-up) cancel instead of picking a winner.
    arms = ["lru", *(f"priority@{share:g}" for share in args.pinned_shares)]
    samples: dict[str, list[tuple[dict, dict]]] = {arm: [] for arm in arms}
    for repeat in range(args.repeats):
        for arm in arms[repeat % len(arms):] + arms[:repeat % len(arms)]:
            policy, _, share = arm.partition("@")
            os.environ[PINNED_SHARE_ENV] = share or "0"  # read by the in-process engine's scheduler
            run = run_engine(model, policy, workload, blocks=args.blocks, block_size=args.block_size,
                             in_flight=args.in_flight)
            samples[arm].append((run, summarize(run, num_queries)))
    rows = {arm: median_row([row for _, row in runs]) for arm, runs in samples.items()}
    ratios = {arm: float(np.median([p["queries_per_s"] / l["queries_per_s"]
                                    for (_, p), (_, l) in zip(samples[arm], samples["lru"])])) for arm in arms}
    default_arm = f"priority@{args.pinned_shares[0]:g}"

    trace = block_trace(workload, samples[default_arm][0][0], args.block_size)
    capacities = sorted({args.blocks // 2, args.blocks, args.blocks * 2})
    largest = max(len(r.blocks) + r.num_generated_blocks for r in trace)
    capacities = [c for c in capacities if c >= largest]
    simulated = {c: {p: simulate(trace, c, p) for p in POLICIES} for c in capacities}
    chunks = {kind: synthetic_glm_trace(80, block_size=args.block_size, seed=args.seed,
                                        is_fine_grained=kind == "fine_grained") for kind in ("vertex", "fine_grained")}
    retrieval = {kind: simulate(t, args.blocks, "tiered").hit_rate for kind, t in chunks.items()}

    print(f"\ncache bench: {num_queries} GLM queries ({sum(map(len, workload))} calls), {args.in_flight} in flight, "
          f"pool {args.blocks} x {args.block_size} tokens, model {Path(model).name}")
    print(f"{'arm':<34}{'hit rate':>9}{'prefill tok':>12}{'p50 ms':>9}{'p95 ms':>9}{'queries/s':>10}{'vs LRU':>8}")
    for arm, row in rows.items():
        name = "engine lru" if arm == "lru" else f"engine priority, pinned {arm.partition('@')[2]}"
        print(f"{name:<34}{row['hit_rate']:>9.3f}{row['prefill_tokens']:>12,}{row['p50_ms']:>9.0f}"
              f"{row['p95_ms']:>9.0f}{row['queries_per_s']:>10.3f}{ratios[arm]:>8.3f}")
    for capacity, results in simulated.items():
        for policy, result in results.items():
            print(f"{f'simulator {policy} @ {capacity} blocks':<34}{result.hit_rate:>9.3f}")
    for kind, rate in retrieval.items():
        print(f"{f'simulator tiered, {kind} retrieval':<34}{rate:>9.3f}")
    at = simulated.get(args.blocks) or next(iter(simulated.values()))
    headline = {"lru_hit_rate": round(rows["lru"]["hit_rate"], 4), "priority_hit_rate": round(rows[default_arm]["hit_rate"], 4),
                "opt_hit_rate": round(at["belady"].hit_rate, 4),
                "sim_lru_hit_rate": round(at["lru"].hit_rate, 4), "sim_priority_hit_rate": round(at["tiered"].hit_rate, 4),
                "throughput_ratio": round(ratios[default_arm], 4),
                "prefill_ratio": round(rows[default_arm]["prefill_tokens"] / max(rows["lru"]["prefill_tokens"], 1), 4),
                "vertex_vs_fine_grained_points": round(100 * (retrieval["vertex"] - retrieval["fine_grained"]), 2),
                "pinned_share": args.pinned_shares[0], "repeats": args.repeats, "blocks": args.blocks, "block_size": args.block_size, "queries": num_queries, "model": Path(model).name}
    print(json.dumps(headline))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
