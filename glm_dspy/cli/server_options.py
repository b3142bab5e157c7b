"""The LM a command runs on: --model, --server, --server-kind, --api-key (glm_dspy/lm/server_lm.py)."""

from __future__ import annotations


def add_server_options(command) -> None:
    command.add_argument("--model", default=None,
                         help="registered model name, HF folder or hub id (default: GLM_MODEL); on a --server that "
                              "is not GLM's engine, the served model's name (default: the one it serves)")
    command.add_argument("--server", default=None,
                         help="URL of an OpenAI-compatible server: vLLM (GLM's token-id engine, cache hints) or any "
                              "other (OpenAI, Ollama, llama.cpp: chat only, no hints) (default: in-process engine)")
    command.add_argument("--server-kind", choices=("auto", "glm", "openai"), default="auto",
                         help="glm: GLM's engine over a vLLM server serving --model; openai: DSPy's generic client; "
                              "auto: glm where the server is vLLM serving the local model, else openai")
    command.add_argument("--api-key", default=None, help="API key for --server (default: OPENAI_API_KEY, else none)")


def server_options(args) -> dict:
    """The keyword arguments `configure` takes from add_server_options' flags (model aside)."""
    return {"server": args.server, "server_kind": args.server_kind, "api_key": args.api_key}
