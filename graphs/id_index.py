"""Which node table holds an id — without asking Kuzu to scan.

Kuzu 0.11.3 turns a primary-key lookup into a scan unless the node's table is named
(`MATCH (n:paper {id:'x'})`), and GRBench ids carry no type. This index keeps, for every
node, a 64-bit hash of its id and its type code, sorted by hash: 9 bytes per node (9 MB at
1M nodes), one binary search per lookup. A hash collision only yields an extra candidate
type; the Kuzu lookup that follows is exact, so a wrong candidate simply finds nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np


def id_hash(node_id: str) -> int:
    return int.from_bytes(hashlib.blake2b(node_id.encode(), digest_size=8).digest(), "little", signed=True)


def _hashes(ids) -> np.ndarray:
    return np.fromiter((id_hash(i) for i in ids), dtype=np.int64, count=len(ids))


@dataclass(slots=True)
class IdIndex:
    """Sorted `hashes` with the parallel `type_codes` into `types`."""

    types: list[str]
    hashes: np.ndarray  # int64, ascending
    type_codes: np.ndarray  # uint8/int16, same length

    def __post_init__(self):
        assert len(self.hashes) == len(self.type_codes)
        assert len(self.types) < 2**15, "too many node types"

    @classmethod
    def build(cls, ids_by_type: dict[str, list[str]]) -> "IdIndex":
        types = list(ids_by_type)
        hashes = [_hashes(ids) for ids in ids_by_type.values()]
        codes = [np.full(len(h), code, dtype=np.int16) for code, h in enumerate(hashes)]
        all_hashes = np.concatenate(hashes) if hashes else np.zeros(0, np.int64)
        all_codes = np.concatenate(codes) if codes else np.zeros(0, np.int16)
        order = np.argsort(all_hashes, kind="stable")
        return cls(types, all_hashes[order], all_codes[order])

    def candidate_types(self, node_id: str) -> list[str]:
        """Types whose table may hold `node_id` (usually one; empty if surely absent)."""
        h = id_hash(node_id)
        lo = np.searchsorted(self.hashes, h, side="left")
        hi = np.searchsorted(self.hashes, h, side="right")
        return [self.types[c] for c in sorted(set(self.type_codes[lo:hi].tolist()))]

    def save(self, path: Path) -> None:
        np.savez(path, types=np.array(self.types), hashes=self.hashes, type_codes=self.type_codes)

    @classmethod
    def load(cls, path: Path) -> "IdIndex":
        with np.load(path) as data:
            return cls([str(t) for t in data["types"]], data["hashes"], data["type_codes"])
