"""What the Act agent is told about the graph: the function docs and the schema summary.

This text joins the Act instructions in the system message, so it is part of the stable
prompt prefix: identical for every call on the same graph. A schema of more than
LARGE_SCHEMA relations (PathQuestion PQL: 726, a 9k-token summary) is pruned to each
request's PROMPT_RELATIONS (`relations_for`): every prompt that shows the schema (Act,
Graph Counselor's Plan, Graph-CoT) shows that (`schema_summary`).
"""

from collections.abc import Collection

from glm_dspy.graphs.schema import GraphSchema

LARGE_SCHEMA = 60  # more relations than this: a prompt shows a request's PROMPT_RELATIONS only
PROMPT_RELATIONS = 24

FUNCTION_DOCS = """Graph functions (the only way to read the graph):
RetrieveNode(text) -> id: the id of the node whose name or title best matches text.
NodeInfo(id or [ids]) -> text: each node's features and its top neighbours, as a vertex chunk.
NodeFeature(id or [ids], feature) -> the feature's value (a list of values for a list of ids).
NodeDegree(id or [ids], neighbour_type) -> int: how many neighbours of that type (a list of ints for a list).
NeighbourCheck(id or [ids], neighbour_type) -> [ids]: the neighbours of that type (for a list: of all its ids, each once).
To count over a list: sum(NodeDegree(ids, t)) with repeats, len(NeighbourCheck(ids, t)) distinct.
Given an unknown id, feature or neighbour type, a function returns a message string that
names the valid options instead of a result."""


def graph_context(schema: GraphSchema, relations: Collection[str] | None = None) -> str:
    """Function docs plus the schema summary of one graph, for the Act prompt; `relations`: only
    these neighbour types (a large schema pruned to a request's, `relations_for`)."""
    return f"{FUNCTION_DOCS}\n\nThe graph ({schema.name}):\n{schema.summary(relations)}"


def is_large(schema: GraphSchema) -> bool:
    return len(schema.relations) > LARGE_SCHEMA


def relations_for(graph, request: str, limit: int = PROMPT_RELATIONS) -> list[str]:
    """`limit` relations of `graph` for `request`: those of the nodes it names (a path starts at
    one of them), then the ones nearest it in meaning (the RetrieveNode embedder)."""
    from glm_dspy.modules.text2cypher import named_nodes

    own = [r for node_id in named_nodes(graph, request) for r in graph.retriever.relations_of(node_id)]
    own = list(dict.fromkeys(own))[:limit]
    relations = set(graph.schema.relations) - set(own)
    matcher = graph.name_matcher()
    rest = (matcher.nearest(request, limit - len(own), within=relations) if matcher is not None
            else sorted(relations)[: limit - len(own)])
    return own + rest


def schema_summary(graph, request: str) -> str:
    """The schema summary a prompt about `request` shows: all of it, or on a large schema the
    request's relations (`relations_for`)."""
    return graph.schema.summary(relations_for(graph, request) if is_large(graph.schema) else None)
