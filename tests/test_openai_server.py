"""GLM on a stock vLLM OpenAI server through DSPy's own client, not GLM's token-id engine.

The default model (Qwen2.5-Coder-0.5B, fetched) served by `python -m vllm.entrypoints.openai.api_server`
with an API key, spoken to as any OpenAI-compatible server is: `dspy.LM("openai/<served name>",
api_base=...)` given to `glm_dspy.configure(lm=...)`. Slow (the server starts in ~60-80 s on 2
busy cores, the question's one call takes ~10-40 s): marked `slow`, run by `make test`, skipped
with GLM_SKIP_SLOW=1.
"""

import os
import re
import socket
import subprocess
import sys
import time

import httpx
import pytest

from tests.children import guarded

pytestmark = pytest.mark.slow

SERVED = "qwen2.5-coder-0.5b"
KEY = "x"
DB = "data/nobel"  # `make test` builds it (the Makefile's graph target)
QUESTION = "When did Niels Bohr die?"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_process(tmp_path_factory):
    """Stock vLLM's OpenAI server on a free port, asking for KEY, started (not yet up): (process, URL, log)."""
    from glm_dspy.lm.models import DEFAULT_MODEL, fetch_model

    folder = fetch_model(DEFAULT_MODEL, progress=False)
    port, log = free_port(), tmp_path_factory.mktemp("openai-server") / "vllm.log"
    command = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder),
               "--served-model-name", SERVED, "--api-key", KEY, "--host", "127.0.0.1", "--port", str(port),
               "--max-model-len", "4096", "--enforce-eager", "--generation-config", "vllm",
               "--enable-prefix-caching", "--enable-prompt-tokens-details", "--disable-uvicorn-access-log"]
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "HF_HUB_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
           "VLLM_ENABLE_V1_MULTIPROCESSING": "0"}  # the engine core in the server's process: one process fewer to start
    with open(log, "w") as out:
        process = subprocess.Popen(guarded(command), stdout=out, stderr=subprocess.STDOUT, env=env,
                                   start_new_session=True)
    try:
        yield process, f"http://127.0.0.1:{port}", log
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def openai_server(server_process) -> str:
    """The server's URL, once it lists its model (what a test does meanwhile overlaps its start)."""
    process, url, log = server_process
    deadline = time.monotonic() + 240
    while not _serves(url):
        if process.poll() is not None or time.monotonic() > deadline:
            pytest.fail(f"vLLM's OpenAI server did not come up (exit {process.poll()}); log tail:\n"
                        + log.read_text()[-3000:])
        time.sleep(1)
    return url


def _serves(url: str) -> bool:
    try:
        return httpx.get(f"{url}/v1/models", headers={"Authorization": f"Bearer {KEY}"}, timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def num_requests(url: str) -> int:
    """Requests the server finished, from its Prometheus /metrics (vllm:request_success_total)."""
    text = httpx.get(f"{url}/metrics", timeout=10).text
    return round(sum(float(value) for value in re.findall(r"^vllm:request_success_total\{[^}]*\} (\S+)$", text, re.M)))


@pytest.fixture(scope="module")
def program():
    """GLM over the Nobel graph, ready while the server starts: the hand-written agents (a compiled
    program is loaded only for GLM's engine's model string), readings off so the question goes to
    Algorithm 1 (the readings lever could answer it with no LLM call), and the Cypher example bank
    embedded now (the first question would do it: ~10-25 s of CPU on this machine)."""
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM

    if not os.path.isdir(DB):
        pytest.skip(f"no {DB}: make graph (or glm-dspy build nobel --db {DB})")
    with open_graph(DB) as graph:
        glm = GLM(graph, readings=False, compiled=None)
        glm.cypher.form_similarity(QUESTION)
        yield glm


def test_glm_answers_through_dspys_client_on_a_stock_vllm_server(server_process, program, openai_server):
    import dspy

    import glm_dspy

    lm = dspy.LM(f"openai/{SERVED}", api_base=f"{openai_server}/v1", api_key=KEY, cache=False, temperature=0.0,
                 max_tokens=1024)
    glm_dspy.configure(lm=lm)
    try:
        before = num_requests(openai_server)
        prediction = program(question=QUESTION)
    finally:
        dspy.configure(lm=None)
    agents = [step for step in prediction.steps if step["agent"] != "graph"]
    assert agents and prediction.num_calls >= 1, prediction.steps
    assert all(step["backend"] == "generic" and step["hints_sent"] is False for step in agents), agents
    assert all(step["prompt_tokens"] > 0 and step["completion_tokens"] > 0 for step in agents), agents
    assert num_requests(openai_server) - before == prediction.num_calls  # every call went to this server
    # a one-hop lookup, Text2Cypher's first query answers it (tests/test_end_to_end.py asks it in-process)
    assert "1962-11-18" in prediction.answer, prediction.steps


def test_a_server_that_wants_the_key_says_so_in_one_line(openai_server):
    import glm_dspy
    from glm_dspy.lm.probe import ServerConnectionError

    with pytest.raises(ServerConnectionError) as raised:
        glm_dspy.configure(server=openai_server, server_kind="openai", api_key="wrong")
    assert "\n" not in str(raised.value) and "HTTP 401" in str(raised.value) and "--api-key" in str(raised.value)
