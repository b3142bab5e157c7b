"""Compiled GLM programs on disk, and which one a GLM loads by default.

A compiled program is two files: `<name>.json`, DSPy's state of the program (each agent's
demos and instructions; `dspy.Module.save`, state only, no pickle), and `<name>.train.json`
beside it, its metadata: the "model" it was compiled for (dspy.LM's model string, e.g.
"vllm/qwen2.5-coder-0.5b"), "dataset", "optimizer", "seed" and "train_qids" (the questions
it trained on, which `glm-dspy eval` leaves out).

The default program of a model is `glm_dspy/compiled/glm-<model>.json` (<model>: the model
string after its last "/"), used only when its metadata names exactly the configured model;
a file without metadata, or compiled for another model, is never loaded by default (it can
still be loaded by path). Nothing is read at import time.
"""

from __future__ import annotations

import json
from pathlib import Path

COMPILED_DIR = Path(__file__).parent  # glm_dspy/compiled/, beside this module
DEFAULT = "default"  # GLM(compiled=DEFAULT): the shipped program of the configured model, if any


def metadata_path(program_path: Path | str) -> Path:
    return Path(program_path).with_suffix(".train.json")


def read_metadata(program_path: Path | str) -> dict:
    """The program's metadata ({} when it has none or it is unreadable)."""
    try:
        metadata = json.loads(metadata_path(program_path).read_text())
    except (OSError, ValueError):
        return {}
    return metadata if isinstance(metadata, dict) else {}


def write_metadata(program_path: Path | str, *, model: str, dataset: str, optimizer: str, seed: int,
                   train_qids: list[str], **extra) -> Path:
    path = metadata_path(program_path)
    path.write_text(json.dumps({"model": model, "dataset": dataset, "optimizer": optimizer, "seed": seed,
                                **extra, "train_qids": list(train_qids)}, indent=1) + "\n")
    return path


def default_path(model: str, compiled_dir: Path | None = None) -> Path:
    return (compiled_dir or COMPILED_DIR) / f"glm-{model.rstrip('/').rsplit('/', 1)[-1]}.json"


def default_program(model: str | None, compiled_dir: Path | None = None) -> Path | None:
    """The shipped program compiled for `model`, or None (module doc)."""
    if not model:
        return None
    path = default_path(model, compiled_dir)
    return path if path.is_file() and read_metadata(path).get("model") == model else None


def resolve_program(compiled: Path | str | None, model: str | None, compiled_dir: Path | None = None) -> Path | None:
    """What `GLM(compiled=...)` loads: DEFAULT -> `default_program(model)`; None or "none" -> nothing
    (the hand-written program); a path -> that file, which must exist."""
    if compiled is None or str(compiled).lower() == "none":
        return None
    if str(compiled) == DEFAULT:
        return default_program(model, compiled_dir)
    path = Path(compiled)
    if not path.is_file():
        raise FileNotFoundError(f"no compiled GLM program at {path} (make one with python -m glm_dspy.optimize.compile, "
                                "or pass none for the hand-written program)")
    return path
