"""GLM.batch on the real in-process vLLM engine (the tiny random-weight model): the engine dies
mid-batch, or the whole process is killed, and every question is still answered exactly once.

The tiny model's outputs are garbage, so the answers are mostly "unexpected agent output";
what is asserted is the batch's bookkeeping, which does not depend on what the model says."""

import json
import os
import signal
import subprocess
import sys
import time
from collections import deque
from pathlib import Path

import dspy
import pytest

from glm_dspy.runs.journal import Journal
from glm_dspy.lm.factory import make_lm
from glm_dspy.modules.glm import GLM
from tests.children import guarded
from tests.test_lm import tiny_model  # noqa: F401 - the session fixture

NUM_QUESTIONS = 8
CRASH_AT_CALL = 6  # the engine dies as the 6th call of the batch is recorded, 4 questions in flight
QUESTIONS = [f"Who wrote paper number {i}?" for i in range(NUM_QUESTIONS)]
ENGINE = dict(max_model_len=1536, kv_cache_gib=1, max_tokens=24, cache=False)  # not test_lm's engine: this one dies
ROOT = Path(__file__).resolve().parent.parent
# the killed-process test: fewer questions, and bounds that only guard against a hang; its verdict
# rests on the journal's states, never on how fast a loaded 2-core machine runs (waits: `until_journal`)
NUM_KILLED_QUESTIONS, NUM_DONE_AT_KILL = 8, 3
HANG_GUARD_S = 1800


def crash_engine(transport) -> None:
    """Make the engine's loop thread die as a crash would: an item it cannot handle."""
    transport._inbox.put(("crash",))


class CrashingCallLog(deque):
    """The engine's call log (VllmEngine.calls), which crashes `transport` as the `crash_at`-th
    call is recorded: the crash lands at the same point of the batch however slow the machine
    (a thread polling the log would land it later, or after the batch, on a loaded machine)."""

    def __init__(self, calls: deque, transport, crash_at: int):
        super().__init__(calls, maxlen=calls.maxlen)
        self.transport, self.crash_at = transport, crash_at

    def append(self, record) -> None:
        super().append(record)
        self.crash_at -= 1
        if self.crash_at == 0:
            crash_engine(self.transport)


def test_an_engine_that_dies_mid_batch_is_restarted_and_every_question_is_answered_once(tiny_model, tiny_graph,
                                                                                         tmp_path):
    lm = make_lm(str(tiny_model), **ENGINE)
    engine = lm.engine
    first_transport = engine.transport
    journal = tmp_path / "batch.sqlite"

    engine.calls = CrashingCallLog(engine.calls, first_transport, crash_at=CRASH_AT_CALL)
    try:
        with dspy.context(lm=lm):
            predictions = GLM(tiny_graph, readings=False, compiled=None).batch(QUESTIONS, concurrency=4, journal=journal)
        assert not first_transport.is_alive() and engine.transport.is_alive() and engine.num_recoveries == 1
        assert len(predictions) == NUM_QUESTIONS and len({p.query_id for p in predictions}) == NUM_QUESTIONS
        resumed = [p for p in predictions if p.resumed]
        assert resumed and all(p.runs == 2 for p in resumed) and all(p.runs == 1 for p in predictions if not p.resumed)
        with Journal(journal) as opened:
            states = opened.states()
        assert [s.status for s in states] == ["done"] * NUM_QUESTIONS
        # the restarted engine answers new questions too
        with dspy.context(lm=lm):
            (after,) = GLM(tiny_graph, readings=False, compiled=None).batch(["Who wrote it?"])
        assert after.num_calls > 0 and not after.resumed
    finally:
        engine.close()


def until_journal(journal: Path, process: subprocess.Popen, reached) -> bool:
    """Wait until the journal's states satisfy `reached` (True), or the process ends (False);
    HANG_GUARD_S only guards against a hang."""
    guard = time.monotonic() + HANG_GUARD_S
    while time.monotonic() < guard and process.poll() is None:
        if journal.exists():
            with Journal(journal) as opened:
                if reached(opened.states()):
                    return True
        time.sleep(0.2)
    return False


BATCH_SCRIPT = """
import sys
import dspy
from glm_dspy.graph import open_graph
from glm_dspy.lm.factory import make_lm
from glm_dspy.modules.glm import GLM
questions = [f"Who wrote paper number {i}?" for i in range(int(sys.argv[4]))]
lm = make_lm(sys.argv[1], max_model_len=1536, kv_cache_gib=1, max_tokens=24, cache=False)
with open_graph(sys.argv[2]) as graph, dspy.context(lm=lm):
    predictions = GLM(graph, readings=False, compiled=None, executor=graph.executor(num_workers=4)).batch(
        questions, concurrency=4, journal=sys.argv[3])
print("ANSWERED", sum(1 for p in predictions if p.query_id), flush=True)
"""


def test_a_killed_process_run_again_on_its_journal_finishes_the_batch_answering_each_question_once(
        tiny_model, tiny_db, tmp_path):
    journal = tmp_path / "batch.sqlite"
    script = tmp_path / "batch.py"
    script.write_text(BATCH_SCRIPT)
    command = [sys.executable, str(script), str(tiny_model), str(tiny_db), str(journal), str(NUM_KILLED_QUESTIONS)]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(ROOT)}
    first = subprocess.Popen(guarded(command), env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        if until_journal(journal, first, lambda states: sum(s.status == "done" for s in states) >= NUM_DONE_AT_KILL):
            first.send_signal(signal.SIGKILL)  # no clean-up of any kind
        first.wait(timeout=HANG_GUARD_S)
        assert first.returncode == -signal.SIGKILL, first.stdout.read().decode()[-3000:]
    finally:
        if first.poll() is None:
            first.kill()
    with Journal(journal) as opened:
        before = {s.id: s for s in opened.states()}
    done_before = {qid for qid, s in before.items() if s.status == "done"}
    cut_off = {qid for qid, s in before.items() if s.status == "running"}
    assert NUM_DONE_AT_KILL <= len(done_before) < NUM_KILLED_QUESTIONS and cut_off

    second = subprocess.run(guarded(command), env=env, capture_output=True, text=True, cwd=ROOT, timeout=HANG_GUARD_S)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    assert f"ANSWERED {NUM_KILLED_QUESTIONS}" in second.stdout
    with Journal(journal) as opened:
        after = {s.id: s for s in opened.states()}
    assert len(after) == NUM_KILLED_QUESTIONS and all(s.status == "done" for s in after.values())
    for qid in done_before:  # finished before the kill: not run again, the same prediction
        assert after[qid].runs == before[qid].runs and after[qid].prediction == before[qid].prediction
    for qid in cut_off:  # cut off by the kill: resumed, once
        assert after[qid].runs == before[qid].runs + 1 and after[qid].resumed
    assert json.dumps(after[next(iter(cut_off))].prediction)  # a stored, readable prediction


class AbortsNoted:
    """An in-process transport's inbox that notes the ids of the requests it is told to abort."""

    def __init__(self, inbox):
        self.inbox, self.aborted = inbox, []

    def put(self, item) -> None:
        if item[0] == "abort":
            self.aborted.append(item[1])
        self.inbox.put(item)

    def __getattr__(self, name):  # get, get_nowait: the engine's loop reads the same queue
        return getattr(self.inbox, name)


def test_a_call_past_its_time_limit_is_aborted_asked_again_and_the_engine_lives_on(tiny_model, tiny_graph,
                                                                                  monkeypatch):
    import glm_dspy.modules.calls
    from glm_dspy.lm.transport import timed_out
    from glm_dspy.modules.calls import call_agent

    monkeypatch.setattr(glm_dspy.modules.calls, "TIMEOUT_BACKOFF_S", (0.1, 0.1))
    lm = make_lm(str(tiny_model), **ENGINE, timeout_s=0.3)
    transport = lm.engine.transport
    program = GLM(tiny_graph, readings=False, compiled=None)
    engine_transport = transport.started() if hasattr(transport, "started") else transport  # (a LazyTransport)
    inbox = AbortsNoted(engine_transport._inbox)
    monkeypatch.setattr(engine_transport, "_inbox", inbox)
    aborted = inbox.aborted
    try:
        sent = transport.num_requests
        with dspy.context(lm=lm, adapter=program.adapter), pytest.raises(Exception) as raised:
            # ~1,200 random tokens take seconds on this tiny model: far past 0.3 s
            call_agent("classify", program.classify, config={"max_tokens": 1200}, question="Who wrote it?")
        assert timed_out(raised.value) and "did not finish request" in str(raised.value.__cause__ or raised.value)
        assert transport.num_requests - sent == 3  # the first try and two more
        assert len(aborted) == 3 and len(set(aborted)) == 3  # each try was aborted in the engine, not left to run
        assert transport.is_alive()
        # a short call on the same engine is answered; the inbox is in order, so the aborts were handled
        # before it was added, and nothing of the timed-out tries is left in the scheduler when it returns
        with dspy.context(lm=lm):
            outputs = lm("Say hi.", max_tokens=4)
        assert len(outputs) == 1 and len(lm.engine.calls) >= 1
        assert not transport.scheduler.has_unfinished_requests()
    finally:
        lm.engine.close()


def test_a_prompt_past_the_context_is_refused_without_killing_the_engine(tiny_model, tiny_graph):
    from dspy import lm15

    from glm_dspy.modules.calls import call_agent
    from tests.test_lm import chat, request_for

    lm = make_lm(str(tiny_model), **ENGINE)
    program = GLM(tiny_graph, readings=False, compiled=None)
    try:
        huge = "Who wrote the paper about " + "graphs and " * 2000 + "?"
        with pytest.raises(lm15.ContextLengthError, match="prompt tokens"):
            lm.engine.complete(request_for(lm, chat(notebook=None, question=huge)))
        assert lm.engine.transport.is_alive()
        with dspy.context(lm=lm, adapter=program.adapter):
            prediction, step = call_agent("classify", program.classify, question=huge)
            assert prediction is None and "the prompt is too long for the model" in step.error
            answer = GLM(tiny_graph, readings=False, compiled=None)(question=huge)  # the query ends; nothing crashes
        assert answer.error_category == "unexpected agent output"
        assert lm.engine.transport.is_alive() and lm.engine.complete(request_for(lm, chat())).message
    finally:
        lm.engine.close()
