"""What the Act agent is told about the graph: the function docs and the schema summary.

This text joins the Act instructions in the system message, so it is part of the stable
prompt prefix: identical for every call on the same graph.
"""

from collections.abc import Collection

from graphs.schema import GraphSchema

FUNCTION_DOCS = """Graph functions (the only way to read the graph):
RetrieveNode(text) -> id: the id of the node whose name or title best matches text.
NodeInfo(id or [ids]) -> text: each node's features and its top neighbours, as a vertex chunk.
NodeFeature(id or [ids], feature) -> the feature's value (a list of values for a list of ids).
NodeDegree(id or [ids], neighbour_type) -> int: how many neighbours of that type (a list of ints for a list).
NeighbourCheck(id or [ids], neighbour_type) -> [ids]: the neighbours of that type (for a list: of all its ids, each once).
To count over a list: sum(NodeDegree(ids, t)) with repeats, len(NeighbourCheck(ids, t)) distinct.
Given an unknown id, feature or neighbour type, a function returns a message string that
names the valid options instead of a result."""


COMMUNITY_DOC = """CommunityInfo(id) -> text: the node's neighbourhood split into communities (groups of
closely linked nodes), the most cohesive first, each as triples "name -relation-> name"."""


def graph_context(schema: GraphSchema, communities: bool = False, relations: Collection[str] | None = None) -> str:
    """Function docs plus the schema summary of one graph, for the Act prompt; `communities`: with
    CommunityInfo (GLM(communities=True), glm_dspy/communities.py); `relations`: only these
    neighbour types (a large schema pruned to a request's, GLM.act_relations)."""
    docs = f"{FUNCTION_DOCS}\n{COMMUNITY_DOC}" if communities else FUNCTION_DOCS
    return f"{docs}\n\nThe graph ({schema.name}):\n{schema.summary(relations)}"
