"""Offline prefix-cache simulator: LRU (vLLM's order) vs tiered (TieredFreeQueue) vs Belady.

    python -m glm_dspy.backends.vllm_priority.simulator            # 400 queries, 7 capacities
    python -m glm_dspy.backends.vllm_priority.simulator --quick    # 80 queries, 3 capacities, seconds

Every arm replays the same seeded trace of GLM agent calls (`synthetic_glm_trace`) through a pool of
`capacity` blocks, once with vertex chunks and once with fine-grained per-fact retrieval (paper §5.1).
A request runs alone: it holds its blocks, then frees them tail first, as vLLM's BlockPool does.
Hit rate = prompt blocks served from the cache / prompt blocks, counting a block only while every
earlier block of its prompt hit too (prefix caching). Generated blocks take room but are never hits.
`belady` evicts the block whose next use is farthest (deepest first on ties) and ignores tiers: the
offline reference (with prefix semantics and held blocks that is not a proof of optimality, but
tests/test_simulator.py checks it tops both others). Prints one table (notebook: hit rate of the
tier-II blocks; computed/query: prompt blocks prefilled per query; miss_cut: 1 - tiered's misses / LRU's),
then one JSON line at `--capacity`.
"""

from __future__ import annotations

import argparse
import heapq
import itertools
import json
import random
from collections import defaultdict, deque
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from glm_dspy.backends.vllm_priority.hints import Segment, Tier, block_tiers
from glm_dspy.backends.vllm_priority.tiered_queue import TieredFreeQueue

POLICIES = ("lru", "tiered", "belady")
# Tokens of each agent's stable prefix (instructions + function docs + demos) and of its output.
PREFIX_TOKENS = {"classify": 700, "reason": 1400, "act": 1600}
OUTPUT_TOKENS = {"classify": 6, "reason": 60, "act": 90}
QUESTION_TOKENS = (20, 60)
MISSING_INFO_TOKENS = (15, 50)


@dataclass(frozen=True, slots=True)
class Request:
    """One LLM call: its prompt's full blocks in order, as (block_hash, tier) pairs."""

    query_id: str
    blocks: tuple[tuple[Hashable, Tier], ...]
    num_generated_blocks: int = 0  # full blocks of output: cached as tier IV, never hit
    is_query_end: bool = False  # the query is answered after this call: its notebook becomes tier III

    def __post_init__(self) -> None:
        assert len({h for h, _ in self.blocks}) == len(self.blocks), "block hashes repeat within a request"
        assert self.num_generated_blocks >= 0, self.num_generated_blocks


@dataclass(slots=True)
class _Block:  # what TieredFreeQueue reads of vLLM's KVCacheBlock
    block_id: int
    block_hash: Hashable | None = None


@dataclass(frozen=True, slots=True)
class SimResult:
    """Prompt blocks served from the cache, of all prompt blocks and of the notebook (tier II) ones."""

    num_blocks: int
    num_hits: int
    num_notebook_blocks: int
    num_notebook_hits: int

    @property
    def hit_rate(self) -> float:
        return self.num_hits / self.num_blocks

    @property
    def notebook_hit_rate(self) -> float:
        return self.num_notebook_hits / max(self.num_notebook_blocks, 1)


def simulate(trace: list[Request], capacity: int, policy: str) -> SimResult:
    """Replay `trace` through a pool of `capacity` blocks evicting by `policy`."""
    assert policy in POLICIES, f"unknown policy {policy!r}; one of {POLICIES}"
    largest = max(len(r.blocks) + r.num_generated_blocks for r in trace)
    if largest > capacity:
        raise ValueError(f"a request needs {largest} blocks but the pool holds {capacity}: raise the capacity")
    num_leading_hits = _belady(trace, capacity) if policy == "belady" else _pool(trace, capacity, policy == "tiered")
    notebook = [[tier == Tier.NOTEBOOK for _, tier in r.blocks] for r in trace]
    return SimResult(num_blocks=sum(len(r.blocks) for r in trace), num_hits=sum(num_leading_hits),
                     num_notebook_blocks=sum(map(sum, notebook)),
                     num_notebook_hits=sum(sum(is_nb[:n]) for is_nb, n in zip(notebook, num_leading_hits)))


def _pool(trace: list[Request], capacity: int, is_tiered: bool) -> list[int]:
    """Per request, how many leading prompt blocks hit, with BlockPool's moves on a TieredFreeQueue
    (no tiers and nothing pinned is vLLM's LRU order)."""
    blocks = [_Block(block_id) for block_id in range(capacity)]
    # Requests run one at a time here, and TieredScheduler's pin holds only against hint-less
    # requests while another runs: it never applies, so nothing is pinned.
    queue = TieredFreeQueue(blocks, num_pinned_max=0)
    cached: dict[Hashable, _Block] = {}
    num_leading_hits, fresh = [], itertools.count()
    for request in trace:
        held, num_hits, is_prefix = [], 0, True
        wanted = [*request.blocks, *(((request.query_id, "out", next(fresh)), Tier.VARIABLE)
                                     for _ in range(request.num_generated_blocks))]
        for block_hash, tier in wanted:
            block = cached.get(block_hash)
            if block is not None:  # BlockPool.touch
                queue.remove(block)
                num_hits += is_prefix
            else:  # BlockPool.get_new_blocks, then cache_full_blocks
                is_prefix = False
                block = queue.popleft()
                cached.pop(block.block_hash, None)
                block.block_hash, cached[block_hash] = block_hash, block
            if is_tiered:
                queue.set_tier(block.block_id, tier, request.query_id)
            held.append(block)
        queue.append_n(reversed(held))  # BlockPool.free_blocks: the chain's tail is evicted first
        if is_tiered and request.is_query_end:
            queue.finish_query(request.query_id)
        num_leading_hits.append(num_hits)
    return num_leading_hits


def _belady(trace: list[Request], capacity: int) -> list[int]:
    """Per request, how many leading prompt blocks hit when the block used farthest ahead goes first."""
    uses: dict[Hashable, deque[int]] = defaultdict(deque)
    for n, request in enumerate(trace):
        for block_hash, _ in request.blocks:
            uses[block_hash].append(n)
    never = len(trace)
    version: dict[Hashable, int] = {}  # cached hash -> its live heap entry
    heap: list[tuple[int, int, int, Hashable]] = []  # (-next use, -depth, entry number, hash)
    num_leading_hits, entries = [], itertools.count()
    for n, request in enumerate(trace):
        wanted = [h for h, _ in request.blocks] + [(n, "out", i) for i in range(request.num_generated_blocks)]
        in_request, num_hits, is_prefix = set(wanted), 0, True
        for block_hash in wanted:
            if block_hash in version:
                num_hits += is_prefix
                continue
            is_prefix = False
            while len(version) >= capacity:
                _, _, entry, victim = heapq.heappop(heap)
                if version.get(victim) == entry and victim not in in_request:
                    del version[victim]
            version[block_hash] = -1
        for depth, block_hash in enumerate(wanted):
            queue = uses.get(block_hash)
            if queue:
                queue.popleft()
            version[block_hash] = entry = next(entries)
            heapq.heappush(heap, (-(queue[0] if queue else never), -depth, entry, block_hash))
        num_leading_hits.append(num_hits)
    return num_leading_hits


def synthetic_glm_trace(num_queries: int, *, num_in_flight: int = 32, block_size: int = 16,
                        chunk_tokens: tuple[int, int] = (100, 400), fact_tokens: tuple[int, int] = (8, 40),
                        is_fine_grained: bool = False, num_vertices: int = 2000, zipf_s: float = 1.1,
                        max_retrievals: int = 4, deterministic_share: float = 0.3, seed: int = 0) -> list[Request]:
    """GLM agent calls of `num_queries` questions, `num_in_flight` at a time, interleaved at random.

    A query: Classify (prefix I + question IV); deterministic ones then one Act (prefix I + question IV);
    others alternate Reason (prefix I + notebook II + question IV) and Act (prefix I + missing info IV),
    each retrieval appending to the notebook a Zipf-drawn vertex's chunk, or, fine-grained, one fact
    per round, 2-4 facts per vertex in random order; a last Reason answers."""
    assert num_queries > 0 and num_in_flight > 0 and block_size > 0 and 0 <= deterministic_share <= 1
    rng = random.Random(seed)
    cum_weights = list(itertools.accumulate(1 / (v + 1) ** zipf_s for v in range(num_vertices)))

    def length(key: Hashable, bounds: tuple[int, int]) -> int:  # a property of the vertex or fact
        return random.Random(f"{seed} {key!r}").randint(*bounds)

    def call(query_id: str, agent: str, segments: list, is_query_end: bool = False) -> Request:
        segments = [(("prefix", agent), PREFIX_TOKENS[agent], Tier.PREFIX), *segments]
        return _blocks_of(query_id, segments, OUTPUT_TOKENS[agent], block_size, is_query_end)

    def retrieve() -> list:  # the notebook entries of one vertex, one Reason/Act round each
        vertex = rng.choices(range(num_vertices), cum_weights=cum_weights)[0]
        if not is_fine_grained:
            return [(("vertex", vertex), length(("vertex", vertex), chunk_tokens), Tier.NOTEBOOK)]
        facts = [("fact", vertex, f) for f in rng.sample(range(8), rng.randint(2, 4))]
        return [(fact, length(fact, fact_tokens), Tier.NOTEBOOK) for fact in facts]

    def query(query_id: str) -> Iterator[Request]:
        question = [(("question", query_id), rng.randint(*QUESTION_TOKENS), Tier.VARIABLE)]
        yield call(query_id, "classify", question)
        if rng.random() < deterministic_share:
            yield call(query_id, "act", question, is_query_end=True)
            return
        notebook: list = []
        for _ in range(rng.randint(1, max_retrievals)):
            for entry in retrieve():
                yield call(query_id, "reason", notebook + question)
                missing = (("missing", query_id, len(notebook)), rng.randint(*MISSING_INFO_TOKENS), Tier.VARIABLE)
                yield call(query_id, "act", [missing])
                notebook.append(entry)
        yield call(query_id, "reason", notebook + question, is_query_end=True)

    trace, started = [], 0
    active: list[Iterator[Request]] = []
    while active or started < num_queries:
        while len(active) < num_in_flight and started < num_queries:
            active.append(query(f"q{started}"))
            started += 1
        pick = rng.randrange(len(active))
        request = next(active[pick], None)
        if request is None:
            active.pop(pick)
        else:
            trace.append(request)
    return trace


def _blocks_of(query_id: str, segments: list, num_output_tokens: int, block_size: int,
               is_query_end: bool) -> Request:
    """Chain-hash the prompt's full blocks; their tiers are `hints.block_tiers`'s, the scheduler's rule."""
    hashes, spans, pieces, filled, parent, num_prompt_tokens = [], [], [], 0, None, 0
    for key, num_tokens, tier in segments:
        spans.append(Segment(num_prompt_tokens, num_prompt_tokens + num_tokens, tier))
        num_prompt_tokens += num_tokens
        offset = 0
        while offset < num_tokens:
            take = min(num_tokens - offset, block_size - filled)
            pieces.append((key, offset, offset + take))
            offset, filled = offset + take, filled + take
            if filled == block_size:
                parent = hash((parent, tuple(pieces)))
                hashes.append(parent)
                pieces, filled = [], 0
    tiers = block_tiers(spans, block_size, 0, len(hashes))
    num_generated = (num_prompt_tokens + num_output_tokens) // block_size - len(hashes)
    return Request(query_id, tuple(zip(hashes, tiers)), num_generated, is_query_end)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="80 queries and 3 capacities")
    parser.add_argument("--queries", type=int, help="queries per trace (default 400, --quick 80)")
    parser.add_argument("--block-size", type=int, default=16, help="tokens per KV-cache block")
    parser.add_argument("--capacity", type=int, default=768, help="capacity (blocks) of the JSON line")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    num_queries = args.queries or (80 if args.quick else 400)
    capacities = sorted({384, 768, 1536} if args.quick else {384, 512, 768, 1024, 1536, 2048, 4096})
    capacities = sorted({*capacities, args.capacity})
    print(f"{'retrieval':<13}{'capacity':>9} |{'hit rate: lru':>14}{'tiered':>7}{'belady':>7} |"
          f"{'notebook: lru':>14}{'tiered':>7}{'belady':>7} |{'computed/query: lru':>20}{'tiered':>7} |{'miss_cut':>9}")
    headline, traces = {}, {}
    for retrieval in ("vertex_chunk", "fine_grained"):
        traces[retrieval] = trace = synthetic_glm_trace(num_queries, block_size=args.block_size, seed=args.seed,
                                                        is_fine_grained=retrieval == "fine_grained")
        for capacity in capacities:
            lru, tiered, opt = results = [simulate(trace, capacity, policy) for policy in POLICIES]
            computed = [(r.num_blocks - r.num_hits) / num_queries for r in (lru, tiered)]
            miss_cut = 1 - computed[1] / computed[0] if computed[0] else 0.0
            print(f"{retrieval:<13}{capacity:>9} |" + _cells([r.hit_rate for r in results], 14, ".3f")
                  + " |" + _cells([r.notebook_hit_rate for r in results], 14, ".3f")
                  + " |" + _cells(computed, 20, ".1f") + f" |{miss_cut:>9.3f}")
            if retrieval == "vertex_chunk" and capacity == args.capacity:
                rates = {"lru_hit_rate": lru.hit_rate, "priority_hit_rate": tiered.hit_rate,
                         "opt_hit_rate": opt.hit_rate, "miss_rate_cut": miss_cut,
                         "lru_notebook_hit_rate": lru.notebook_hit_rate,
                         "priority_notebook_hit_rate": tiered.notebook_hit_rate,
                         "opt_notebook_hit_rate": opt.notebook_hit_rate}
                headline = {name: round(rate, 4) for name, rate in rates.items()} | {
                    "capacity_blocks": capacity, "block_size": args.block_size, "retrieval": retrieval,
                    "num_queries": num_queries, "num_requests": len(trace), "num_prompt_blocks": lru.num_blocks,
                    "seed": args.seed}
    for retrieval, trace in traces.items():
        num_blocks = sum(len(r.blocks) for r in trace)
        num_notebook = sum(tier == Tier.NOTEBOOK for r in trace for _, tier in r.blocks)
        print(f"# {retrieval}: {num_queries} queries, {len(trace)} requests, {num_blocks} prompt blocks "
              f"({num_notebook / num_blocks:.0%} notebook), {sum(r.num_generated_blocks for r in trace)} generated")
    print(json.dumps(headline))


def _cells(values: list[float], first_width: int, fmt: str) -> str:
    return f"{values[0]:>{first_width}{fmt}}" + "".join(f"{value:>7{fmt}}" for value in values[1:])


if __name__ == "__main__":
    main()
