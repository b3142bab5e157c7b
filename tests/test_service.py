"""glm-dspy serve: the HTTP API, its errors, its stream of steps, metrics, and the page in a real browser.

The program runs on a scripted engine (control flow: what the service sends and journals); the
restart of a killed service on the real engine is in test_service_engine.py."""

import json
import shutil
import threading

import dspy
import pytest

from glm_dspy.runs.journal import Journal
from glm_dspy.modules.glm import GLM
from glm_dspy.serving.service import MAX_QUESTION_CHARS, Service, create_app
from tests.test_batch import CALLS_PER_QUESTION, DyingEngine, scripted_lm

QUESTION = "In which year was Notes on the Analytical Engine published?"


@pytest.fixture
def service(tiny_graph, tmp_path):
    engine = DyingEngine()
    journal = Journal(tmp_path / "service.sqlite")
    service = Service(GLM(tiny_graph, readings=False, compiled=None, samples=0), scripted_lm(engine), journal, concurrency=3)
    service.engine = engine
    yield service
    journal.close()


@pytest.fixture
def client(service):
    from fastapi.testclient import TestClient

    with TestClient(create_app(service)) as client:
        yield client


def test_ask_answers_and_the_query_can_be_read_back_from_the_journal(client, service):
    response = client.post("/v1/ask", json={"question": QUESTION})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["answer"] == "1843" and body["num_calls"] == CALLS_PER_QUESTION and not body["resumed"]
    assert [s["agent"] for s in body["steps"]] == ["classify", "act", "reason"]
    state = client.get(f"/v1/queries/{body['query_id']}").json()
    assert state["status"] == "done" and state["answer"] == "1843" and state["journaled_calls"] == CALLS_PER_QUESTION
    assert service.engine.num_calls == CALLS_PER_QUESTION


def test_the_service_keeps_no_dspy_call_history(client, service):
    """The journal keeps every call; DSPy's history lists (10,000 entries globally, per LM and per
    module) grew a long-running service's memory (glm_dspy.bench.soak)."""
    from dspy.clients.base_lm import GLOBAL_HISTORY

    before = len(GLOBAL_HISTORY)
    assert client.post("/v1/ask", json={"question": QUESTION}).status_code == 200
    assert len(GLOBAL_HISTORY) == before and service.lm.history == []
    assert all(not p.history for _, p in service.program.named_predictors())


def test_concurrent_questions_share_the_engine_and_each_is_answered_once(client, service):
    results = []

    def ask(i):
        results.append(client.post("/v1/ask", json={"question": f"{QUESTION} ({i})"}).json())

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r["answer"] for r in results) == ["1843"] * 8
    assert len({r["query_id"] for r in results}) == 8
    assert service.engine.num_calls == 8 * CALLS_PER_QUESTION
    assert [s.status for s in service.journal.states()] == ["done"] * 8


def test_the_stream_sends_the_query_id_each_step_then_the_answer(client):
    with client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
        assert response.status_code == 200
        events = parse_events("".join(response.iter_text()))
    names = [name for name, _ in events]
    assert names == ["query", "step", "step", "step", "answer"], names
    assert [data["agent"] for name, data in events if name == "step"] == ["classify", "act", "reason"]
    assert events[1][1]["code"] is None and P1_YEAR_IN(events[2][1]["code"])
    assert events[2][1]["output"] == "1843"  # an act step is sent complete, with its snippet's output
    assert events[-1][1]["answer"] == "1843" and events[-1][1]["query_id"] == events[0][1]["query_id"]
    get = client.get("/v1/ask/stream", params={"question": QUESTION})
    assert [name for name, _ in parse_events(get.text)][-1] == "answer"


def P1_YEAR_IN(code):
    return code is not None and 'NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year")' in code


def parse_events(text):
    events = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line and not line.startswith(":"))
        if "event" in fields:
            events.append((fields["event"], json.loads(fields["data"])))
    return events


@pytest.mark.parametrize("body, status, message", [
    ({"question": ""}, 422, "question: the question is empty"),
    ({"question": "   "}, 422, "question: the question is empty"),
    ({"question": "x" * (MAX_QUESTION_CHARS + 1)}, 422, f"is {MAX_QUESTION_CHARS + 1:,} characters"),
    ({"asked": QUESTION}, 422, "question: Field required"),
    ({"question": 42}, 422, "question: Input should be a valid string"),
])
def test_bad_questions_get_a_422_that_says_what_is_wrong(client, service, body, status, message):
    response = client.post("/v1/ask", json=body)
    assert response.status_code == status and message in response.json()["error"], response.text
    assert service.engine.num_attempts == 0


def test_malformed_json_an_unknown_query_and_a_bad_stream_question_get_clear_4xx(client):
    response = client.post("/v1/ask", content=b'{"question": "unterminated', headers={"content-type": "application/json"})
    assert response.status_code == 422 and "JSON" in response.json()["error"]
    response = client.get("/v1/queries/no-such-query")
    assert response.status_code == 404 and "no query 'no-such-query'" in response.json()["error"]
    response = client.get("/v1/ask/stream", params={"question": ""})
    assert response.status_code == 422 and "empty" in response.json()["error"]


def test_health_and_metrics(client, service):
    assert client.get("/health").json() == {"status": "ok", "in_flight": 0}
    client.post("/v1/ask", json={"question": QUESTION})
    metrics = client.get("/metrics").text
    assert 'glm_questions_total{outcome="answered"} 1.0' in metrics
    assert "glm_question_latency_seconds_count 1.0" in metrics
    assert 'glm_tokens_total{kind="prompt"} 3.0' in metrics  # the scripted engine counts 1 a call
    assert "glm_questions_in_flight 0.0" in metrics and "glm_prefix_cache_hit_rate" in metrics


def test_a_service_started_on_a_journal_with_unfinished_queries_finishes_them(tiny_graph, tmp_path):
    from fastapi.testclient import TestClient

    path = tmp_path / "service.sqlite"
    with Journal(path) as journal:  # what a killed service left: one query never started, one cut off
        pending, cut_off = (journal.submit([f"{QUESTION} ({i})"], batch=f"b{i}")[0] for i in range(2))
        journal.start(cut_off)
    engine = DyingEngine()
    with Journal(path) as journal:
        service = Service(GLM(tiny_graph, readings=False, compiled=None, samples=0), scripted_lm(engine), journal)
        app = create_app(service)
        with TestClient(app) as client:
            assert sorted(app.state.resumed) == sorted([pending, cut_off])
        # leaving the client shuts the service down, after the resumed queries finish
        states = {s.id: s for s in journal.states()}
    assert states[pending].status == states[cut_off].status == "done"
    assert states[pending].runs == 1 and states[cut_off].runs == 2 and states[cut_off].resumed
    assert engine.num_calls == 2 * CALLS_PER_QUESTION


def test_the_page_asks_and_shows_the_steps_and_the_answer_in_a_real_browser(service, tmp_path):
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path):
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    import uvicorn
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.test_lm import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(service), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=DriverService(driver_path), options=options)
    try:
        WebDriverWait(browser, 30).until(lambda _: server.started)
        browser.get(f"http://127.0.0.1:{port}/")
        assert browser.title == "GLM: ask the graph"
        browser.find_element(By.ID, "question").send_keys(QUESTION)
        browser.find_element(By.ID, "submit").click()
        WebDriverWait(browser, 60).until(expected_conditions.text_to_be_present_in_element((By.ID, "answer"), "1843"))
        assert browser.find_element(By.ID, "answer").text == "Answer: 1843"
        steps = browser.find_elements(By.CSS_SELECTOR, "#steps .step")
        assert [s.find_element(By.TAG_NAME, "strong").text for s in steps] == ["classify", "act", "reason"]
        assert "Notes on the Analytical Engine" in steps[1].find_element(By.CLASS_NAME, "code").text
        assert steps[1].find_element(By.CLASS_NAME, "output").text == "-> 1843"
        assert "3 LLM calls" in browser.find_element(By.ID, "status").text
        assert "Notes on the Analytical Engine" in browser.find_element(By.ID, "notebook").text  # the vertex chunk
    finally:
        browser.quit()
        server.should_exit = True
        thread.join(timeout=10)
