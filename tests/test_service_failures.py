"""glm-dspy serve fails safe: every failure answered in JSON with its status, journaled, bounded.

Control flow only: a scripted program (it raises, or waits on an event) or GLM on the scripted
engine of test_batch.py."""

import logging
import threading

import dspy
import pytest
from fastapi.testclient import TestClient

from glm_dspy.runs.journal import Journal
from glm_dspy.modules.glm import GLM
from glm_dspy.serving.service import MAX_BODY_BYTES, Service, create_app
from tests.test_batch import CALLS_PER_QUESTION, DyingEngine, scripted_lm
from tests.test_service import QUESTION


class Scripted(dspy.Module):
    """A program that runs `behaviour(question)`: raise, or wait, then answer."""

    def __init__(self, behaviour):
        super().__init__()
        self.behaviour = behaviour

    def forward(self, question):
        self.behaviour(question)
        return dspy.Prediction(answer="42", steps=[], num_calls=0)


def raises(question):
    raise RuntimeError(f"the graph store is gone while answering {question!r}")


@pytest.fixture
def journal(tmp_path):
    with Journal(tmp_path / "service.sqlite") as journal:
        yield journal


def test_a_question_the_program_fails_on_gets_a_json_500_and_is_journaled_failed(journal):
    service = Service(Scripted(raises), scripted_lm(DyingEngine()), journal, concurrency=1)
    with TestClient(create_app(service)) as client:
        response = client.post("/v1/ask", json={"question": QUESTION})
        assert response.status_code == 500 and response.headers["content-type"] == "application/json"
        body = response.json()
        assert "RuntimeError: the graph store is gone" in body["error"], body
        state = client.get(f"/v1/queries/{body['query_id']}").json()
    assert state["status"] == "failed" and state["runs"] == 1
    assert state["error"].startswith("RuntimeError: the graph store is gone while answering")
    assert journal.unfinished() == []  # nothing left to replay at the next start


def test_a_question_whose_engine_is_lost_past_its_restarts_is_journaled_failed(tiny_graph, journal):
    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    service = Service(program, scripted_lm(DyingEngine(die_at={1})), journal, max_recoveries=0)
    with TestClient(create_app(service)) as client:
        response = client.post("/v1/ask", json={"question": QUESTION})
        assert response.status_code == 500 and "engine died at call 1" in response.json()["error"], response.text
        state = client.get(f"/v1/queries/{response.json()['query_id']}").json()
    assert state["status"] == "failed" and "engine died at call 1" in state["error"]


def test_the_stream_sends_a_failed_event_with_the_query_id(journal):
    service = Service(Scripted(raises), scripted_lm(DyingEngine()), journal, concurrency=1)
    with TestClient(create_app(service)) as client, \
            client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
        text = "".join(response.iter_text())
    from tests.test_service import parse_events

    (_, query), (name, failed) = parse_events(text)
    assert name == "failed" and failed["query_id"] == query["query_id"] and "RuntimeError" in failed["error"]
    assert journal.state(query["query_id"]).status == "failed"


def test_a_question_running_at_max_runs_stops_is_given_up_as_poison_not_replayed(tiny_graph, journal, caplog):
    # what a service killed by its question three times leaves: the question running, runs 3;
    # beside it a question cut off once (runs 1), which is resumed
    poison, cut_off = (journal.submit([f"{QUESTION} ({i})"], batch=f"b{i}")[0] for i in range(2))
    for _ in range(3):
        journal.start(poison)
    journal.start(cut_off)
    engine = DyingEngine()
    service = Service(GLM(tiny_graph, readings=False, compiled=None, samples=0), scripted_lm(engine), journal, max_runs=3)
    app = create_app(service)
    with caplog.at_level(logging.WARNING, logger="glm_dspy.serving.service"), TestClient(app):
        assert app.state.given_up == [poison] and app.state.resumed == [cut_off]
    assert engine.num_calls == CALLS_PER_QUESTION  # the poison question asked nothing
    given_up, resumed = journal.state(poison), journal.state(cut_off)
    assert given_up.status == "failed" and given_up.runs == 3 and "poison question" in given_up.error
    assert resumed.status == "done" and resumed.runs == 2
    assert any(poison in record.getMessage() and "poison" in record.getMessage() for record in caplog.records)
    with TestClient(create_app(service)) as client:  # and the next start leaves it alone
        assert client.app.state.given_up == client.app.state.resumed == []
        assert client.get(f"/v1/queries/{poison}").json()["status"] == "failed"


def test_a_body_over_the_limit_gets_a_json_413_before_it_is_read(journal):
    service = Service(Scripted(raises), scripted_lm(DyingEngine()), journal)
    padding = "x" * MAX_BODY_BYTES
    with TestClient(create_app(service)) as client:
        response = client.post("/v1/ask", content=f'{{"question": "{padding}"}}',
                               headers={"content-type": "application/json"})
        assert response.status_code == 413 and f"at most {MAX_BODY_BYTES:,} bytes" in response.json()["error"]

        chunks = (b"x" * 4096 for _ in range(2 * MAX_BODY_BYTES // 4096))  # chunked: no Content-Length
        response = client.post("/v1/ask", content=chunks, headers={"content-type": "application/json"})
        assert response.status_code == 413 and f"over {MAX_BODY_BYTES:,} bytes" in response.json()["error"]
    assert journal.states() == []


def test_the_body_limit_reads_no_further_than_the_chunk_that_passes_it():
    import asyncio

    from glm_dspy.serving.limits import BodyLimit

    num_read, sent = 0, []

    async def receive():  # an endless chunked body
        nonlocal num_read
        num_read += 1
        return {"type": "http.request", "body": b"x" * 1000, "more_body": True}

    async def send(message):
        sent.append(message)

    async def app(scope, receive, send):
        raise AssertionError("the app saw a body over the limit")

    scope = {"type": "http", "method": "POST", "path": "/v1/ask", "headers": []}
    asyncio.run(BodyLimit(app, max_bytes=10_000)(scope, receive, send))
    assert num_read == 11 and sent[0]["status"] == 413


def test_a_full_queue_gets_a_json_503_with_retry_after_and_journals_nothing(journal):
    release = threading.Event()
    service = Service(Scripted(lambda question: release.wait(30)), scripted_lm(DyingEngine()), journal,
                      concurrency=1, max_queued=1)
    with TestClient(create_app(service)) as client:
        answers = []
        askers = [threading.Thread(target=lambda i=i: answers.append(
            client.post("/v1/ask", json={"question": f"{QUESTION} ({i})"}))) for i in range(2)]
        for asker in askers:  # one runs, one waits: the queue is full
            asker.start()
        for _ in range(300):
            if service.admission.num_taken == 2 and len(journal.states()) == 2:
                break
            threading.Event().wait(0.01)
        refused = client.post("/v1/ask", json={"question": QUESTION})
        refused_stream = client.post("/v1/ask/stream", json={"question": QUESTION})
        release.set()
        for asker in askers:
            asker.join()
        assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1
        assert "busy" in refused.json()["error"] and refused_stream.status_code == 503
        assert len(journal.states()) == 2 and [a.status_code for a in answers] == [200, 200]
        assert client.post("/v1/ask", json={"question": QUESTION}).status_code == 200  # places were given back
        assert "glm_questions_refused_total 2.0" in client.get("/metrics").text
    assert service.admission.num_taken == 0


@pytest.mark.parametrize("request_args, status, message", [
    ({"method": "POST", "url": "/v1/ask", "content": b'{"question": "unterminated'}, 422, "JSON"),
    ({"method": "POST", "url": "/v1/ask", "content": b"[1, 2]"}, 422, "valid dictionary"),
    ({"method": "GET", "url": "/v1/no-such-path"}, 404, "Not Found: GET /v1/no-such-path"),
    ({"method": "DELETE", "url": "/v1/ask"}, 405, "Method Not Allowed"),
])
def test_malformed_requests_and_unknown_paths_get_json_errors(journal, request_args, status, message):
    service = Service(Scripted(raises), scripted_lm(DyingEngine()), journal)
    with TestClient(create_app(service)) as client:
        response = client.request(**request_args, headers={"content-type": "application/json"})
    assert response.status_code == status and response.headers["content-type"] == "application/json"
    assert message in response.json()["error"], response.text


def test_an_unexpected_error_outside_a_question_is_a_json_500(journal):
    service = Service(Scripted(raises), scripted_lm(DyingEngine()), journal)
    with TestClient(create_app(service), raise_server_exceptions=False) as client:
        journal.close()  # the journal gone under the service: reading a query raises sqlite's error
        response = client.get("/v1/queries/b-0")
    assert response.status_code == 500 and response.headers["content-type"] == "application/json"
    assert "internal error at /v1/queries/b-0: ProgrammingError" in response.json()["error"], response.text
