"""Graph-store benchmark: bulk load, the graph functions, and RetrieveNode at scale.

    python -m glm_dspy.bench.graph              # synthetic graph, 1M nodes / >= 5M edges
    python -m glm_dspy.bench.graph --quick      # 50k nodes, a few minutes
    python -m glm_dspy.bench.graph --nodes 200k --queries 500
    python -m glm_dspy.bench.graph --retrieve-nodes 200k   # 1M-node graph, RetrieveNode on a 200k-node one

Arms, all on the same seeded synthetic graph in one run:
  load            generate + `load_graph` in a child process (peak RSS is that child's)
  NodeInfo, NodeFeature, NeighbourCheck   p50/p95 over the same random node ids
  RetrieveNode    the index `glm-dspy build` would pick (IVF+SQ8 above 300k nodes; forced
                  to IVF on smaller graphs so the comparison means something) vs exact search:
                  recall@1 against exact, search-only p50, end-to-end p50 (embed + search)
Targets (issue 2): load <= 30 s and <= 4 GB; graph functions p50 <= 3 ms; RetrieveNode
p50 <= 5 ms and recall@1 >= 0.95. Embeddings are cached under the user cache dir, so a
second run skips the (slow, CPU) embedding of every node text.
Prints one table, then one JSON line of the headline figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from glm_dspy.graphs.datasets import parse_size


def _child_load(num_nodes: int, seed: int, db_dir: str) -> None:
    """Runs in a fresh process: generate, load, print timings and this process's peak RSS."""
    from glm_dspy.graphs.load import load_graph
    from glm_dspy.graphs.synthetic import generate

    started = time.perf_counter()
    graph = generate(num_nodes, seed=seed)
    generated = time.perf_counter()
    report = load_graph(graph, db_dir, name="synthetic")
    print(json.dumps({"generate_s": generated - started, "load_s": report.seconds, "num_nodes": report.num_nodes,
                      "num_edges": report.num_edges,
                      "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2}))


def percentiles(samples: list[float]) -> tuple[float, float]:
    values = np.array(samples) * 1000
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def time_calls(fn, args_list) -> list[float]:
    for args in args_list[:20]:  # warm-up
        fn(*args)
    samples = []
    for args in args_list:
        started = time.perf_counter()
        fn(*args)
        samples.append(time.perf_counter() - started)
    return samples


def sample_nodes(store, num: int, rng) -> list[tuple[str, str]]:
    """(type, id) pairs drawn uniformly over all nodes with at least one edge."""
    picked = []
    for type_name, node_type in store.schema.node_types.items():
        share = max(1, round(num * node_type.num_nodes / sum(t.num_nodes for t in store.schema.node_types.values())))
        rows = store.query(f"MATCH (n:{type_name}) WHERE n.degree > 0 RETURN n.id AS id")
        ids = [r["id"] for r in rows]
        picked += [(type_name, ids[i]) for i in rng.choice(len(ids), size=min(share, len(ids)), replace=False)]
    rng.shuffle(picked)
    return picked[:num]


def node_vectors(texts: list[str], embedder, cache_key: str) -> np.ndarray:
    """Every node text's embedding, cached under the user cache dir.

    Embedding 1M texts on 2 CPU cores takes about an hour, so the work is saved chunk by chunk
    (`<key>.parts/`): an interrupted run resumes where it stopped.
    """
    from platformdirs import user_cache_dir

    cache = Path(os.environ.get("GLM_DSPY_CACHE", user_cache_dir("glm-dspy"))) / "bench" / f"{cache_key}.npy"
    if cache.exists():
        vectors = np.load(cache)
        if len(vectors) == len(texts):
            return vectors
    from rich.progress import Progress

    parts = cache.with_suffix(".parts")
    parts.mkdir(parents=True, exist_ok=True)
    chunk = 8192
    chunks = []
    with Progress() as bar:
        task = bar.add_task(f"embedding {len(texts):,} node texts", total=len(texts))
        for start in range(0, len(texts), chunk):
            part = parts / f"{start:09d}.npy"
            if part.exists():
                chunks.append(np.load(part))
            else:
                chunks.append(embedder.encode(texts[start:start + chunk]))
                np.save(part.with_suffix(".tmp.npy"), chunks[-1])
                part.with_suffix(".tmp.npy").rename(part)
            bar.advance(task, len(chunks[-1]))
    vectors = np.concatenate(chunks)
    np.save(cache, vectors)
    for part in parts.iterdir():
        part.unlink()
    parts.rmdir()
    return vectors


def embed_nodes(num_nodes: int, seed: int):
    from glm_dspy.graphs.build import node_texts
    from glm_dspy.graphs.node_index import default_embedder
    from glm_dspy.graphs.synthetic import generate

    embedder = default_embedder()
    pairs = list(node_texts(generate(num_nodes, seed=seed)))
    ids = np.array([i for i, _ in pairs])
    texts = [t for _, t in pairs]
    return embedder, ids, texts, node_vectors(texts, embedder, f"synthetic-{num_nodes}-{seed}-{embedder.name}")


def bench_retrieve_node(num_nodes: int, seed: int, num_queries: int, force_ivf: bool, rng) -> dict:
    import faiss

    from glm_dspy.graphs.node_index import EXACT_LIMIT, IndexInfo, NodeIndex, build_faiss

    embedder, ids, texts, vectors = embed_nodes(num_nodes, seed)
    exact_limit = num_nodes // 10 if force_ivf else EXACT_LIMIT
    started = time.perf_counter()
    approximate, kind = build_faiss(vectors, exact_limit=exact_limit)
    build_s = time.perf_counter() - started
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(vectors)
    index = NodeIndex(approximate, ids, IndexInfo(embedder.name, embedder.dim, kind, len(ids)), embedder)

    # queries: node names as a user would type them (lower case), embedded fresh each time
    query_texts = [texts[i].lower() for i in rng.choice(len(texts), size=num_queries, replace=False)]
    query_vectors = embedder.encode(query_texts)
    _, truth = exact.search(query_vectors, 1)
    _, found = approximate.search(query_vectors, 1)
    recall = float(np.mean(truth[:, 0] == found[:, 0]))
    search_samples = time_calls(lambda v: approximate.search(v, 1), [(query_vectors[i:i + 1],) for i in range(num_queries)])
    end_to_end = time_calls(lambda t: index.search(t, 1), [(t + " ",) for t in query_texts])
    return {"kind": kind, "build_s": build_s, "recall_at_1": recall, "search": percentiles(search_samples),
            "end_to_end": percentiles(end_to_end)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="50k nodes")
    parser.add_argument("--nodes", type=parse_size, default=None)
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--retrieve-nodes", type=parse_size, default=None,
                        help="graph size for the RetrieveNode arm (default: --nodes); embedding every node "
                             "text on 2 CPU cores takes ~1 h at 1M nodes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--embed-only", action="store_true",
                        help="only compute and cache the RetrieveNode arm's node embeddings (resumable)")
    parser.add_argument("--child-load", nargs=2, metavar=("NODES", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_load:
        _child_load(int(args.child_load[0]), args.seed, args.child_load[1])
        return 0
    num_nodes = args.nodes or (50_000 if args.quick else 1_000_000)
    rng = np.random.default_rng(args.seed)
    if args.embed_only:
        embed_nodes(args.retrieve_nodes or num_nodes, args.seed)
        return 0

    from glm_dspy.retrieval.retriever import Retriever
    from glm_dspy.graphs.store import GraphStore

    with tempfile.TemporaryDirectory(prefix="bench-graph-") as tmp:
        db_dir = Path(tmp) / "db"
        out = subprocess.run([sys.executable, "-m", "glm_dspy.bench.graph", "--seed", str(args.seed), "--child-load",
                              str(num_nodes), str(db_dir)], check=True, capture_output=True, text=True)
        load = json.loads(out.stdout.strip().splitlines()[-1])

        store = GraphStore.open(db_dir)
        retriever = Retriever(store, None)
        nodes = sample_nodes(store, args.queries, rng)
        features = {t: n.text_feature for t, n in store.schema.node_types.items()}
        relations = {t: store.schema.neighbour_types(t)[0] for t in store.schema.node_types}
        rows = {
            "NodeInfo": percentiles(time_calls(retriever.node_info, [(i,) for _, i in nodes])),
            "NodeFeature": percentiles(time_calls(retriever.node_feature, [(i, features[t]) for t, i in nodes])),
            "NeighbourCheck": percentiles(time_calls(retriever.neighbour_check, [(i, relations[t]) for t, i in nodes])),
        }
        retrieve_nodes = args.retrieve_nodes or num_nodes
        from glm_dspy.graphs.node_index import EXACT_LIMIT

        # below EXACT_LIMIT `glm-dspy build` would pick exact search; force IVF so recall means something
        retrieve = bench_retrieve_node(retrieve_nodes, args.seed, args.queries,
                                       retrieve_nodes <= EXACT_LIMIT, rng)

    print(f"\ngraph bench: synthetic {load['num_nodes']:,} nodes / {load['num_edges']:,} edges, "
          f"{args.queries} queries, seed {args.seed}")
    print(f"{'arm':<28}{'p50 ms':>10}{'p95 ms':>10}  other")
    print(f"{'generate (not timed target)':<28}{'':>10}{'':>10}  {load['generate_s']:.1f} s")
    print(f"{'load (COPY into Kuzu)':<28}{'':>10}{'':>10}  {load['load_s']:.1f} s, peak RSS {load['peak_rss_gb']:.2f} GB")
    for name, (p50, p95) in rows.items():
        print(f"{name:<28}{p50:>10.2f}{p95:>10.2f}")
    print(f"{'RetrieveNode (' + format(retrieve_nodes, ',') + ' nodes)':<28}")
    print(f"{'  search':<28}{retrieve['search'][0]:>10.2f}{retrieve['search'][1]:>10.2f}  "
          f"{retrieve['kind']}, recall@1 vs exact {retrieve['recall_at_1']:.3f}, build {retrieve['build_s']:.1f} s")
    print(f"{'  embed+search':<28}{retrieve['end_to_end'][0]:>10.2f}{retrieve['end_to_end'][1]:>10.2f}")
    headline = {"num_nodes": load["num_nodes"], "num_edges": load["num_edges"], "load_s": round(load["load_s"], 2),
                "peak_rss_gb": round(load["peak_rss_gb"], 2),
                **{f"{k.lower()}_p50_ms": round(v[0], 3) for k, v in rows.items()},
                "retrieve_node_search_p50_ms": round(retrieve["search"][0], 3),
                "retrieve_node_p50_ms": round(retrieve["end_to_end"][0], 3),
                "retrieve_node_recall_at_1": round(retrieve["recall_at_1"], 4), "index_kind": retrieve["kind"],
                "retrieve_node_num_nodes": retrieve_nodes}
    print(json.dumps(headline))
    return 0


if __name__ == "__main__":
    sys.exit(main())
