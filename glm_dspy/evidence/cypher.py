"""The evidence of a Cypher query: the query run again, rewritten to return what it matched
(graphs/cypher/path_return.py), through the same read-only gate and store as every model query."""

from __future__ import annotations

from glm_dspy.graphs.cypher import gate_tree, parse
from glm_dspy.graphs.cypher.path_return import return_first_match, return_paths
from glm_dspy.graphs.store import GraphStore

from glm_dspy.evidence.subgraph import MAX_NODES, Evidence, SubgraphBuilder

MAX_ROWS = MAX_NODES  # rows of the rewritten query read (each row binds at least one node)


def cypher_evidence(store: GraphStore, query: str, answer: str = "") -> Evidence:
    """The nodes and relationships `query` matched, those its RETURN reads marked as the answer;
    where no node is left to read at its RETURN, what its leading MATCH clauses matched, the
    nodes named by `answer` (or one of its comma-separated parts) marked. Raises what
    `GraphStore.read` raises (QueryRefused, CypherSyntaxError, Kuzu's RuntimeError)."""
    tree = parse(query)
    paths = return_paths(tree, max_rows=MAX_ROWS, max_items=MAX_NODES)
    named = frozenset()
    if not paths.columns:
        paths = return_first_match(tree, max_rows=MAX_ROWS)
        named = answer_names(answer)
    text = gate_tree(paths.tree).text
    result = store.read(text, max_rows=MAX_ROWS)
    builder = SubgraphBuilder(store.schema, answer_names=named)
    for row in result.rows:  # the answer's nodes first: past MAX_NODES the others give way
        for column, (variable, kind) in paths.columns.items():
            if kind == "node" and variable in paths.answers:
                builder.add(row[column], is_answer=True, answer_property=paths.answers[variable])
    for row in result.rows:
        for column, (variable, kind) in paths.columns.items():
            if variable not in paths.answers:
                builder.add(row[column])
    note = None if result.rows else "the query matched nothing"
    if result.truncated or len(result.rows) == MAX_ROWS:
        note = f"the first {len(result.rows)} matches are drawn"
    return builder.evidence("cypher", query, note)


def answer_names(answer: str) -> frozenset[str]:
    """The names an answer gives, lower-cased: the whole of it and each comma-separated part."""
    text = (answer or "").strip().lower()
    return frozenset({text, *(part.strip() for part in text.split(","))} - {""})


__all__ = ["cypher_evidence"]
