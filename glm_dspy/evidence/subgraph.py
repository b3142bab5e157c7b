"""The subgraph an answer came from, as data: its nodes (the answer's marked) and relationships,
and the builder that reads them out of Kuzu's values (what `GraphStore.read` returns for a node,
a relationship, a variable-length path, or a list of them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from glm_dspy.graphs.schema import REL_PREFIX, GraphSchema

MAX_NODES = 50  # a drawing holds at most this many nodes; what else was touched is counted, not drawn
KINDS = ("cypher", "snippet", "none")


@dataclass(frozen=True, slots=True)
class EvidenceNode:
    id: str  # the node's `id` property, what graph functions and queries name it by
    type: str  # its node table
    name: str  # its text feature (the id where it has none)
    is_answer: bool = False
    detail: str | None = None  # for an answer read off a property: "year: 1843"

    def __post_init__(self):
        assert self.id and self.type, self


@dataclass(frozen=True, slots=True)
class EvidenceEdge:
    source: str  # node ids, both among the evidence's nodes
    relation: str  # the relationship table without REL_PREFIX
    target: str


@dataclass(frozen=True, slots=True)
class Evidence:
    """What an answer was read from. `kind`: "cypher" (a query ran: `source`), "snippet" (a Python
    snippet over the graph functions: `source`), "none" (no step read the graph; `note` says
    why). Every edge joins two of `nodes`; node ids are unique; at most MAX_NODES nodes, and
    `num_left_out` counts the touched nodes not drawn."""
    kind: str
    source: str = ""
    nodes: tuple[EvidenceNode, ...] = ()
    edges: tuple[EvidenceEdge, ...] = ()
    num_left_out: int = 0
    note: str | None = None

    def __post_init__(self):
        assert self.kind in KINDS, self.kind
        ids = [node.id for node in self.nodes]
        assert len(ids) == len(set(ids)) and len(ids) <= MAX_NODES, ids
        assert all(e.source in ids and e.target in ids for e in self.edges), self.edges

    @property
    def answers(self) -> list[EvidenceNode]:
        return [node for node in self.nodes if node.is_answer]

    def as_dict(self) -> dict:
        return asdict(self)


def _key(internal: dict) -> tuple[int, int]:
    return internal["table"], internal["offset"]


@dataclass(slots=True)
class SubgraphBuilder:
    """Collects Kuzu values into nodes and edges, the first MAX_NODES distinct nodes in the order
    they are added; an edge is kept only once both its ends are (`evidence`)."""
    schema: GraphSchema
    max_nodes: int = MAX_NODES
    answer_names: frozenset[str] = frozenset()  # lower-cased: a node so named is marked, however it was added
    nodes: dict[tuple[int, int], EvidenceNode] = field(default_factory=dict)  # by Kuzu's internal id
    rels: dict[tuple[tuple[int, int], str, tuple[int, int]], None] = field(default_factory=dict)
    left_out: set[tuple[int, int]] = field(default_factory=set)

    def add(self, value, *, is_answer: bool = False, answer_property: str | None = None) -> None:
        """Add a node, a relationship, a path (`{_nodes, _rels}`) or a list of them; None is nothing
        (an OPTIONAL MATCH that matched nothing). Nodes added with `is_answer` are marked, and show
        `answer_property`'s value where one is given."""
        if value is None:
            return
        if isinstance(value, list):
            for item in value:
                self.add(item, is_answer=is_answer, answer_property=answer_property)
        elif isinstance(value, dict) and "_nodes" in value:
            for item in (*value["_nodes"], *value["_rels"]):
                self.add(item)
        elif isinstance(value, dict) and "_src" in value:
            self.rels[(_key(value["_src"]), value["_label"].removeprefix(REL_PREFIX), _key(value["_dst"]))] = None
        elif isinstance(value, dict) and "_label" in value and "id" in value:
            self._node(value, is_answer, answer_property)
        else:
            raise TypeError(f"not a Kuzu node, relationship or path: {str(value)[:120]}")

    def _node(self, value: dict, is_answer: bool, answer_property: str | None) -> None:
        key = _key(value["_id"])
        known = self.nodes.get(key)
        if known is None and len(self.nodes) >= self.max_nodes:
            self.left_out.add(key)
            return
        node_type = value["_label"]
        text_feature = self.schema.node_types[node_type].text_feature if node_type in self.schema.node_types else None
        name = value.get(text_feature) if text_feature else None
        is_answer = is_answer or str(name).lower() in self.answer_names
        if known is not None and (known.is_answer or not is_answer):
            return
        detail = None  # the value read, where it is not the name the node is drawn with
        if is_answer and answer_property not in (None, text_feature) and value.get(answer_property) is not None:
            detail = f"{answer_property}: {_shown(value[answer_property])}"
        self.nodes[key] = EvidenceNode(str(value["id"]), node_type, str(name or value["id"]), is_answer, detail)

    def evidence(self, kind: str, source: str, note: str | None = None) -> Evidence:
        edges = [EvidenceEdge(self.nodes[s].id, relation, self.nodes[t].id)
                 for s, relation, t in self.rels if s in self.nodes and t in self.nodes]
        return Evidence(kind, source, tuple(self.nodes.values()), tuple(dict.fromkeys(edges)),
                        len(self.left_out), note)


def _shown(value, limit: int = 80) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


__all__ = ["Evidence", "EvidenceNode", "EvidenceEdge", "SubgraphBuilder", "MAX_NODES"]
