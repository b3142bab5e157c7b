"""The Graph RAG retriever: the five graph functions of the GLM paper (Table 2).

These are the only API the Act agent's snippets see. Contract, for every function:
* one round trip to Kuzu per call (a node's table comes from the in-memory id index, and
  several ids go into one UNION ALL query), none at all for RetrieveNode (FAISS);
* bad input — an unknown id, neighbour type or feature, a malformed id — returns a short
  observation string that names the valid options; nothing raises into the agent loop.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, Callable

from graphs.literal import InvalidId, identifier, string_literal
from graphs.node_index import NodeIndex
from graphs.schema import rel_table
from graphs.store import GraphStore
from graphs.node_info import node_records, render_vertex_chunk

DEFAULT_NUM_NEIGHBOURS = 10
# How every observation (bad input answered instead of a result) begins or reads.
OBSERVATION_MARKERS = ("no node with id", "invalid node id", "has no feature", "has no neighbour type",
                       "RetrieveNode needs", "RetrieveNode is unavailable", "RetrieveNode found nothing")


def is_observation(output: str) -> bool:
    """Whether a snippet's whole output is only graph-function observations (no result)."""
    lines = [line for line in output.splitlines() if line.strip()]
    return bool(lines) and all(any(marker in line for marker in OBSERVATION_MARKERS) for line in lines)


class _LruCache:
    """A bounded text -> id map; the least recently used entry is evicted first. Thread-safe."""

    def __init__(self, capacity: int):
        assert capacity >= 0
        self.capacity = capacity
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def get(self, key: str) -> str | None:
        with self._lock:
            value = self._items.get(key)
            if value is None:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return value

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.capacity:
                self._items.popitem(last=False)


class Retriever:
    def __init__(self, store: GraphStore, node_index: NodeIndex | None, *,
                 num_neighbours: int = DEFAULT_NUM_NEIGHBOURS, cache_size: int = 4096):
        self.store = store
        self.node_index = node_index
        self.num_neighbours = num_neighbours
        self.retrieve_cache = _LruCache(cache_size)
        self._text_features = {t: n.text_feature for t, n in store.schema.node_types.items()}

    def functions(self) -> dict[str, Callable[..., Any]]:
        """The graph functions by the names snippets call them."""
        return {"RetrieveNode": self.retrieve_node, "NodeInfo": self.node_info, "NodeFeature": self.node_feature,
                "NodeDegree": self.node_degree, "NeighbourCheck": self.neighbour_check}

    # ---- helpers ---------------------------------------------------------------------------
    def _locate(self, node_id: Any) -> tuple[str | None, str | None]:
        """(type, None) for a known id, else (None, observation)."""
        try:
            type_name = self.store.type_of(node_id)
        except InvalidId as error:
            return None, f"invalid node id: {error}"
        if type_name is None:
            return None, f"no node with id {node_id!r}; ids come from RetrieveNode(text) or NeighbourCheck"
        return type_name, None

    def _no_feature(self, type_name: str, node_id: str, feature: str) -> str:
        features = sorted(self.store.schema.node_types[type_name].features)
        neighbour_types = self.store.schema.neighbour_types(type_name)
        hint = (f" ({feature!r} is a neighbour type: use NeighbourCheck({node_id!r}, {feature!r}))"
                if feature in neighbour_types else f"; neighbour types (NeighbourCheck): {neighbour_types}")
        return f"{type_name} node {node_id} has no feature {feature!r}; features: {features}{hint}"

    # ---- the five functions ----------------------------------------------------------------
    def retrieve_node(self, text: str) -> str:
        """RetrieveNode(text) -> the id of the node whose name/title is most similar to `text`."""
        if not isinstance(text, str) or not text.strip():
            return "RetrieveNode needs a non-empty text, e.g. RetrieveNode(\"Marie Curie\")"
        if self.node_index is None:
            return "RetrieveNode is unavailable: this graph has no node index"
        key = " ".join(text.split())
        node_id = self.retrieve_cache.get(key)
        if node_id is None:
            hits = self.node_index.search(key, 1)
            if not hits:
                return "RetrieveNode found nothing: the graph is empty"
            node_id = hits[0][0]
            self.retrieve_cache.put(key, node_id)
        return node_id

    def node_info(self, ids: str | list[str]) -> str:
        """NodeInfo(ids) -> the vertex chunk of each node: its features and top neighbours."""
        id_list = ids if isinstance(ids, list) else [ids]
        located = [(i, *self._locate(i)) for i in id_list]
        records = iter(node_records(self.store, [(t, i) for i, t, _ in located if t], k=self.num_neighbours))
        chunks = []
        for node_id, type_name, problem in located:
            record = next(records) if type_name else None
            chunks.append(render_vertex_chunk(record, self._text_features) if record else
                          problem or f"no node with id {node_id!r}")
        return "\n".join(chunks)

    def node_feature(self, ids: str | list[str], feature: str) -> Any:
        """NodeFeature(ids, feature) -> the feature's value (a list of values for a list of ids)."""
        id_list = ids if isinstance(ids, list) else [ids]
        values: list[Any] = [None] * len(id_list)
        branches = []
        for pos, node_id in enumerate(id_list):
            type_name, problem = self._locate(node_id)
            if problem:
                values[pos] = problem
                continue
            features = self.store.schema.node_types[type_name].features
            if feature not in features:
                values[pos] = self._no_feature(type_name, node_id, feature)
                continue
            branches.append(f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}}) "
                            f"RETURN {pos} AS pos, to_json(n.{identifier(feature)}) AS value")
        if branches:
            for row in self.store.query(" UNION ALL ".join(branches)):
                values[row["pos"]] = json.loads(row["value"]) if row["value"] is not None else None
        return values if isinstance(ids, list) else values[0]

    def _neighbour_query(self, node_id: Any, neighbour_type: str, returns: str) -> tuple[list[dict] | None, str | None]:
        type_name, problem = self._locate(node_id)
        if problem:
            return None, problem
        valid = self.store.schema.neighbour_types(type_name)
        if neighbour_type not in valid:
            return None, f"{type_name} node {node_id} has no neighbour type {neighbour_type!r}; valid: {valid}"
        rows = self.store.query(f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}})"
                                f"-[:{identifier(rel_table(neighbour_type))}]->(m) {returns}")
        return rows, None

    def node_degree(self, node_id: str, neighbour_type: str) -> int | str:
        """NodeDegree(id, neighbourType) -> how many neighbours of that type the node has."""
        rows, problem = self._neighbour_query(node_id, neighbour_type, "RETURN count(*) AS degree")
        return problem if problem else rows[0]["degree"]

    def neighbour_check(self, node_id: str, neighbour_type: str) -> list[str] | str:
        """NeighbourCheck(id, neighbourType) -> ids of the node's neighbours of that type."""
        rows, problem = self._neighbour_query(node_id, neighbour_type,
                                              "RETURN m.id AS id ORDER BY m.degree DESC, m.id ASC")
        return problem if problem else [row["id"] for row in rows]
