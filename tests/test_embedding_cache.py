"""glm_dspy/modules/embedding_cache.py: each text is embedded once, the oldest dropped first."""

from __future__ import annotations

import numpy as np

from glm_dspy.modules.embedding_cache import EmbeddingCache


class Counting:
    def __init__(self):
        self.seen = []

    def encode(self, texts):
        self.seen.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts])


def test_each_text_is_embedded_once_and_the_oldest_go_first():
    embedder = Counting()
    cache = EmbeddingCache(lambda: embedder, size=2)
    first = cache(["ab", "abc", "ab"])
    assert first.tolist() == [[2, 1], [3, 1], [2, 1]] and embedder.seen == [["ab", "abc"]]
    cache(["abc"])
    assert embedder.seen == [["ab", "abc"]]  # held: no call
    cache(["abcd"])
    assert len(cache) == 2 and embedder.seen[-1] == ["abcd"]
    cache(["ab"])  # "ab" was the oldest, dropped for "abcd"
    assert embedder.seen[-1] == ["ab"]
