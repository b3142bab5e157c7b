"""The page's answer: each step once, a query that answered not shaded failed, and the evidence
drawn with the answer's node marked; on the stream and in a real browser (Debian's chromium).

GLM acts in Cypher on the Nobel graph; its LM is DummyLM (the two queries it "writes" are
scripted: the first fails, the second answers), as in test_text2cypher.py."""

import os
import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest
from dspy.utils import DummyLM

from glm_dspy.runs.journal import Journal
from glm_dspy.modules.glm import GLM
from glm_dspy.serving.service import Service, create_app
from tests.test_service import parse_events

QUESTION = "In which city was Marie Curie born?"
WRONG = "MATCH (l:laureate {name: 'marie curie'}) RETURN l.nope"
BIRTH = "MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c:city) RETURN c.name"
AGENTS = ["cypher", "graph", "cypher", "graph", "graph"]  # a failed query and its check, then the one that answered
FAILED = [True, True, False, False, False]
# where the browser test leaves its screenshot (git-ignored); GLM_TEST_ARTIFACTS moves it
ARTIFACTS = Path(os.environ.get("GLM_TEST_ARTIFACTS", "runs/artifacts"))


@pytest.fixture
def service(nobel_graph, tmp_path):
    program = GLM(nobel_graph, readings=False, compiled=None, act="cypher")
    with Journal(tmp_path / "service.sqlite") as journal:
        yield Service(program, DummyLM([{"cypher": WRONG}, {"cypher": BIRTH}]), journal, concurrency=1,
                      graph=nobel_graph)


def test_the_stream_tells_each_step_once_as_it_ended_and_the_answer_carries_its_evidence(service):
    from fastapi.testclient import TestClient

    with TestClient(create_app(service)) as client, \
            client.stream("POST", "/v1/ask/stream", json={"question": QUESTION}) as response:
        events = parse_events("".join(response.iter_text()))
    steps = [data for name, data in events if name == "step"]
    answer = events[-1][1]
    assert [s["agent"] for s in steps] == [s["agent"] for s in answer["steps"]] == AGENTS
    assert [s["ok"] for s in steps if s["agent"] == "cypher"] == [False, True]  # as they ended, not as they began
    assert answer["answer"] == "Warsaw" and answer["evidence"]["kind"] == "cypher"
    assert [(n["id"], n["is_answer"]) for n in answer["evidence"]["nodes"]] == [("city_warsaw_poland", True),
                                                                              ("l6", False)]
    assert answer["evidence"]["edges"] == [{"source": "l6", "relation": "birth_city", "target": "city_warsaw_poland"}]
    if shutil.which("dot"):
        assert 'class="node answer"' in answer["evidence_svg"]


@contextmanager
def page(service):
    """A browser on the page the service serves (skipped without chromium, chromedriver and dot)."""
    chromium, driver_path = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver_path and shutil.which("dot")):
        pytest.skip("needs Debian's chromium, chromium-driver and graphviz (make browser graphviz)")
    import uvicorn
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service as DriverService
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.test_lm import free_port

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(service), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1200,1400"):
        options.add_argument(argument)
    browser = webdriver.Chrome(service=DriverService(driver_path), options=options)
    try:
        WebDriverWait(browser, 30).until(lambda _: server.started)
        browser.get(f"http://127.0.0.1:{port}/")
        yield browser
    finally:
        browser.quit()
        server.should_exit = True
        thread.join(timeout=10)


def test_the_page_draws_the_evidence_and_lists_each_step_once(service):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    with page(service) as browser:
        browser.find_element(By.ID, "question").send_keys(QUESTION)
        browser.find_element(By.ID, "submit").click()
        WebDriverWait(browser, 90).until(
            lambda b: b.find_element(By.ID, "evidence-drawing").get_attribute("data-done") == "true")
        assert browser.find_element(By.ID, "answer").text == "Answer: Warsaw"
        steps = browser.find_elements(By.CSS_SELECTOR, "#steps .step")
        assert [s.find_element(By.TAG_NAME, "strong").text for s in steps] == AGENTS
        assert ["failed" in s.get_attribute("class").split() for s in steps] == FAILED
        assert BIRTH in steps[2].find_element(By.CLASS_NAME, "code").text  # the query that answered
        answers = browser.find_elements(By.CSS_SELECTOR, "#evidence-drawing svg g.node.answer")
        assert [a.find_element(By.TAG_NAME, "title").get_attribute("textContent") for a in answers] \
            == ["city_warsaw_poland"]
        assert "Warsaw" in answers[0].text
        assert len(browser.find_elements(By.CSS_SELECTOR, "#evidence-drawing svg g.edge")) == 1
        assert "the answer: Warsaw" in browser.find_element(By.ID, "evidence-note").text
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        screenshot = ARTIFACTS / "page-evidence.png"
        browser.save_screenshot(str(screenshot))
        print(f"screenshot: {screenshot.resolve()}")


def test_an_answer_read_by_a_snippet_carries_the_node_its_feature_was_read_off(tiny_graph, tmp_path):
    from fastapi.testclient import TestClient

    from tests.test_batch import DyingEngine, scripted_lm
    from tests.test_service import QUESTION as YEAR_QUESTION

    program = GLM(tiny_graph, readings=False, compiled=None, samples=0)
    with Journal(tmp_path / "service.sqlite") as journal, \
            TestClient(create_app(Service(program, scripted_lm(DyingEngine()), journal, graph=tiny_graph))) as client:
        body = client.post("/v1/ask", json={"question": YEAR_QUESTION}).json()
    assert body["answer"] == "1843" and body["evidence"]["kind"] == "snippet"
    assert body["evidence"]["nodes"] == [{"id": "p1", "type": "paper", "name": "Notes on the Analytical Engine",
                                          "is_answer": True, "detail": "year: 1843"}]
