"""`server_lm`: the LM for a server URL, GLM's token-id engine where the server allows it, else DSPy's generic one.

    server_kind="glm"     GLM's engine over HTTP (glm_dspy/lm/server.py): a vLLM server serving the
                          model we hold locally (same tokenizer); token-id prompts, cache hints,
                          grammars, prefix accounting. Anything else is an error saying why.
    server_kind="openai"  DSPy's `dspy.LM("openai/<model>", api_base=...)` (glm_dspy/lm/generic.py):
                          any OpenAI-compatible chat server; chat messages only (backend.py GENERIC).
    server_kind="auto"    "glm" where the server says it is vLLM (GET /version), the local model
                          (`model`, default GLM_MODEL or the default model) is already on disk, and the
                          server tokenizes as it does (POST /tokenize); else "openai". Nothing is
                          downloaded to decide.

Either way the server is probed first (glm_dspy/lm/probe.py), so a wrong URL or a refused key fails
here, in one line. The API key is `api_key`, else OPENAI_API_KEY, else none.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

import dspy
from dspy import lm15

from glm_dspy.lm.generic import generic_lm
from glm_dspy.lm.probe import ServerConnectionError, ServerInfo, probe_server

logger = logging.getLogger(__name__)

SERVER_KINDS = ("auto", "glm", "openai")


def server_lm(server: str, model: str | None, *, server_kind: str = "auto", api_key: str | None = None,
              timeout_s: float, **lm_kwargs) -> tuple[dspy.LM | None, tuple | None]:
    """(the generic dspy.LM, None), or (None, (ServerTransport, PromptRenderer)) for GLM's engine
    to wrap (factory.make_lm). `lm_kwargs`: max_tokens, temperature, cache, num_retries."""
    if server_kind not in SERVER_KINDS:
        raise ValueError(f"server_kind must be one of {', '.join(SERVER_KINDS)}, got {server_kind!r}")
    api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
    info = probe_server(server, api_key=api_key, timeout_s=min(timeout_s, 10.0))
    if server_kind == "openai" or (server_kind == "auto" and not info.is_vllm):
        return generic_lm(info, model, api_key=api_key, timeout_s=timeout_s, **lm_kwargs), None
    if not info.is_vllm:
        raise ServerConnectionError(f"{info.base_url} is not a vLLM server (it does not answer GET /version as vLLM "
                                    "does); --server-kind glm needs one: start it with python -m "
                                    "glm_dspy.backends.vllm_priority.serve, or use --server-kind openai")
    folder = _local_folder(model)
    if folder is None:
        if server_kind == "glm":
            raise ServerConnectionError(f"--server-kind glm renders prompts with the local model's tokenizer, and "
                                        f"{model or 'the default model'} is not on disk: glm-dspy model fetch, or "
                                        "--model FOLDER (the folder the server was started with)")
        return generic_lm(info, model, api_key=api_key, timeout_s=timeout_s, **lm_kwargs), None
    transport = _glm_transport(info, folder, api_key, timeout_s, strict=server_kind == "glm")
    if transport is None:
        return generic_lm(info, _served_name(info, model), api_key=api_key, timeout_s=timeout_s, **lm_kwargs), None
    return None, transport


def _glm_transport(info: ServerInfo, folder: str, api_key: str | None, timeout_s: float, *, strict: bool):
    """(ServerTransport, PromptRenderer) on `info`'s server for the model in `folder`; None (not
    `strict`) where the server serves several models or another tokenizer."""
    from glm_dspy.lm.render import PromptRenderer
    from glm_dspy.lm.server import ServerTransport

    renderer = PromptRenderer.from_pretrained(folder)
    try:
        return ServerTransport(info.base_url, renderer.tokenizer, timeout_s=timeout_s, api_key=api_key), renderer
    except lm15.LM15Error as error:  # several models, another tokenizer, or the server went away since the probe
        if strict or not isinstance(error, lm15.ConfigurationError):
            raise ServerConnectionError(str(error)) from None
        logger.info("%s: GLM's token-id engine does not fit (%s); speaking to it as an OpenAI server", info.base_url,
                    error)
        return None


def _local_folder(model: str | None) -> str | None:
    """The local HF folder of `model` (a registered name already fetched, or a folder); None where
    it is not on disk (a served model's name, a hub id): nothing is downloaded."""
    from glm_dspy.lm.models import DEFAULT_MODEL, MANIFEST_NAME, MODELS, cache_root, fetch_model

    name = model or os.environ.get("GLM_MODEL") or DEFAULT_MODEL
    if name in MODELS:
        fetched = (cache_root() / "models" / name / "hf" / MANIFEST_NAME).is_file()
        return str(fetch_model(name, progress=False)) if fetched else None
    return str(Path(name).expanduser()) if Path(name).expanduser().is_dir() else None


def _served_name(info: ServerInfo, model: str | None) -> str | None:
    """The name to ask a server for when the local model (a registered name or folder) did not
    fit: `model` where the server lists it, else None (the one it serves, probe.served_model)."""
    return model if model in info.model_ids else None
