"""An OpenAI-compatible vLLM server with a choice of KV-cache eviction policy.

    python -m glm_dspy.backends.vllm_priority.serve --model DIR --policy priority [vLLM server args]
    python -m glm_dspy.backends.vllm_priority.serve --model DIR --policy lru      # stock vLLM, same binary

`--policy priority` adds `--scheduler-cls` with the tiered scheduler (the async variant where
vLLM schedules asynchronously, its GPU default: `policies.runs_async_scheduling`); `--policy lru`
adds nothing. Both add `--enable-prefix-caching --enable-prompt-tokens-details` (the client reads
cached-token counts). Every other argument goes to `vllm.entrypoints.openai.api_server` unchanged.
"""

from __future__ import annotations

import argparse
import runpy
import sys

from glm_dspy.backends.vllm_priority.policies import POLICIES, runs_async_scheduling, scheduler_cls


def server_argv(policy: str, rest: list[str], *, gpu: bool) -> list[str]:
    """The api_server arguments for `policy` plus the caller's own."""
    if policy not in POLICIES:
        raise ValueError(f"--policy must be one of {sorted(POLICIES)}, got {policy!r}")
    if any(arg.startswith("--scheduler-cls") for arg in rest):
        raise ValueError("--scheduler-cls is set by --policy; do not pass both")
    argv = list(rest)
    for flag in ("--enable-prefix-caching", "--enable-prompt-tokens-details"):
        if flag not in argv:
            argv.append(flag)
    asked = False if "--no-async-scheduling" in argv else True if "--async-scheduling" in argv else None
    chosen = scheduler_cls(policy, asynchronous=runs_async_scheduling(gpu=gpu, async_scheduling=asked))
    if chosen is not None:
        argv += ["--scheduler-cls", chosen]
    return argv


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--policy", choices=sorted(POLICIES), default="priority",
                        help="KV-cache eviction: priority (the tiered scheduler) or lru (stock vLLM)")
    return parser


def main(argv: list[str] | None = None, *, prog: str | None = None) -> None:
    args, rest = build_parser(prog).parse_known_args(argv)
    import torch

    sys.argv = ["vllm.entrypoints.openai.api_server", *server_argv(args.policy, rest,
                                                                    gpu=torch.cuda.is_available())]
    runpy.run_module("vllm.entrypoints.openai.api_server", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
