"""The Graph RAG retriever: the five graph functions of the GLM paper (Table 2).

These are the only API the Act agent's snippets see. NodeInfo, NodeFeature, NodeDegree and
NeighbourCheck each take one id or a list of ids; a list maps over its ids, in order:
* NodeInfo(ids) -> the vertex chunks, one per line group, joined;
* NodeFeature(ids, f) -> one value per id; NodeDegree(ids, t) -> one count per id;
* NeighbourCheck(ids, t) -> ONE flat list: the distinct neighbours of all the ids, in
  first-seen order (each id's neighbours by degree, then id), so calls chain into paths:
  NodeFeature(NeighbourCheck(NeighbourCheck(x, "student"), "prize"), "name").
An empty list gives an empty list (NodeInfo: an observation). Duplicates are answered at each
position (NeighbourCheck: once). Contract, for every function:
* one round trip to Kuzu per call (a node's table comes from the in-memory id index, and
  several ids go into one UNION ALL query, one branch per distinct id), none at all for
  RetrieveNode (FAISS);
* bad input returns an `Observation` (glm_dspy/retrieval/observation.py) that names the valid options
  and the corrected call: an unknown id or an item that is no id (glm_dspy/retrieval/arguments.py)
  is the observation at that item's place, the others are still answered; an unknown feature
  or neighbour type that no given node has is one observation for the whole call, with "did
  you mean" for a near name or a name of the other kind, and (for a list) how to count;
* a call that asks for more than `CallLimits` allow (too many ids, too many neighbours in
  all) raises ValueError saying the limit and what to do instead (the executor prefixes the
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

from glm_dspy.retrieval.arguments import (COUNTING, ID_SOURCES, MAX_NAMES_SHOWN, MAX_SHOWN_CHARS, closest_name,
                                          name_problem, names_shown, read_ids, shown)
from glm_dspy.retrieval.observation import Observation
from glm_dspy.graphs.literal import InvalidId, identifier, string_literal
from glm_dspy.graphs.node_index import NodeIndex
from glm_dspy.graphs.schema import REL_PREFIX, rel_table
from glm_dspy.graphs.store import GraphStore
from glm_dspy.graphs.node_info import node_records, render_vertex_chunk

DEFAULT_NUM_NEIGHBOURS = 10
MAX_PATH_HINTS = 3  # calls one "no such name" message suggests (Retriever._one_hop_further)
Node = tuple[str, str]  # (type, id) of a node known to exist
Item = Node | Observation | None  # an id's place in a call: its node, its answer, or empty (Retriever._nodes)


@dataclass(frozen=True, slots=True)
class CallLimits:
    """How much one graph call may ask for (100 ids: a 35 ms NodeInfo on the Nobel graph)."""

    max_ids: int = 100  # ids per call of NodeInfo, NodeFeature, NodeDegree, NeighbourCheck
    max_neighbours: int = 10_000  # ids one NeighbourCheck returns (distinct, over all its ids)
    max_text_chars: int = 1000  # RetrieveNode's text; MiniLM reads only ~256 tokens of it anyway

    def __post_init__(self) -> None:
        assert self.max_ids >= 1 and self.max_neighbours >= 1 and self.max_text_chars >= 1, self


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
    def _is_node(self, text: str) -> bool:
        try:
            return self.store.type_of(text) is not None
        except InvalidId:
            return False

    def _locate(self, node_id: str) -> Node | Observation:
        """(type, id) for a known id, else the observation that says why not."""
        try:
            type_name = self.store.type_of(node_id)
        except InvalidId as error:
            return Observation(f"invalid node id: {error}")
        if type_name is None:
            by_name = f"; to find it by name: RetrieveNode({node_id!r})" if len(node_id) <= MAX_SHOWN_CHARS else ""
            return Observation(f"no node with id {shown(node_id)}; {ID_SOURCES}{by_name}")
        return type_name, node_id

    def _names(self, type_name: str, what: str) -> list[str]:
        if what == "feature":
            return sorted(self.store.schema.node_types[type_name].features)
        return self.store.schema.neighbour_types(type_name)

    def _no_name(self, function: str, subject: str, type_name: str, name: str, what: str, ids_text: str,
                 node_id: str | None = None) -> str:
        """`subject` (a node or nodes of `type_name`) has no `name`: the valid names and the likely
        fix. On a schema too large to list, a single node `node_id`'s neighbour types are the
        relations it has."""
        other = "neighbour type" if what == "feature" else "feature"
        valid, valid_other = self._names(type_name, what), self._names(type_name, other)
        own = None
        if node_id is not None and len(self._names(type_name, "neighbour type")) > MAX_NAMES_SHOWN:
            own = self.relations_of(node_id)
            valid, valid_other = (own, valid_other) if what == "neighbour type" else (valid, own)
        has = "have" if subject.endswith("nodes") else "has"
        listed = "features" if what == "feature" else "its neighbour types" if own is not None else "valid"
        text = f"{subject} {has} no {what} {shown(name)}; {listed}: {names_shown(str(name), valid)}"
        if guess := closest_name(name, valid):
            return f"{text} (did you mean {function}({ids_text}, {guess!r})?)"
        if guess := closest_name(name, valid_other):
            use = "NeighbourCheck" if other == "neighbour type" else "NodeFeature"
            return f"{text} ({guess!r} is a {other}: use {use}({ids_text}, {guess!r}))"
        if paths := self._one_hop_further(type_name, name, function, ids_text, own):
            return f"{text}; {name!r} is one step further, through a neighbour: {' or '.join(paths)}"
        if what == "feature":
            listed = "its neighbour types" if own is not None else "neighbour types"
            return f"{text}; {listed} (NeighbourCheck): {names_shown(str(name), valid_other)}"
        return text

    def _one_hop_further(self, type_name: str, name: str, function: str, ids_text: str,
                         through: list[str] | None = None) -> list[str]:
        """The calls that reach `name` (a feature or neighbour type some other node type has)
        through one neighbour of a `type_name` node (`through`: only these relations, the ones a
        node has): NodeFeature(NeighbourCheck(id, 'paper'), 'year'); at most MAX_PATH_HINTS, so
        the message stays short on a large schema."""
        paths = []
        for relation, what in self.store.schema.one_hop_further(type_name, name):
            if through is not None and relation not in through:
                continue
            if what == "feature":
                use = function if function in ("NodeFeature", "NodeInfo") else "NodeFeature"
            else:
                use = function if function in ("NeighbourCheck", "NodeDegree") else "NeighbourCheck"
            call = f"{use}(NeighbourCheck({ids_text}, {relation!r}), {name!r})"
            paths.append(f"sum({call})" if use == "NodeDegree" else call)
        return paths[:MAX_PATH_HINTS]

    def _nodes(self, function: str, ids: Any, name: Any = None,
               what: str | None = None) -> tuple[list[Item], bool] | Observation:
        """The items of `ids` (graph_arguments.read_ids) located: each (type, id) or its observation,
        and whether `ids` was a list. With `what` ("feature" or "neighbour type"): if no located
        item's type has `name`, the whole call is one Observation (the fix is the name, not any id);
        else an item whose type lacks it is None in a list: an empty answer (no such neighbours,
        no such value), as a path through nodes of mixed types needs."""
        if what and (problem := name_problem(function, name, what)):
            return problem
        args = read_ids(function, ids, self.limits.max_ids, self._is_node)
        if isinstance(args, Observation):
            return args
        items = [item if isinstance(item, Observation) else self._locate(item) for item in args.items]
        nodes = [item for item in items if not isinstance(item, Observation)]
        lacking = {t for t, _ in nodes if what and name not in self._names(t, what)}
        if nodes and lacking == {t for t, _ in nodes}:
            ids_text = "ids" if args.is_list else repr(nodes[0][1])
            problems = [self._no_name(function, f"{t} nodes" if args.is_list else f"{t} node {nodes[0][1]}",
                                      t, name, what, ids_text, None if args.is_list else nodes[0][1])
                        for t in sorted(lacking)]
            counting = [COUNTING] if args.is_list and what == "neighbour type" else []
            return Observation("; ".join(problems + counting))
        return [None if not isinstance(item, Observation) and item[0] in lacking else item
                for item in items], args.is_list

    @staticmethod
    def _distinct(items: list[Item]) -> list[Node]:
        """The nodes among `items`, each once, in first-seen order (one query branch each)."""
        return list(dict.fromkeys(item for item in items if isinstance(item, tuple)))

    def label(self, node_id: str) -> str | None:
        """The node's name or title (its type's text feature) as text; None for a string that is no node's id."""
        if not isinstance(node_id, str) or not node_id or len(node_id) > MAX_SHOWN_CHARS:
            return None
        found = self._locate(node_id)
        if isinstance(found, Observation):
            return None
        feature = self._text_features.get(found[0])
        value = self.node_feature(node_id, feature) if feature else None
        return None if value is None or isinstance(value, Observation) else str(value)

    def relations_of(self, node_id: str) -> list[str]:
        """The relations that leave node `node_id` (the neighbour types it has neighbours of), sorted;
        [] for a string that is no node's id."""
        found = self._locate(node_id) if isinstance(node_id, str) and node_id else None
        if found is None or isinstance(found, Observation):
            return []
        rows = self.store.query(f"MATCH (a:{identifier(found[0])} {{id: $id}})-[r]->() RETURN DISTINCT label(r) AS r",
                                {"id": node_id})
        return sorted(row["r"].removeprefix(REL_PREFIX) for row in rows)

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
        # underscores as spaces: a name written as an id (`charles_lennox_1st_duke_of_richmond`, as
        # PathQuestion asks) embeds nearer another node's name than its own
        key = " ".join(text.replace("_", " ").split())
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
        found = self._nodes("NodeInfo", ids)
        if isinstance(found, Observation):
            return found
        items, _ = found
        if not items:
            return Observation("NodeInfo got an empty list of ids; there is no node to show")
        nodes = [item for item in items if isinstance(item, tuple)]
        records = iter(node_records(self.store, nodes, k=self.num_neighbours))
        chunks = []
        for item in items:
            record = None if isinstance(item, Observation) else next(records)
            chunks.append(render_vertex_chunk(record, self._text_features) if record else
                          item if isinstance(item, Observation) else Observation(f"no node with id {shown(item[1])}"))
        text = "\n".join(chunks)
        return Observation(text) if all(isinstance(c, Observation) for c in chunks) else text

    def _per_node(self, items: list[Item], is_list: bool, default: Any,
                  branch: Callable[[int, str, str], str], column: str,
                  convert: Callable[[Any], Any] = lambda v: v) -> Any:
        """One value per item, in order (an observation stays itself): a UNION ALL of `branch(num,
        type, id)` per distinct node, whose rows give `num` and `column`; `default` where none
        (for an item of a type without the name too)."""
        nodes = self._distinct(items)
        found = {}
        if nodes:
            query = " UNION ALL ".join(branch(num, t, i) for num, (t, i) in enumerate(nodes))
            found = {nodes[row["num"]]: convert(row[column]) for row in self.store.query(query)}
        values = [item if isinstance(item, Observation) else found.get(item, default) for item in items]
        return values if is_list else values[0]

    def node_feature(self, ids: str | list[str], feature: str) -> Any:
        """NodeFeature(ids, feature) -> the feature's value (a list of values for a list of ids)."""
        found = self._nodes("NodeFeature", ids, feature, "feature")
        if isinstance(found, Observation):
            return found
        return self._per_node(*found, None, lambda num, t, i: (
            f"MATCH (n:{identifier(t)} {{id: {string_literal(i)}}}) "
            f"RETURN {num} AS num, to_json(n.{identifier(feature)}) AS value"), "value",
            lambda value: None if value is None else json.loads(value))

    def _edges(self, type_name: str, node_id: str, neighbour_type: str) -> str:
        return (f"MATCH (n:{identifier(type_name)} {{id: {string_literal(node_id)}}})"
                f"-[:{identifier(rel_table(neighbour_type))}]->(m)")

    def node_degree(self, ids: str | list[str], neighbour_type: str) -> Any:
        """NodeDegree(ids, neighbourType) -> how many neighbours of that type the node has (a list of
        counts for a list of ids)."""
        found = self._nodes("NodeDegree", ids, neighbour_type, "neighbour type")
        if isinstance(found, Observation):
            return found
        return self._per_node(*found, 0, lambda num, t, i: (
            f"{self._edges(t, i, neighbour_type)} RETURN {num} AS num, count(*) AS degree"), "degree")

    def neighbour_check(self, ids: str | list[str], neighbour_type: str) -> list[str] | Observation:
        """NeighbourCheck(ids, neighbourType) -> ids of the node's neighbours of that type; for a list
        of ids, the distinct neighbours of them all, in first-seen order."""
        found = self._nodes("NeighbourCheck", ids, neighbour_type, "neighbour type")
        if isinstance(found, Observation):
            return found
        items, is_list = found
        limit = self.limits.max_neighbours
        nodes = self._distinct(items)
        neighbours: dict[Node, list[tuple[int, str]]] = {node: [] for node in nodes}
        if nodes:
            query = " UNION ALL ".join(
                f"{self._edges(t, i, neighbour_type)} RETURN {num} AS num, m.id AS id, m.degree AS degree "
                f"ORDER BY m.degree DESC, m.id ASC LIMIT {limit + 1}" for num, (t, i) in enumerate(nodes))
            for row in self.store.query(query):
                neighbours[nodes[row["num"]]].append((-(row["degree"] or 0), row["id"]))
        if not is_list:
            if isinstance(items[0], Observation):  # (None only in a list)
                return items[0]
            node_id = items[0][1]
            if len(neighbours[items[0]]) > limit:
                raise ValueError(f"node {node_id} has more than {limit} {neighbour_type!r} "
                                 f"neighbours, more than one call returns; count them with "
                                 f"NodeDegree({node_id!r}, {neighbour_type!r})")
            return [i for _, i in sorted(neighbours[items[0]])]
        result = dict.fromkeys(i for item in items for i in (
            [item] if isinstance(item, Observation) else
            [i for _, i in sorted(neighbours[item])] if item else []))
        if len(result) > limit:
            raise ValueError(f"these {len(nodes)} ids have more than {limit} distinct {neighbour_type!r} "
                             f"neighbours, more than one call returns; count them with "
                             f"sum(NodeDegree(ids, {neighbour_type!r})), or pass fewer ids")
        return list(result)
