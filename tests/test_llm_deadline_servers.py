"""The question's deadline over LLM calls to a server (issue 47): GLM's engine over HTTP
(glm_dspy/lm/server.py) and DSPy's generic client (glm_dspy/lm/deadline_lm.py). The server is a
real HTTP server that is slow the way an overloaded one is: it answers at once, then sends its
reply a blank at a time, so no per-read timeout ever fires; only a bound on the whole call ends it.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dspy
import pytest
from dspy import lm15

from glm_dspy.graphs.deadline import DeadlinePassed, deadline
from glm_dspy.lm.engine import VllmEngine
from glm_dspy.lm.generic import generic_lm
from glm_dspy.lm.models import resolve_model
from glm_dspy.lm.probe import probe_server
from glm_dspy.lm.render import PromptRenderer
from glm_dspy.lm.server import ServerTransport
from glm_dspy.modules.glm import GLM
from glm_dspy.runs.steps import TIME_LIMIT

TRICKLE_S = 0.1  # a blank every TRICKLE_S: far inside any read timeout


class TricklingServer:
    """GET /v1/models: one model. POST /v1/completions and /v1/chat/completions: headers at once,
    then a blank (leading JSON whitespace, or an SSE comment line) every TRICKLE_S until the
    server stops; the handler notes when the client hung up (`num_hung_up`)."""

    def __init__(self, stall_after_s: float | None = None):
        self.stall_after_s = stall_after_s  # then no byte more, the connection held open (a hung server)
        self.num_posts = 0
        self.num_hung_up = 0
        self.hung_up = threading.Event()
        self.stopping = threading.Event()  # set on exit: every reply in flight ends (its connection closed)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def __enter__(self):
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc):
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.path != "/v1/models":
                    self.send_error(404)
                    return
                data = json.dumps({"object": "list", "data": [{"id": "slow-model", "object": "model"}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.num_posts += 1
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                blank = b": still working\n\n" if body.get("stream") else b" "
                stall_at = None if server.stall_after_s is None else time.monotonic() + server.stall_after_s
                try:
                    while not server.stopping.is_set():
                        if stall_at is None or time.monotonic() < stall_at:
                            self.wfile.write(b"%x\r\n%s\r\n" % (len(blank), blank))
                            self.wfile.flush()
                        elif peer_closed(self.connection):
                            raise ConnectionResetError  # stalled: the client hung up
                        time.sleep(TRICKLE_S)
                except OSError:  # the client closed the connection
                    server.num_hung_up += 1
                    server.hung_up.set()

        return Handler


def peer_closed(connection: socket.socket) -> bool:
    """Whether the other end has closed `connection` (read nothing from it)."""
    try:
        return connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
    except BlockingIOError:  # open, nothing sent
        return False
    except OSError:
        return True


@pytest.fixture(scope="module")
def renderer():
    return PromptRenderer.from_pretrained(resolve_model(None))


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize("stall_after_s", [None, 2.5])
def test_a_call_to_a_trickling_vllm_server_ends_at_the_deadline_and_hangs_up(renderer, stream, stall_after_s):
    """None: a blank every TRICKLE_S to the end. 2.5: blanks, then silence from 2.5 s on: the read
    blocked then ends at the 3 s deadline, not at a per-read timeout set when the call began."""
    with TricklingServer(stall_after_s) as server:
        transport = ServerTransport(server.url, timeout_s=600.0)
        engine = VllmEngine(transport, renderer, model="slow", timeout_s=None)
        request = lm15.Request(model="slow", messages=[lm15.Message.user("hi")])
        started = time.monotonic()
        with deadline(started + 3.0), pytest.raises(DeadlinePassed, match="during an LLM call"):
            if stream:
                list(engine.stream(request))
            else:
                engine.complete(request)
        assert time.monotonic() - started <= 3.0 + 1
        assert server.hung_up.wait(5) and server.num_posts == 1  # the request was aborted, not left running
        transport.close()


def test_glm_on_a_trickling_openai_server_ends_at_its_deadline_with_the_time_limit(tiny_graph):
    with TricklingServer() as server:
        lm = generic_lm(probe_server(server.url), timeout_s=600.0, cache=False)
        program = GLM(tiny_graph, readings=False, compiled=None, samples=0, question_timeout_s=2.0)
        started = time.monotonic()
        with dspy.context(lm=lm):
            prediction = program(question="Who wrote the paper on graphs?")
        elapsed = time.monotonic() - started
        assert elapsed <= 2.0 + 1, elapsed
        assert prediction.error_category == TIME_LIMIT and not prediction.answer
        assert server.num_posts == 1  # none started, nor asked again, after the deadline


def test_no_call_to_the_generic_client_starts_after_the_deadline():
    with TricklingServer() as server:
        lm = generic_lm(probe_server(server.url), timeout_s=600.0, cache=False)
        with deadline(time.monotonic() - 1), pytest.raises(DeadlinePassed, match="before an LLM call"):
            lm("hi")
        assert server.num_posts == 0
