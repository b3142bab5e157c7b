"""The embedder's vectors of short texts (readings' words, a question, category values), kept for
reuse: a question's hundreds of readings share most of their words with the last question's; a
graph's own texts (`fixed`) are kept on disk too, for the next process."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from glm_dspy.modules.stored_vectors import stored_vectors

EMBEDDING_CACHE = 20_000  # texts kept, the least recently added dropped first


class EmbeddingCache:
    """text -> the embedder's vector; at most `size` texts, the oldest dropped first. `embedder`
    is called only on first use (a graph without a RetrieveNode index has none)."""

    def __init__(self, embedder, size: int = EMBEDDING_CACHE):
        assert size >= 1, size
        self._embedder, self._size = embedder, size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def __call__(self, texts: list[str]) -> np.ndarray:
        """The vectors of `texts`, one row each, in order."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._hold(missing, self._embedder().encode(missing))
        return np.stack([self._vectors[t] for t in texts])

    def fixed(self, texts: list[str]) -> np.ndarray:
        """`self(texts)` for a graph's own texts (a category's values, the schema's names): where
        some are not held, all of them are read from the store an earlier process saved them in
        (glm_dspy/modules/stored_vectors.py), one batch whatever this process held before, so
        every process reads the same file."""
        unique = list(dict.fromkeys(texts))
        new = [i for i, text in enumerate(unique) if text not in self._vectors]
        if new:
            vectors = stored_vectors(self._embedder(), unique)
            self._hold([unique[i] for i in new], vectors[new])
        return self(texts)

    def _hold(self, texts: list[str], vectors) -> None:
        for text, vector in zip(texts, vectors):
            self._vectors[text] = vector
        while len(self._vectors) > self._size:
            self._vectors.popitem(last=False)

    def __len__(self) -> int:
        return len(self._vectors)
