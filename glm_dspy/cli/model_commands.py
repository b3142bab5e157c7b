"""`glm-dspy model`: the registered local LLMs (glm_dspy/lm/models.py): `list` them, `fetch` one."""

from __future__ import annotations

from glm_dspy.cli.command import add_command


def cmd_model_list(args) -> int:
    """One line per registered model: name, GGUF size, whether it is fetched (and where), the default marked."""
    from glm_dspy.lm.models import DEFAULT_MODEL, MODELS, cache_root, fetched_folder

    width = max(map(len, MODELS))
    print(f"{'model':<{width}}  {'size':>8}  fetched")
    for name, spec in MODELS.items():
        folder = fetched_folder(name)
        shown = f"{name} *" if name == DEFAULT_MODEL else name
        print(f"{shown:<{width + 2}}{spec.size / 1e9:>6.2f} GB  {f'yes: {folder}' if folder else 'no'}")
    print(f"* the default model; cache: {cache_root()} (GLM_DSPY_CACHE); glm-dspy model fetch NAME fetches one")
    return 0


def cmd_model_fetch(args) -> int:
    from glm_dspy.lm.models import fetch_model

    print(fetch_model(args.name))
    return 0


def add_model_commands(commands) -> None:
    from glm_dspy.lm.models import DEFAULT_MODEL, MODELS  # the registry only: importing it loads no model

    model = add_command(commands, "model", "list and fetch the local LLMs")
    model.set_defaults(run=lambda args: model.print_help() or 0)  # `glm-dspy model` alone: its help
    model_commands = model.add_subparsers(dest="model_command", metavar="COMMAND", title="commands")
    listed = add_command(model_commands, "list", "the registered models, and whether each is fetched here")
    listed.set_defaults(run=cmd_model_list)
    fetch = add_command(model_commands, "fetch", "download and convert a registered model (offline-safe)")
    fetch.add_argument("name", nargs="?", default=DEFAULT_MODEL, choices=list(MODELS), metavar="NAME",
                       help=f"registered model name: {', '.join(MODELS)}")
    fetch.set_defaults(run=cmd_model_fetch)
