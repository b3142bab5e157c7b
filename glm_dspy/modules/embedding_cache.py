"""The embedder's vectors of short texts (readings' words, a question, category values), kept for
reuse: a question's hundreds of readings share most of their words with the last question's."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

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
            for text, vector in zip(missing, self._embedder().encode(missing)):
                self._vectors[text] = vector
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return np.stack([self._vectors[t] for t in texts])

    def __len__(self) -> int:
        return len(self._vectors)
