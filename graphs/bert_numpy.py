"""A BERT sentence encoder in NumPy: the default embedder (all-MiniLM-L6-v2) with no torch.

Importing torch, transformers and sentence-transformers took 8.5-9 s of a 14 s cold `glm-dspy
ask` that no LLM call answers (bench/cold_ask.py); the encoder itself is six small layers. This
runs the same model from its own folder: `tokenizer.json` through the `tokenizers` library, the
weights from `model.safetensors` as NumPy arrays, mean pooling over the attention mask and L2
normalisation, as the folder's `modules.json` says. Its vectors are sentence-transformers' to
float32 rounding (tests/test_bert_numpy.py compares both on texts of several graphs).

`supports(folder)` says whether a model folder is one this encoder computes exactly: a BERT
with absolute positions and the exact GELU, then mean pooling, then Normalize. Any other folder
is sentence-transformers' (graphs/node_index.py chooses).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

BATCH = 64  # texts per forward pass; sorted by length first, so a batch pads little
GELU_BYTES = 1 << 18  # of the GELU's input a pass: its erf's half a dozen temporaries (1.5 MB) fit a 2 MB L2
_POOLING = "sentence_transformers.models.Pooling"
_STAGES = ["sentence_transformers.models.Transformer", _POOLING, "sentence_transformers.models.Normalize"]


def supports(folder: Path) -> bool:
    """Whether `folder` holds a model this encoder computes as sentence-transformers does."""
    try:
        config = json.loads((folder / "config.json").read_text())
        stages = json.loads((folder / "modules.json").read_text())
        pooling_path = next(stage["path"] for stage in stages if stage["type"] == _POOLING)
        pooling = json.loads((folder / pooling_path / "config.json").read_text())
    except (OSError, ValueError, KeyError, StopIteration):
        return False
    mean_only = pooling.get("pooling_mode_mean_tokens") is True and not any(
        pooling.get(mode) for mode in ("pooling_mode_cls_token", "pooling_mode_max_tokens",
                                       "pooling_mode_mean_sqrt_len_tokens", "pooling_mode_weightedmean_tokens",
                                       "pooling_mode_lasttoken"))
    return (config.get("model_type") == "bert" and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
            and [stage["type"] for stage in stages] == _STAGES and mean_only
            and (folder / "model.safetensors").is_file() and (folder / "tokenizer.json").is_file())


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to 1.5e-7 (Abramowitz and Stegun 7.1.26), float32's own rounding: NumPy has no erf."""
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = 1.061405429 * t
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += coefficient
        poly *= t
    np.negative(a, out=a)
    a *= np.abs(x)
    np.exp(a, out=a)
    poly *= a  # poly * exp(-x^2)
    np.subtract(1.0, poly, out=poly)
    poly *= np.sign(x)
    return poly


def _gelu(x: np.ndarray) -> np.ndarray:
    """The exact GELU, x (1 + erf(x / sqrt 2)) / 2, written over `x` (the caller's, not read
    after) and returned. A chunk of GELU_BYTES of rows at a time: the erf's temporaries stay in
    the core's cache, where over a whole (tokens x 1536) batch each of its passes went to memory
    (2.5x faster, 1280 x 1536 on this 2-core Xeon); each element's operations are the same, so
    are its bits."""
    rows = max(1, GELU_BYTES // max(1, x.shape[-1] * x.itemsize))
    for start in range(0, len(x), rows):
        part = x[start:start + rows]
        erf = _erf(part * np.float32(1.0 / math.sqrt(2.0)))
        erf += 1.0
        erf *= part
        erf *= 0.5
        part[...] = erf
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    centred = x - x.mean(-1, keepdims=True)
    variance = np.einsum("ij,ij->i", centred, centred)[:, None] / np.float32(x.shape[-1])
    centred /= np.sqrt(variance + np.float32(eps))
    centred *= weight
    centred += bias
    return centred


class BertEncoder:
    """The model in `folder` (one that `supports` accepts): `encode(texts)` gives unit vectors."""

    def __init__(self, folder: Path, *, max_seq_length: int):
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text())
        self.dim = int(config["hidden_size"])
        self._heads = int(config["num_attention_heads"])
        self._eps = float(config.get("layer_norm_eps", 1e-12))
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(max_length=max_seq_length)
        weights = load_file(str(folder / "model.safetensors"))
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        w = {name[len(prefix):]: array for name, array in weights.items() if name.startswith(prefix)}
        self._words = w["embeddings.word_embeddings.weight"]
        self._positions = w["embeddings.position_embeddings.weight"]
        self._token_type = w["embeddings.token_type_embeddings.weight"][0]
        self._embedding_norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self._layers = []
        for i in range(int(config["num_hidden_layers"])):
            at = f"encoder.layer.{i}."
            # q, k and v in one matrix: one product instead of three
            qkv = np.concatenate([w[at + f"attention.self.{part}.weight"] for part in ("query", "key", "value")])
            qkv_bias = np.concatenate([w[at + f"attention.self.{part}.bias"] for part in ("query", "key", "value")])
            self._layers.append({
                "qkv": np.ascontiguousarray(qkv.T), "qkv_bias": qkv_bias,
                "out": np.ascontiguousarray(w[at + "attention.output.dense.weight"].T),
                "out_bias": w[at + "attention.output.dense.bias"],
                "norm1": (w[at + "attention.output.LayerNorm.weight"], w[at + "attention.output.LayerNorm.bias"]),
                "up": np.ascontiguousarray(w[at + "intermediate.dense.weight"].T),
                "up_bias": w[at + "intermediate.dense.bias"],
                "down": np.ascontiguousarray(w[at + "output.dense.weight"].T),
                "down_bias": w[at + "output.dense.bias"],
                "norm2": (w[at + "output.LayerNorm.weight"], w[at + "output.LayerNorm.bias"]),
            })

    def encode(self, texts: list[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            rows = order[start:start + BATCH]
            length = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros((len(rows), length), dtype=np.float32)
            for r, i in enumerate(rows):
                ids[r, :len(encodings[i].ids)] = encodings[i].ids
                mask[r, :len(encodings[i].ids)] = 1.0
            out[rows] = self._pooled(ids, mask)
        return out

    def _pooled(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        batch, length = ids.shape
        # the dense layers see every token of the batch as one (batch x length, dim) matrix: one
        # BLAS product each, not one per text
        x = (self._words[ids] + self._positions[:length] + self._token_type).reshape(batch * length, self.dim)
        x = _layer_norm(x, *self._embedding_norm, self._eps)
        heads, width = self._heads, self.dim // self._heads
        # a padded key gets float32's lowest score, as transformers' BERT does: exp() of it is 0
        key_bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(width))
        for layer in self._layers:
            qkv = x @ layer["qkv"]
            qkv += layer["qkv_bias"]
            qkv = qkv.reshape(batch, length, 3, heads, width).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = q @ k.transpose(0, 1, 3, 2)
            scores *= scale
            scores += key_bias
            scores -= scores.max(-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch * length, self.dim)
            attended = context @ layer["out"]
            attended += layer["out_bias"]
            attended += x
            x = _layer_norm(attended, *layer["norm1"], self._eps)
            hidden = x @ layer["up"]
            hidden += layer["up_bias"]
            hidden = _gelu(hidden)
            out = hidden @ layer["down"]
            out += layer["down_bias"]
            out += x
            x = _layer_norm(out, *layer["norm2"], self._eps)
        x = x.reshape(batch, length, self.dim)
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return (pooled / norms).astype(np.float32, copy=False)
