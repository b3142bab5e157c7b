"""What the Act agent is told about the graph: the function docs and the schema summary.

This text joins the Act instructions in the system message, so it is part of the stable
prompt prefix: identical for every call on the same graph.
"""

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


def graph_context(schema: GraphSchema) -> str:
    """Function docs plus the schema summary of one graph, for the Act prompt."""
    return f"{FUNCTION_DOCS}\n\nThe graph ({schema.name}):\n{schema.summary()}"
