"""A scripted OpenAI-compatible chat server on a free local port, for tests of the generic LM path.

    with FakeOpenAIServer(replies=["[[ ## answer ## ]]\\nParis\\n\\n[[ ## completed ## ]]"]) as server:
        server.url, server.requests          # every request as (method, path, headers, JSON body)

It answers GET /v1/models (one model, "fake-model"), GET /version only when `is_vllm` (as vLLM's
server does), POST /v1/chat/completions with the next reply (the last one repeats) and a fixed
`usage`; with `api_key` set, /v1/* without that Bearer key gets vLLM's 401.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "fake-model"
USAGE = {"prompt_tokens": 40, "completion_tokens": 7, "total_tokens": 47,
         "prompt_tokens_details": {"cached_tokens": 32}}


class FakeOpenAIServer:
    def __init__(self, replies: list[str] | None = None, *, is_vllm: bool = False, api_key: str | None = None):
        self.replies = list(replies or ["[[ ## answer ## ]]\nParis\n\n[[ ## completed ## ]]"])
        self.is_vllm, self.api_key = is_vllm, api_key
        self.requests: list[tuple[str, str, dict, dict | None]] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}"

    def chat_bodies(self) -> list[dict]:
        return [body for method, path, _, body in self.requests if path == "/v1/chat/completions"]

    def __enter__(self) -> "FakeOpenAIServer":
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _refused(self) -> bool:
                if fake.api_key is None or not self.path.startswith("/v1"):
                    return False
                return self.headers.get("Authorization") != f"Bearer {fake.api_key}"

            def do_GET(self) -> None:
                fake.requests.append(("GET", self.path, dict(self.headers), None))
                if self._refused():
                    return self._send(401, {"error": "Unauthorized"})
                if self.path == "/v1/models":
                    return self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
                if self.path == "/version" and fake.is_vllm:
                    return self._send(200, {"version": "0.32.0"})
                self._send(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                fake.requests.append(("POST", self.path, dict(self.headers), body))
                if self._refused():
                    return self._send(401, {"error": "Unauthorized"})
                if self.path != "/v1/chat/completions":
                    return self._send(404, {"detail": "Not Found"})
                reply = fake.replies.pop(0) if len(fake.replies) > 1 else fake.replies[0]
                self._send(200, {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": MODEL,
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": reply}}],
                                 "usage": USAGE})

        return Handler
