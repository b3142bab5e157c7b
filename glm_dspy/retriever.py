"""The Graph RAG retriever: the five graph functions of the GLM paper (Table 2).

These are the only API the Act agent's snippets see. Contract, for every function:
* one round trip to Kuzu per call (a node's table comes from the in-memory id index, and
  several ids go into one UNION ALL query), none at all for RetrieveNode (FAISS);
* bad input — an unknown id, neighbour type or feature, a malformed id, an empty or overlong
  text — returns an `Observation` (glm_dspy/observation.py) that names the valid options;
* a call that asks for more than `CallLimits` allow (too many ids, too many neighbours)
  raises ValueError saying the limit and what to do instead (the executor prefixes the
  function's name): the snippet executor runs these functions in its own process, so one
  call's work must stay small;
* every query ends by the caller's deadline, if one is set (graphs/deadline.py).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable

from glm_dspy.observation import Observation
from graphs.literal import InvalidId, identifier, string_literal
from graphs.node_index import NodeIndex
from graphs.schema import rel_table
from graphs.store import GraphStore
from graphs.node_info import node_records, render_vertex_chunk

DEFAULT_NUM_NEIGHBOURS = 10
MAX_SHOWN_CHARS = 60  # of an argument quoted back in an observation


@dataclass(frozen=True, slots=True)
class CallLimits:
    """How much one graph call may ask for (100 ids: a 35 ms NodeInfo on the Nobel graph)."""

    max_ids: int = 100  # NodeInfo / NodeFeature ids per call
    max_neighbours: int = 10_000  # ids one NeighbourCheck returns
    max_text_chars: int = 1000  # RetrieveNode's text; MiniLM reads only ~256 tokens of it anyway

    def __post_init__(self) -> None:
        assert self.max_ids >= 1 and self.max_neighbours >= 1 and self.max_text_chars >= 1, self


def _shown(value: Any) -> str:
    """`value`'s repr for an observation, cut after MAX_SHOWN_CHARS characters (a str's own)."""
    if isinstance(value, str):
        return repr(value) if len(value) <= MAX_SHOWN_CHARS else repr(value[:MAX_SHOWN_CHARS]) + "..."
    text = f"{value!r:.{MAX_SHOWN_CHARS + 1}}"
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS] + "..."


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
                 num_neighbours: int = DEFAULT_NUM_NEIGHBOURS, cache_size: int = 4096,
                 limits: CallLimits = CallLimits()):
        self.store = store
        self.node_index = node_index
        self.num_neighbours = num_neighbours
        self.limits = limits
        self.retrieve_cache = _LruCache(cache_size)
        self._text_features = {t: n.text_feature for t, n in store.schema.node_types.items()}

    def functions(self) -> dict[str, Callable[..., Any]]:
        """The graph functions by the names snippets call them."""
        return {"RetrieveNode": self.retrieve_node, "NodeInfo": self.node_info, "NodeFeature": self.node_feature,
                "NodeDegree": self.node_degree, "NeighbourCheck": self.neighbour_check}

    # ---- helpers ---------------------------------------------------------------------------
    def _id_list(self, ids: Any) -> list[Any]:
        """`ids` as a list (one id becomes [id]); ValueError past `limits.max_ids`."""
        id_list = ids if isinstance(ids, list) else [ids]
        limit = self.limits.max_ids
        if len(id_list) > limit:
            raise ValueError(f"at most {limit} ids per call, got {len(id_list)}; pass a slice "
                             f"such as ids[:{limit}], or loop over slices of {limit}")
        return id_list

    def _locate(self, node_id: Any) -> tuple[str | None, Observation | None]:
        """(type, None) for a known id, else (None, observation)."""
        try:
            type_name = self.store.type_of(node_id)
        except InvalidId as error:
            return None, Observation(f"invalid node id: {error}")
        if type_name is None:
            return None, Observation(f"no node with id {_shown(node_id)}; "
                                     "ids come from RetrieveNode(text) or NeighbourCheck")
        return type_name, None

    def _no_feature(self, type_name: str, node_id: str, feature: str) -> Observation:
        features = sorted(self.store.schema.node_types[type_name].features)
        neighbour_types = self.store.schema.neighbour_types(type_name)
        hint = (f" ({feature!r} is a neighbour type: use NeighbourCheck({node_id!r}, {feature!r}))"
                if feature in neighbour_types else f"; neighbour types (NeighbourCheck): {neighbour_types}")
        return Observation(f"{type_name} node {node_id} has no feature {_shown(feature)}; "
                           f"features: {features}{hint}")

    # ---- the five functions ----------------------------------------------------------------
    def retrieve_node(self, text: str) -> str:
        """RetrieveNode(text) -> the id of the node whose name/title is most similar to `text`."""
        if not isinstance(text, str) or not text.strip():
            return Observation("RetrieveNode needs a non-empty text, e.g. RetrieveNode(\"Marie Curie\")")
        if len(text) > self.limits.max_text_chars:
            return Observation(f"RetrieveNode needs a short text such as a name or title (at most "
                               f"{self.limits.max_text_chars} characters), got {len(text)} characters")
        if self.node_index is None:
            return Observation("RetrieveNode is unavailable: this graph has no node index")
        key = " ".join(text.split())
        node_id = self.retrieve_cache.get(key)
        if node_id is None:
            hits = self.node_index.search(key, 1)
            if not hits:
                return Observation("RetrieveNode found nothing: the graph is empty")
            node_id = hits[0][0]
            self.retrieve_cache.put(key, node_id)
        return node_id

    def node_info(self, ids: str | list[str]) -> str:
        """NodeInfo(ids) -> the vertex chunk of each node: its features and top neighbours."""
        id_list = self._id_list(ids)
        if not id_list:
            return Observation("NodeInfo got an empty list of ids; there is no node to show")
        located = [(i, *self._locate(i)) for i in id_list]
        records = iter(node_records(self.store, [(t, i) for i, t, _ in located if t], k=self.num_neighbours))
        chunks = []
        for node_id, type_name, problem in located:
            record = next(records) if type_name else None
            chunks.append(render_vertex_chunk(record, self._text_features) if record else
                          problem or Observation(f"no node with id {_shown(node_id)}"))
        text = "\n".join(chunks)
        return Observation(text) if all(isinstance(c, Observation) for c in chunks) else text

    def node_feature(self, ids: str | list[str], feature: str) -> Any:
        """NodeFeature(ids, feature) -> the feature's value (a list of values for a list of ids)."""
        id_list = self._id_list(ids)
        if not isinstance(feature, str):
            return Observation(f"NodeFeature needs a feature name (a string), got {_shown(feature)}")
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

    def _neighbour_query(self, node_id: Any, neighbour_type: str,
                         returns: str) -> tuple[list[dict] | None, Observation | None]:
        type_name, problem = self._locate(node_id)
        if problem:
            return None, problem
        valid = self.store.schema.neighbour_types(type_name)
        if neighbour_type not in valid:
            return None, Observation(f"{type_name} node {node_id} has no neighbour type "
                                     f"{_shown(neighbour_type)}; valid: {valid}")
        rows = self.store.query(f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}})"
                                f"-[:{identifier(rel_table(neighbour_type))}]->(m) {returns}")
        return rows, None

    def node_degree(self, node_id: str, neighbour_type: str) -> int | Observation:
        """NodeDegree(id, neighbourType) -> how many neighbours of that type the node has."""
        rows, problem = self._neighbour_query(node_id, neighbour_type, "RETURN count(*) AS degree")
        return problem if problem else rows[0]["degree"]

    def neighbour_check(self, node_id: str, neighbour_type: str) -> list[str] | Observation:
        """NeighbourCheck(id, neighbourType) -> ids of the node's neighbours of that type."""
        limit = self.limits.max_neighbours
        rows, problem = self._neighbour_query(node_id, neighbour_type, "RETURN m.id AS id "
                                              f"ORDER BY m.degree DESC, m.id ASC LIMIT {limit + 1}")
        if problem:
            return problem
        if len(rows) > limit:
            raise ValueError(f"node {node_id} has more than {limit} {neighbour_type!r} "
                             f"neighbours, more than one call returns; count them with "
                             f"NodeDegree({node_id!r}, {neighbour_type!r})")
        return [row["id"] for row in rows]
