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


class Stored(Counting):
    """A real embedder's kind: float32 rows and a fingerprint, so its vectors are stored
    (glm_dspy/modules/stored_vectors.py)."""
    fingerprint, dim = "model-a", 2

    def encode(self, texts):
        return super().encode(texts).astype(np.float32)


def test_a_graphs_own_texts_are_read_as_one_stored_batch_whatever_was_held(tmp_path, monkeypatch):
    monkeypatch.setenv("GLM_DSPY_CACHE", str(tmp_path))
    embedder = Stored()
    cache = EmbeddingCache(lambda: embedder)
    cache(["male"])  # a word of the question, held already
    assert cache.fixed(["female", "male"]).tolist() == [[6, 1], [4, 1]]
    assert embedder.seen == [["male"], ["female", "male"]]  # the whole list, so every process reads one file
    cache.fixed(["female", "male"])
    assert len(embedder.seen) == 2  # held: no call
    later = Stored()
    assert EmbeddingCache(lambda: later).fixed(["female", "male"]).tolist() == [[6, 1], [4, 1]]
    assert later.seen == []  # the next process reads them from disk
