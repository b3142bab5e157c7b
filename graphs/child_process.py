"""A child process the serving process owns: its environment and its end.

Why: the question workers (graphs/query_pool.py) and the snippet sandbox
(glm_dspy/executor/process.py) both start a Python child that must see only a few environment
variables, find this package, and be killed, reaped and closed the same way on any exit path.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Mapping


def child_env(kept: Iterable[str], package_root: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The parent's `kept` variables, PYTHONPATH led by `package_root`, then `extra`."""
    env = {key: os.environ[key] for key in kept if key in os.environ}
    python_path = [package_root] + os.environ.get("PYTHONPATH", "").split(os.pathsep)
    env["PYTHONPATH"] = os.pathsep.join(path for path in python_path if path)
    return env | dict(extra or {})


def stop(proc: subprocess.Popen) -> None:
    """Kill `proc` if it still runs, reap it, close its stdin and stdout (safe to call twice);
    stderr stays open for whoever reports why the child died."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is None:
            continue
        try:
            stream.close()
        except OSError:
            pass
