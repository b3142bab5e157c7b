"""Where the datasets' source files are: `GLM_DATA_DIR`, else the repository's `datasets/` folder."""

from __future__ import annotations

import os
from pathlib import Path

REPO_DATA_DIR = Path(__file__).resolve().parent.parent / "datasets"


def data_dir() -> Path:
    path = Path(os.environ.get("GLM_DATA_DIR", REPO_DATA_DIR))
    if not path.is_dir():
        raise FileNotFoundError(f"data folder {path} not found; set GLM_DATA_DIR to the folder holding nobel/, pathquestion/")
    return path


__all__ = ["REPO_DATA_DIR", "data_dir"]
