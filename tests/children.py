"""Commands for the servers and batch runs tests start: they die with the test process.

A server a fixture starts is stopped by the fixture's teardown, which never runs when pytest
itself is killed (by the OOM killer, by CI's time limit, by a Ctrl-C that lands twice): the
server then kept its port, its engine and gigabytes of memory after the run. `guarded(command)`
runs `command` under Linux's parent-death signal: the child asks the kernel for SIGTERM when the
process that started it dies, then becomes `command` (the setting survives exec). No
`preexec_fn`, which is not safe in a process with threads (the in-process engines start some).
"""

from __future__ import annotations

import sys

_GUARD = """
import ctypes, os, signal, sys
PR_SET_PDEATHSIG = 1
parent = int(sys.argv[1])
if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM) != 0:
    sys.exit(f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(ctypes.get_errno())}")
if os.getppid() != parent:  # the parent died before the signal was asked for
    sys.exit("the test process that started this command is gone")
os.execvp(sys.argv[2], sys.argv[2:])
"""


def guarded(command: list[str]) -> list[str]:
    """`command`, run so that it gets SIGTERM when the calling process dies (Linux)."""
    import os

    assert command, "an empty command"
    if not sys.platform.startswith("linux"):
        return command
    return [sys.executable, "-c", _GUARD, str(os.getpid()), *command]
