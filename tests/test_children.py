"""tests/children.py: a guarded command dies with the process that started it."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.children import guarded

ROOT = Path(__file__).resolve().parent.parent
PARENT = """
import subprocess, sys, time
from tests.children import guarded
child = subprocess.Popen(guarded(["sleep", "300"]))
print(child.pid, flush=True)
time.sleep(300)
"""


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has exited; only its reaper is missing


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_guarded_child_is_gone_once_the_process_that_started_it_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True, cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    child = int(parent.stdout.readline())
    try:
        time.sleep(0.5)
        assert _running(child), "the guard must become the command, not end it"
        assert Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[0] == b"sleep"
        parent.kill()  # no teardown of any kind, as when the OOM killer takes pytest
        parent.wait()
        deadline = time.monotonic() + 10
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _running(child), "the child outlived the process that started it"
    finally:
        if _running(child):
            os.kill(child, 9)


def test_an_unguarded_command_is_returned_as_is_off_linux(monkeypatch):
    monkeypatch.setattr(sys, "platform", "darwin")
    assert guarded(["sleep", "1"]) == ["sleep", "1"]
