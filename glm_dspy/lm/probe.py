"""What an OpenAI-compatible server is, asked once before any LLM call: its models, and whether it is vLLM.

    info = probe_server("http://localhost:8000", api_key="sk-...")
    info.model_ids        # GET /v1/models (OpenAI, vLLM, Ollama, llama.cpp, LiteLLM's proxy all answer it)
    info.vllm_version     # GET /version, which vLLM's server answers {"version": "0.32.0"}; None elsewhere

A server that cannot be reached, or refuses the API key, fails here with a `ServerConnectionError`
whose message is one line saying what was wrong and what to do; the CLI prints it as it is.
The URL may be given with or without its `/v1` (`base_url` drops it; OpenAI's paths are under /v1).
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx


class ServerConnectionError(RuntimeError):
    """The server could not be reached, refused the key, or is no OpenAI-compatible server (one line)."""


class NoModelListError(ServerConnectionError):
    """The server answered, but not GET /v1/models with an OpenAI model list (some gateways lack it)."""


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """One server as probed. `base_url` has no trailing "/" or "/v1"; `api_base` is its OpenAI root."""

    base_url: str
    model_ids: tuple[str, ...]
    vllm_version: str | None = None

    def __post_init__(self) -> None:
        assert self.base_url.startswith(("http://", "https://")) and not self.base_url.endswith(("/", "/v1")), \
            self.base_url

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/v1"

    @property
    def is_vllm(self) -> bool:
        return self.vllm_version is not None


def base_url_of(url: str) -> str:
    """`url` without trailing "/" and "/v1"; a ValueError, saying what to give, for anything not http(s)."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError(f"server URL {url!r} is not an http(s) URL; give e.g. http://localhost:8000")
    url = url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def probe_server(url: str, *, api_key: str | None = None, timeout_s: float = 5.0) -> ServerInfo:
    """GET /v1/models (required) and /version (vLLM's, optional) of the server at `url` (module doc)."""
    base = base_url_of(url)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(base_url=base, headers=headers, timeout=timeout_s) as client:
        models = _get(client, base, "/v1/models", api_key)
        if models.status_code != 200:
            raise NoModelListError(f"{base} answered HTTP {models.status_code} to GET /v1/models: "
                                   "it is not an OpenAI-compatible server, or the URL is wrong "
                                   "(give the server's root, e.g. http://localhost:8000)")
        try:
            model_ids = tuple(str(model["id"]) for model in models.json()["data"])
        except (ValueError, KeyError, TypeError):
            raise NoModelListError(f"{base}/v1/models did not answer an OpenAI model list "
                                   f"({models.text[:120]!r}); is this an OpenAI-compatible server?") from None
        return ServerInfo(base, model_ids, _vllm_version(client))


def _vllm_version(client: httpx.Client) -> str | None:
    """What GET /version says, where it answers as vLLM 0.32 does (serve/instrumentator/basic.py
    show_version: {"version": "0.32.0"}); None for any other answer or failure (not vLLM)."""
    try:
        body = client.get("/version").json()
    except (httpx.HTTPError, ValueError):
        return None
    if isinstance(body, dict) and set(body) == {"version"} and isinstance(body["version"], str):
        return body["version"]
    return None


def served_model(info: ServerInfo, model: str | None) -> str:
    """The model name to ask `info`'s server for: `model`, else the one it serves (one line if that is unclear)."""
    if model is not None:
        return model
    if len(info.model_ids) == 1:
        return info.model_ids[0]
    listed = ", ".join(info.model_ids[:10]) + (" ..." if len(info.model_ids) > 10 else "")
    raise ServerConnectionError(f"{info.base_url} serves {len(info.model_ids)} models ({listed or 'none'}); "
                                "name one with --model NAME (configure(model=NAME))")


def _get(client: httpx.Client, base: str, path: str, api_key: str | None) -> httpx.Response:
    try:
        response = client.get(path)
    except httpx.TimeoutException as error:
        raise ServerConnectionError(f"{base} did not answer GET {path} within {client.timeout.read:g} s "
                                    f"({type(error).__name__}); is it overloaded or still starting?") from None
    except httpx.HTTPError as error:
        raise ServerConnectionError(f"cannot reach a server at {base} ({type(error).__name__}: {error}); "
                                    "is it running, and is the URL right (e.g. http://localhost:8000)?") from None
    if response.status_code in (401, 403):
        remedy = "the key was refused: check --api-key" if api_key else "it needs an API key: pass --api-key KEY"
        raise ServerConnectionError(f"{base} answered HTTP {response.status_code} to GET {path}: {remedy} "
                                    "(configure(api_key=...))")
    return response
