"""The offline cache simulator: hand-counted hits on tiny traces, Belady on top, the GLM trace's shape."""

import random

import pytest

from glm_dspy.backends.vllm_priority.hints import Tier
from glm_dspy.backends.vllm_priority.simulator import POLICIES, Request, _blocks_of, simulate, synthetic_glm_trace

I, II, IV = Tier.PREFIX, Tier.NOTEBOOK, Tier.VARIABLE


def hits(trace: list[Request], capacity: int) -> dict[str, int]:
    return {policy: simulate(trace, capacity, policy).num_hits for policy in POLICIES}


def test_tiered_keeps_a_running_notebook_that_lru_drops_for_one_shot_prompts():
    # capacity 3: q1's notebook N, then two one-shot prompts. LRU evicts N (the oldest), tiered evicts
    # a one-shot block (IV), Belady the block never used again.
    trace = [Request("q1", (("N", II),)),
             Request("q2", (("X1", IV), ("X2", IV)), is_query_end=True),
             Request("q3", (("Y", IV),), is_query_end=True),
             Request("q1", (("N", II),), is_query_end=True)]
    assert hits(trace, capacity=3) == {"lru": 0, "tiered": 1, "belady": 1}


def test_tiered_can_lose_to_lru_when_a_tier_iv_block_is_reused():
    # capacity 2: q2 asks the same prompt twice; tiered keeps q1's notebook, never used again, instead.
    trace = [Request("q1", (("N", II),)),
             Request("q2", (("Q", IV),)),
             Request("q3", (("Z", IV),), is_query_end=True),
             Request("q2", (("Q", IV),), is_query_end=True)]
    assert hits(trace, capacity=2) == {"lru": 1, "tiered": 0, "belady": 1}


def test_a_block_after_a_miss_is_not_a_prefix_hit():
    trace = [Request("q1", (("A", IV), ("B", IV))), Request("q2", (("X", IV), ("B", IV)))]
    assert hits(trace, capacity=8) == {"lru": 0, "tiered": 0, "belady": 0}
    trace.append(Request("q3", (("A", IV), ("B", IV), ("C", IV))))
    assert hits(trace, capacity=8) == {"lru": 2, "tiered": 2, "belady": 2}


def test_generated_blocks_take_room():
    # capacity 3: the first call's 2 generated blocks and the prefix fill the pool; generated blocks
    # are freed tail first, so the second call's new block evicts one of them, not the prefix.
    trace = [Request("q1", (("P", I),), num_generated_blocks=2), Request("q2", (("P", I), ("Q", IV)))]
    result = simulate(trace, 3, "lru")
    assert (result.num_hits, result.num_blocks) == (1, 3)
    with pytest.raises(ValueError, match="raise the capacity"):
        simulate(trace, 2, "lru")


def test_notebook_flood():
    """A running query's notebook (II) survives a flood of unrelated one-shot prompts under tiered only."""
    prefix = [(("P", n), I) for n in range(4)]
    notebook = [(("N", n), II) for n in range(5)]
    trace = [Request("q1", (*prefix, *notebook, ("question 1", IV)))]
    trace += [Request(f"flood{n}", tuple(((f"flood{n}", k), IV) for k in range(3)), num_generated_blocks=1,
                      is_query_end=True) for n in range(50)]
    trace.append(Request("q1", (*prefix, *notebook, (("N", 5), II), ("question 2", IV)), is_query_end=True))
    lru, tiered, belady = (simulate(trace, 16, policy) for policy in POLICIES)
    assert lru.num_notebook_hits == 0
    assert tiered.num_notebook_hits == belady.num_notebook_hits == 5
    assert tiered.num_hits == belady.num_hits == 4 + 5


def random_trace(rng: random.Random, num_requests: int) -> list[Request]:
    """Chains over a small universe: one of 3 prefixes, a running query's notebook, a fresh question."""
    trace, notebooks = [], {}
    for n in range(num_requests):
        query_id = f"q{rng.randrange(6)}"
        notebook = notebooks.setdefault(query_id, [])
        if rng.random() < 0.5:
            notebook.append(rng.randrange(12))
        path, blocks = (), []
        for key, tier in [*((("P", rng.randrange(3), k), I) for k in range(3)),
                          *((("V", v), II) for v in notebook), (("Q", n), IV)]:
            path += (key,)
            blocks.append((hash(path), tier))
        is_end = rng.random() < 0.2
        if is_end:
            notebooks.pop(query_id)
        trace.append(Request(query_id, tuple(blocks), rng.randrange(3), is_end))
    return trace


@pytest.mark.parametrize("seed", range(20))
def test_belady_is_on_top(seed):
    rng = random.Random(seed)
    trace = random_trace(rng, 60)
    for capacity in (24, 32, 48):
        result = {p: simulate(trace, capacity, p).num_hits for p in POLICIES}
        assert result["belady"] >= max(result["lru"], result["tiered"]), (capacity, result)


def test_belady_is_on_top_on_glm_traces():
    for is_fine_grained in (False, True):
        trace = synthetic_glm_trace(30, num_in_flight=8, is_fine_grained=is_fine_grained, seed=1)
        for capacity in (384, 768):
            lru, tiered, belady = (simulate(trace, capacity, p).hit_rate for p in POLICIES)
            assert belady >= tiered >= lru, (is_fine_grained, capacity, lru, tiered, belady)


def test_trace_blocks_take_the_scheduler_tiers():
    # 16-token blocks over prefix [0, 20), notebook [20, 40), question [40, 50):
    #   block 0 [0, 16) all prefix; block 1 [16, 32) ends in the notebook; block 2 [32, 48) ends in
    #   the question; tokens 48-49 fill no block. With 30 output tokens, 80 // 16 - 3 = 2 blocks are generated.
    request = _blocks_of("q", [("p", 20, I), ("n", 20, II), ("q", 10, IV)], 30, 16, is_query_end=False)
    assert [tier for _, tier in request.blocks] == [I, II, IV]
    assert request.num_generated_blocks == 2
    other_notebook = _blocks_of("q", [("p", 20, I), ("m", 20, II), ("q", 10, IV)], 30, 16, is_query_end=False)
    assert other_notebook.blocks[0] == request.blocks[0] and other_notebook.blocks[1] != request.blocks[1]


def test_glm_trace_shape():
    trace = synthetic_glm_trace(40, num_in_flight=8, seed=3)
    assert trace == synthetic_glm_trace(40, num_in_flight=8, seed=3)
    by_query: dict[str, list[Request]] = {}
    for request in trace:
        by_query.setdefault(request.query_id, []).append(request)
    assert len(by_query) == 40
    assert len({r.query_id for r in trace[:30]}) > 4  # queries interleave
    first_chunks = []
    for requests in by_query.values():
        assert [r.is_query_end for r in requests] == [False] * (len(requests) - 1) + [True]
        tiers = [[tier for _, tier in r.blocks] for r in requests]
        assert all(t[0] == I and t == sorted(t) for t in tiers)  # prefix, notebook, variable
        reasons = [t.count(II) for t in tiers[1::2]] if len(requests) > 2 else []
        assert reasons == sorted(reasons) and (not reasons or reasons[-1] > 0)  # the notebook grows
        if reasons:
            first_chunks.append(next(h for h, tier in requests[3].blocks if tier == II))
    assert len(set(first_chunks)) < len(first_chunks)  # Zipf: some queries retrieve the same first chunk
    fine = synthetic_glm_trace(40, num_in_flight=8, is_fine_grained=True, seed=3)
    assert len(fine) > len(trace)  # one fact per round: more rounds
    assert synthetic_glm_trace(5, block_size=32)[0].blocks != synthetic_glm_trace(5)[0].blocks
