"""A `glm-dspy serve` process on the real engine (the tiny random-weight model) killed mid-batch
and started again on its journal finishes every question, each once."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

from glm_dspy.runs.journal import Journal
from tests.children import guarded
from tests.test_lm import free_port, tiny_model  # noqa: F401 - the session fixture

NUM_QUESTIONS = 16
# the verdicts rest on the journal's states, never on time: this bound only guards against a hang
# (a loaded 2-core machine runs the real engine many times slower)
HANG_GUARD_S = 1800
ROOT = Path(__file__).resolve().parent.parent


def start_service(tiny_model, tiny_db, journal, port, log):
    command = [sys.executable, "-m", "glm_dspy.cli", "serve", "--db", str(tiny_db), "--model", str(tiny_model),
               "--glm-program", "none", "--journal", str(journal), "--port", str(port), "--concurrency", "4"]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(guarded(command), env=env, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    deadline = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < deadline:
        assert process.poll() is None, f"the service exited with {process.returncode}; see {log.name}"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    process.kill()
    raise AssertionError(f"the service did not come up in {HANG_GUARD_S} s; see {log.name}")


def done_count(journal, status: str = "done") -> int:
    if not journal.exists():
        return 0
    with Journal(journal) as opened:
        return sum(s.status == status for s in opened.states())


def test_a_killed_service_started_again_finishes_every_question_once(tiny_model, tiny_db, tmp_path):
    journal, port = tmp_path / "service.sqlite", free_port()
    with (tmp_path / "first.log").open("w") as log:
        first = start_service(tiny_model, tiny_db, journal, port, log)
    try:
        def ask(i):
            try:
                httpx.post(f"http://127.0.0.1:{port}/v1/ask", json={"question": f"Who wrote paper {i}?"},
                           timeout=HANG_GUARD_S)
            except httpx.HTTPError:
                pass  # the service is killed under it

        askers = [threading.Thread(target=ask, args=(i,), daemon=True) for i in range(NUM_QUESTIONS)]
        for asker in askers:
            asker.start()
        deadline = time.monotonic() + HANG_GUARD_S
        # killed with 4 done and one in flight (between two questions none runs for a moment)
        while (done_count(journal) < 4 or not done_count(journal, "running")) and time.monotonic() < deadline \
                and done_count(journal) < NUM_QUESTIONS:
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
    with Journal(journal) as opened:
        before = {s.id: s for s in opened.states()}
    assert len(before) == NUM_QUESTIONS, "every question was journaled when it arrived"
    done_before = {qid for qid, s in before.items() if s.status == "done"}
    unfinished = set(before) - done_before
    assert len(done_before) >= 4 and unfinished

    with (tmp_path / "second.log").open("w") as log:
        second = start_service(tiny_model, tiny_db, journal, port, log)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while done_count(journal) < NUM_QUESTIONS and time.monotonic() < deadline:
            time.sleep(0.5)
        states = {qid: httpx.get(f"http://127.0.0.1:{port}/v1/queries/{qid}", timeout=10).json() for qid in before}
    finally:
        second.send_signal(signal.SIGINT)
        try:
            second.wait(timeout=60)
        except subprocess.TimeoutExpired:
            second.kill()
    assert all(s["status"] == "done" for s in states.values()), {q: s["status"] for q, s in states.items()}
    for qid in done_before:  # answered before the kill: not run again
        assert states[qid]["runs"] == before[qid].runs == 1
    for qid in unfinished:  # in flight or waiting at the kill: finished by the new service, once
        assert states[qid]["runs"] == before[qid].runs + 1
    assert any(states[qid]["resumed"] for qid in unfinished if before[qid].status == "running")
