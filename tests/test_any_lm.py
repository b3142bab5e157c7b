"""Any dspy.LM, any OpenAI-compatible server: probing, the generic path, grammars, clear failures.

Against a scripted local server (tests/fake_openai.py), no model: what GLM sends a generic server
(chat messages, no cache hints), what its steps record, and how a wrong URL or a refused key reads.
The same path against a real vLLM OpenAI server is tests/test_openai_server.py.
"""

import logging
import socket

import dspy
import pytest

import glm_dspy
from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.lm.backend import GENERIC, backend_of
from glm_dspy.lm.probe import ServerConnectionError, base_url_of, probe_server
from glm_dspy.lm.structured import with_grammar
from glm_dspy.modules.calls import call_agent
from tests.fake_openai import MODEL, USAGE, FakeOpenAIServer

GRAMMAR = 'root ::= "[[ ## answer ## ]]\\n" [a-z]+'


def closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}"


@pytest.fixture(autouse=True)
def no_lm(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # the key fallback (server_lm.py) must not leak in
    yield
    dspy.configure(lm=None)


def test_base_url_drops_v1_and_refuses_what_is_not_http():
    assert base_url_of("http://h:8000/v1/") == base_url_of("http://h:8000") == "http://h:8000"
    with pytest.raises(ValueError, match="not an http"):
        base_url_of("localhost:8000")


def test_probe_finds_the_models_and_whether_the_server_is_vllm():
    with FakeOpenAIServer(is_vllm=True) as vllm, FakeOpenAIServer() as other:
        assert probe_server(vllm.url + "/v1").vllm_version == "0.32.0"
        info = probe_server(other.url)
    assert info.model_ids == (MODEL,) and not info.is_vllm and info.api_base == other.url + "/v1"


def test_a_wrong_url_is_one_clear_line():
    url = closed_port_url()
    with pytest.raises(ServerConnectionError) as raised:
        glm_dspy.configure(server=url, server_kind="openai")
    message = str(raised.value)
    assert "\n" not in message and f"cannot reach a server at {url}" in message and "is it running" in message
    with pytest.raises(ServerConnectionError, match="cannot reach"):  # a dspy.LM given whole is probed too
        glm_dspy.configure(lm=dspy.LM("openai/x", api_base=url + "/v1", api_key="k"))


def test_a_server_that_wants_a_key_says_so():
    with FakeOpenAIServer(api_key="secret") as server:
        with pytest.raises(ServerConnectionError, match="HTTP 401 .*it needs an API key: pass --api-key"):
            glm_dspy.configure(server=server.url)
        with pytest.raises(ServerConnectionError, match="HTTP 401 .*the key was refused: check --api-key"):
            glm_dspy.configure(server=server.url, api_key="wrong")
        lm = glm_dspy.configure(server=server.url, api_key="secret")
        assert lm.model == f"openai/{MODEL}"


def test_auto_takes_a_server_that_is_not_vllm_as_generic_and_steps_say_so():
    with FakeOpenAIServer() as server:
        lm = glm_dspy.configure(server=server.url)  # auto: no /version, so not GLM's engine
        with dspy.context(adapter=GLMAdapter()):
            prediction, step = call_agent("answer", dspy.Predict("question -> answer"), question="Capital of France?")
    assert backend_of(lm).kind == GENERIC and prediction.answer == "Paris"
    assert (step.backend, step.hints_sent) == ("generic", False)
    assert (step.prompt_tokens, step.cached_tokens, step.completion_tokens) == (
        USAGE["prompt_tokens"], USAGE["prompt_tokens_details"]["cached_tokens"], USAGE["completion_tokens"])
    [body] = server.chat_bodies()
    assert body["model"] == MODEL and body["messages"][-1]["role"] == "user" and body["temperature"] == 0.0
    assert "vllm_xargs" not in body and "prompt" not in body  # chat messages, no token ids, no cache hints


def test_glm_kind_refuses_a_server_that_is_not_vllm():
    with FakeOpenAIServer() as server, pytest.raises(ServerConnectionError, match="not a vLLM server"):
        glm_dspy.configure(server=server.url, server_kind="glm")


def test_a_grammar_reaches_a_vllm_server_as_structured_outputs_and_no_other(caplog):
    reply = "[[ ## answer ## ]]\nparis\n\n[[ ## completed ## ]]"
    with FakeOpenAIServer([reply], is_vllm=True) as vllm, FakeOpenAIServer([reply]) as other:
        for server in (vllm, other):
            lm = glm_dspy.configure(server=server.url, server_kind="openai")
            with dspy.context(adapter=GLMAdapter()), caplog.at_level(logging.WARNING, "glm_dspy.lm.backend"):
                dspy.Predict("question -> answer")(question="Capital?", config=with_grammar(None, GRAMMAR))
    assert vllm.chat_bodies()[0]["structured_outputs"] == {"grammar": GRAMMAR}
    assert "structured_outputs" not in other.chat_bodies()[0] and "metadata" not in other.chat_bodies()[0]
    assert any("not constrained by a grammar" in record.getMessage() for record in caplog.records)


def test_configure_takes_any_dspy_lm_as_it_is():
    with FakeOpenAIServer(is_vllm=True) as server:
        given = dspy.LM(f"openai/{MODEL}", api_base=server.url + "/v1", api_key="x", cache=False)
        assert glm_dspy.configure(lm=given) is given and dspy.settings.lm is given
        assert backend_of(given).grammar_route == "extra_body"  # the probe found vLLM
        by_other_name = dspy.LM(f"openai/{MODEL}", base_url=server.url + "/v1/", api_key="x", cache=False)
        assert backend_of(glm_dspy.configure(lm=by_other_name)).grammar_route == "extra_body"
    with pytest.raises(TypeError, match="takes the LM as it is"):
        glm_dspy.configure(lm=given, server="http://localhost:8000")


def test_cli_wrong_server_url_is_one_error_line(tiny_db, capsys):
    from glm_dspy import cli

    url = closed_port_url()
    assert cli.main(["ask", "Who wrote Notes?", "--db", str(tiny_db), "--server", url]) == 1  # ran, and failed
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("glm-dspy: error:")]
    assert len(lines) == 1 and f"cannot reach a server at {url}" in lines[0], lines


def test_cli_asks_a_generic_server_with_its_key_and_model(tiny_db, capsys):
    from glm_dspy import cli

    with FakeOpenAIServer(api_key="secret") as server:
        # a question that names nothing: no reading answers it, so GLM asks the model (Algorithm 1)
        cli.main(["ask", "What is it?", "--db", str(tiny_db), "--server", server.url, "--api-key", "secret",
                  "--server-kind", "openai", "--model", MODEL, "--glm-program", "none"])
    chats = [(headers, body) for method, path, headers, body in server.requests if path == "/v1/chat/completions"]
    assert chats and all(headers["Authorization"] == "Bearer secret" and body["model"] == MODEL
                         for headers, body in chats)


def test_a_key_or_kind_without_a_server_is_refused():
    from glm_dspy.lm import make_lm

    with pytest.raises(ValueError, match="are for a --server"):
        make_lm(api_key="k")
    with pytest.raises(ValueError, match="are for a --server"):
        make_lm(server_kind="openai")
