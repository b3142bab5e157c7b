"""glm_dspy/modules/stored_vectors.py: a graph's fixed texts are embedded once per fingerprint and
texts, then read from disk; anything else is embedded as before."""

from __future__ import annotations

import numpy as np
import pytest

from glm_dspy.modules.stored_vectors import stored_path, stored_vectors


class Counting:
    dim = 2

    def __init__(self, fingerprint: str | None = "model-a"):
        self.fingerprint = fingerprint
        self.seen = []

    def encode(self, texts):
        self.seen.append(list(texts))
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


@pytest.fixture(autouse=True)
def cache_root(tmp_path, monkeypatch):
    monkeypatch.delenv("GLM_DSPY_VECTORS", raising=False)  # the suite's own folder (conftest.py)
    monkeypatch.setenv("GLM_DSPY_CACHE", str(tmp_path))
    return tmp_path


def test_the_second_process_reads_what_the_first_embedded():
    first, second = Counting(), Counting()  # two processes' embedders: the same model
    vectors = stored_vectors(first, ["ab", "abc"])
    again = stored_vectors(second, ["ab", "abc"])
    assert first.seen == [["ab", "abc"]] and second.seen == []
    assert again.tolist() == vectors.tolist() == [[2, 1], [3, 1]] and again.dtype == np.float32


def test_another_model_or_other_texts_or_their_order_are_embedded_anew():
    stored_vectors(Counting(), ["ab", "abc"])
    for embedder, texts in ((Counting("model-b"), ["ab", "abc"]), (Counting(), ["abc", "ab"]), (Counting(), ["ab"])):
        stored_vectors(embedder, texts)
        assert embedder.seen == [texts]


def test_an_embedder_without_a_fingerprint_is_asked_every_time(cache_root):
    embedder = Counting(fingerprint=None)
    stored_vectors(embedder, ["ab"])
    stored_vectors(embedder, ["ab"])
    assert embedder.seen == [["ab"], ["ab"]] and not (cache_root / "embeddings").exists()


def test_a_damaged_or_wrong_shaped_file_is_embedded_again_and_replaced():
    path = stored_path("model-a", ["ab", "abc"])
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x93NUMPY half a header")
    embedder = Counting()
    assert stored_vectors(embedder, ["ab", "abc"]).tolist() == [[2, 1], [3, 1]] and len(embedder.seen) == 1
    np.save(path, np.zeros((3, 2), dtype=np.float32))  # three rows for two texts
    assert stored_vectors(embedder, ["ab", "abc"]).tolist() == [[2, 1], [3, 1]] and len(embedder.seen) == 2
    assert np.load(path).tolist() == [[2, 1], [3, 1]]
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no partial file left behind


def test_a_cache_that_cannot_be_written_still_gives_the_vectors(cache_root):
    (cache_root / "embeddings").write_text("a file where the folder should be")
    embedder = Counting()
    assert stored_vectors(embedder, ["ab"]).tolist() == [[2, 1]]
    assert stored_vectors(embedder, ["ab"]).tolist() == [[2, 1]] and len(embedder.seen) == 2


def test_the_real_embedder_keys_its_vectors_by_its_model_files(embedder, tmp_path):
    from glm_dspy.graphs.node_index import model_fingerprint

    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "weights").write_bytes(b"0123")
    before = model_fingerprint(folder, {"max_seq_length": 64})
    assert before == model_fingerprint(folder, {"max_seq_length": 64}) != model_fingerprint(folder, {"max_seq_length": 128})
    (folder / "weights").write_bytes(b"01234")
    assert model_fingerprint(folder, {"max_seq_length": 64}) != before
    assert embedder.fingerprint is not None  # the shipped MiniLM is a folder
    embedded, read = (stored_vectors(embedder, ["Physics", "Chemistry"]) for _ in range(2))  # then from disk
    assert read.tolist() == embedded.tolist() == embedder.encode(["Physics", "Chemistry"]).tolist()
