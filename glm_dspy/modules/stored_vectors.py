"""`stored_vectors`: the embedder's vectors of a graph's fixed texts (its example bank's questions
and their forms, its schema's relations and names, its categories' values), kept on disk so a
process after the first reads them instead of embedding them again. Embedding the Nobel bank's
2 x 787 texts was 13-16 s of a 40 s cold `glm-dspy ask` on a 2-core CPU, for a question no LLM
call answers (bench/cold_ask.py).

Stored as `<folder>/<key>.npy`, the folder env GLM_DSPY_VECTORS, else `<cache root>/embeddings`
(root: GLM_DSPY_CACHE, else the user cache dir; glm_dspy/lm/models.py; the tests keep theirs in a
folder of their own), `key` the sha256 of the embedder's `fingerprint` and the texts in order.
Invariant: a file there holds exactly what `embedder.encode(texts)` returned for that fingerprint
and those texts, and appears only by the atomic rename of a complete file. An embedder without
a `fingerprint` (a test's fake, a model named by hub id) is asked every time. Only a graph's own
texts belong here, never a question's: a question asked again must cost what a new one costs.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

FOLDER = "embeddings"


def stored_path(fingerprint: str, texts: list[str]) -> Path:
    from glm_dspy.lm.models import cache_root

    key = hashlib.sha256(json.dumps([fingerprint, texts], ensure_ascii=False).encode("utf-8")).hexdigest()
    folder = Path(os.environ["GLM_DSPY_VECTORS"]).expanduser() if os.environ.get("GLM_DSPY_VECTORS") \
        else cache_root() / FOLDER
    return folder / f"{key}.npy"


def stored_vectors(embedder, texts: list[str]) -> np.ndarray:
    """`embedder.encode(texts)`, read from the store where an earlier process saved it."""
    fingerprint = getattr(embedder, "fingerprint", None)
    if fingerprint is None or not texts:
        return embedder.encode(texts)
    path = stored_path(fingerprint, texts)
    try:
        vectors = np.load(path, allow_pickle=False)
        if vectors.shape == (len(texts), embedder.dim) and vectors.dtype == np.float32:
            return vectors
    except (OSError, ValueError, EOFError):  # none yet, or not a whole array: embedded again, saved anew
        pass
    vectors = embedder.encode(texts)
    # a read-only or full cache saves nothing: the vectors are right, the next process embeds them again
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, partial = tempfile.mkstemp(dir=path.parent, prefix=path.stem, suffix=".partial")
    except OSError:
        return vectors
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, vectors, allow_pickle=False)
        os.replace(partial, path)
    except OSError:
        Path(partial).unlink(missing_ok=True)
    return vectors
