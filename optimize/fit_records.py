"""The records a confidence is fitted on: bench/readings --out files, one per graph, at least two
(a threshold fitted on one graph's questions fits that graph). Shared by calibrate_readings and
calibrate_pick; a bad list of files exits with what is wrong."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path


def records_per_file(paths: list[Path], rows_of: Callable[[Path], list]) -> dict[str, list]:
    """Each file's rows (`rows_of(path)`), by its name; exits where fewer than two files are
    given or one does not exist."""
    if len(paths) < 2:
        sys.exit("give the records of at least two graphs: a threshold fitted on one graph's questions fits that graph")
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        sys.exit(f"no such file: {', '.join(missing)}")
    return {str(p): rows_of(p) for p in paths}


__all__ = ["records_per_file"]
