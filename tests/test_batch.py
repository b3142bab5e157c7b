"""GLM.batch and its journal: order, exactly-once answers, resume after a lost engine or a killed process.

Control flow only, on a scripted engine (DummyLM-style); the real-engine restart is in
test_batch_engine.py."""

import socket
import sqlite3
import threading

import dspy
import pytest
from dspy import lm15

from glm_dspy.lm.transport import engine_lost
from glm_dspy.runs.journal import Journal, batch_id_of, running
from glm_dspy.lm.inprocess import EngineDiedError
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.glm import GLM

P1_YEAR = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'
QUESTIONS = [f"In which year was Notes on the Analytical Engine published? ({i})" for i in range(6)]
# keyed by the field header only that agent's final message has: classify -> act -> reason
BY_AGENT = {"[[ ## request ## ]]": {"code": P1_YEAR},
            "[[ ## notebook ## ]]": {"finished": True, "answer": "1843", "missing_information": ""},
            "[[ ## question ## ]]": {"kind": "non_deterministic"}}
CALLS_PER_QUESTION = 3


class Transport:
    """Stands for a vLLM transport: what VllmEngine.recover replaces."""

    def __init__(self, generation=0):
        self.generation = generation

    def restarted(self):
        return Transport(self.generation + 1)


class DyingEngine:
    """Answers each agent by its field header; its transport dies at the calls in `die_at` (1-based)."""

    def __init__(self, die_at=()):
        self.die_at = set(die_at)
        self.transport = Transport()
        self.num_calls = 0  # completed calls
        self.num_attempts = 0
        self.num_recoveries = 0
        self._lock = threading.Lock()

    def complete(self, request):
        with self._lock:
            self.num_attempts += 1
            if self.num_attempts in self.die_at:
                raise EngineDiedError(f"engine died at call {self.num_attempts}")
            self.num_calls += 1
        last = request.messages[-1].parts[0].text
        fields = next(v for k, v in BY_AGENT.items() if k in last)
        text = "\n\n".join(f"[[ ## {k} ## ]]\n{v}" for k, v in fields.items()) + "\n\n[[ ## completed ## ]]"
        return lm15.Response(id=None, model="scripted", message=lm15.Message.assistant([lm15.TextPart(text)]),
                             finish_reason="stop", usage=lm15.Usage(input_tokens=1, output_tokens=1, total_tokens=2))

    def recover(self, lost):
        if self.transport is not lost:
            return False
        self.transport = lost.restarted()
        self.num_recoveries += 1
        return True


def scripted_lm(engine):
    return dspy.LM("openai/scripted", engine=engine, cache=False, num_retries=0)


def answers(predictions):
    return [p.answer for p in predictions]


def test_a_batch_answers_in_order_and_a_rerun_on_its_journal_asks_nothing(tiny_graph, tmp_path):
    engine, journal = DyingEngine(), tmp_path / "batch.sqlite"
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    with dspy.context(lm=scripted_lm(engine)):
        first = program.batch(QUESTIONS, concurrency=3, journal=journal)
        assert engine.num_calls == CALLS_PER_QUESTION * len(QUESTIONS)
        again = program.batch(QUESTIONS, concurrency=3, journal=journal)
    assert engine.num_calls == CALLS_PER_QUESTION * len(QUESTIONS)  # nothing asked twice
    assert answers(first) == answers(again) == ["1843"] * len(QUESTIONS)
    assert [p.query_id for p in first] == [p.query_id for p in again] == \
        [f"{batch_id_of(QUESTIONS)}-{i}" for i in range(len(QUESTIONS))]
    assert not any(p.resumed for p in first + again) and {p.runs for p in again} == {1}
    with Journal(journal) as opened:
        assert [s.status for s in opened.states()] == ["done"] * len(QUESTIONS)


def test_a_lost_engine_is_restarted_once_and_the_query_resumes_at_its_first_unjournaled_call(tiny_graph):
    # the third call of the batch is question 0's Reason call: classify and act are journaled by then
    engine = DyingEngine(die_at={3})
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    with dspy.context(lm=scripted_lm(engine)):
        predictions = program.batch(QUESTIONS[:2], concurrency=1)
    assert answers(predictions) == ["1843", "1843"]
    assert engine.num_recoveries == 1 and engine.transport.generation == 1
    assert engine.num_calls == CALLS_PER_QUESTION * 2  # the journaled calls were not asked again
    resumed, fresh = predictions
    assert resumed.resumed and resumed.runs == 2 and not fresh.resumed
    assert [s["agent"] for s in resumed.steps if s["replayed"]] == ["classify", "act"]
    assert not any(s["replayed"] for s in fresh.steps)


def test_a_batch_gives_up_after_its_restarts_and_keeps_what_finished(tiny_graph, tmp_path):
    engine = DyingEngine(die_at={4, 5, 6, 7, 8})  # question 0 finishes, then every restart dies again
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    journal = tmp_path / "batch.sqlite"
    with dspy.context(lm=scripted_lm(engine)):
        with pytest.raises(Exception) as raised:
            program.batch(QUESTIONS[:2], concurrency=1, journal=journal)
        assert engine_lost(raised.value) is not None
        assert engine.num_recoveries == 3  # DEFAULT_MAX_RECOVERIES
        with Journal(journal) as opened:
            # the engine's fault, not the question's: pending again, so no poison question next time
            assert [s.status for s in opened.states()] == ["done", "pending"]
        finished = program.batch(QUESTIONS[:2], concurrency=1, journal=journal)  # the engine works again
    assert answers(finished) == ["1843", "1843"] and [p.resumed for p in finished] == [False, True]


def test_a_query_cut_off_by_a_killed_process_resumes_from_the_journal_file(tiny_graph, tmp_path):
    journal_path = tmp_path / "batch.sqlite"
    engine = DyingEngine()
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    # a process that died after question 0's first two calls: its journal file is all that is left
    with dspy.context(lm=scripted_lm(engine)), Journal(journal_path) as journal:
        query_id = journal.submit(QUESTIONS[:1])[0]
        with running(journal.start(query_id)), dspy.context(adapter=program.adapter):
            call_agent("classify", program.classify, question=QUESTIONS[0])
            call_agent("act", program.act, request=QUESTIONS[0], previous_code="", error="")
    calls_before = engine.num_calls
    with dspy.context(lm=scripted_lm(engine)):
        (prediction,) = program.batch(QUESTIONS[:1], journal=journal_path)
    assert prediction.answer == "1843" and prediction.resumed and prediction.runs == 2
    assert engine.num_calls - calls_before == 1  # only Reason was asked
    assert [s["agent"] for s in prediction.steps if s["replayed"]] == ["classify", "act"]


def test_the_journal_keeps_one_answer_per_query_and_says_what_is_wrong(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        ids = journal.submit(["a?", "b?"], batch="b1")
        assert journal.submit(["a?", "b?"], batch="b1") == ids == ["b1-0", "b1-1"]
        with pytest.raises(ValueError, match="already has question 0 'a\\?'"):
            journal.submit(["c?"], batch="b1")
        journal.start(ids[0])
        assert journal.finish(ids[0], {"answer": "x"}) and not journal.finish(ids[0], {"answer": "y"})
        assert journal.state(ids[0]).prediction == {"answer": "x"}
        with pytest.raises(ValueError, match="is finished"):
            journal.start(ids[0])
        with pytest.raises(KeyError, match="no query 'nope'"):
            journal.state("nope")
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    garbage = tmp_path / "garbage.sqlite"
    garbage.write_bytes(b"not a database at all" * 100)
    with pytest.raises(ValueError, match="not a GLM journal"):
        Journal(garbage)
    assert garbage.read_bytes() == b"not a database at all" * 100  # nothing overwritten


def test_a_batch_refuses_an_empty_question_before_asking_anything(tiny_graph):
    engine = DyingEngine()
    with dspy.context(lm=scripted_lm(engine)), pytest.raises(ValueError, match="question 1 is ''"):
        GLM(tiny_graph, readings=False, compiled=None).batch(["Who?", ""])
    assert engine.num_attempts == 0


class TimingOutEngine(DyingEngine):
    """Times out (as a hung engine's call does) on the calls in `time_out_at` (1-based attempts)."""

    def __init__(self, time_out_at=()):
        super().__init__()
        self.time_out_at = set(time_out_at)

    def complete(self, request):
        with self._lock:
            attempt = self.num_attempts + 1
        if attempt in self.time_out_at:
            with self._lock:
                self.num_attempts += 1
            raise lm15.TimeoutError(f"call {attempt} timed out")
        return super().complete(request)


@pytest.fixture
def no_backoff(monkeypatch):
    import glm_dspy.modules.calls

    monkeypatch.setattr(glm_dspy.modules.calls, "TIMEOUT_BACKOFF_S", (0.0, 0.0))


def test_a_timed_out_call_is_asked_again_and_the_step_counts_it_once_it_answers(tiny_graph, no_backoff):
    engine = TimingOutEngine(time_out_at={1, 2})
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    with dspy.context(lm=scripted_lm(engine), adapter=program.adapter):
        prediction, step = call_agent("classify", program.classify, question=QUESTIONS[0])
    assert prediction.kind == "non_deterministic" and step.error is None
    assert engine.num_attempts == 3 and engine.num_calls == 1


def test_a_call_that_keeps_timing_out_restarts_the_engine_in_a_batch(tiny_graph, no_backoff):
    from glm_dspy.lm.transport import timed_out

    engine = TimingOutEngine(time_out_at={1, 2, 3})  # the first call and both its new tries
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    with dspy.context(lm=scripted_lm(engine), adapter=program.adapter):
        with pytest.raises(Exception) as raised:
            call_agent("classify", program.classify, question=QUESTIONS[0])
        assert timed_out(raised.value)
        engine.num_attempts = 0
        (prediction,) = program.batch(QUESTIONS[:1])
    assert prediction.answer == "1843" and prediction.resumed and engine.num_recoveries == 1


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_refused_connection_under_dspys_own_lm_stops_the_batch_and_fails_no_question(tiny_graph, tmp_path):
    """Any server (not only ours) that refuses connections is a lost engine: the batch stops and
    its questions stay pending for the next run, instead of each being journaled as failed."""
    lm = dspy.LM("openai/any", api_base=f"http://127.0.0.1:{closed_port()}/v1", api_key="none",
                 num_retries=0, cache=False)
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    journal = tmp_path / "batch.sqlite"
    with dspy.context(lm=lm):
        with pytest.raises(Exception) as raised:
            program.batch(QUESTIONS[:2], concurrency=1, journal=journal)
    assert isinstance(engine_lost(raised.value), ConnectionRefusedError)
    with Journal(journal) as opened:
        assert "failed" not in {s.status for s in opened.states()}
