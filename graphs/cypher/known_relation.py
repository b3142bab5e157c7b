"""The pass `known_relations`: a relationship table the graph does not have, written as the
graph's relation that stands for it.

A small model writes the question's word as a table (`rel_husband`, `rel_parent`); the graph
has `rel_spouse`, `rel_parents`. Which relation stands for a word is the caller's to say
(`stand_in`: Text2Cypher asks its embedder for the relation nearest in meaning); this pass only
reads the tree and the schema.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from glm_dspy.graphs.cypher.syntax import Query, RelPattern
from glm_dspy.graphs.cypher.transform import transform
from glm_dspy.graphs.schema import REL_PREFIX, GraphSchema, rel_table


def known_relations(tree: Query, schema: GraphSchema, stand_in: Callable[[str], str | None]) -> Query:
    """Each relationship type `rel_<x>` of every pattern whose relation `<x>` the schema lacks,
    replaced by `rel_table(stand_in(type))` where `stand_in` names a relation, kept where it
    gives None (Kuzu's EXPLAIN then sends the query to repair). Types without the `rel_` prefix
    are not relation tables of this graph's making and stay."""
    def known(node):
        if not isinstance(node, RelPattern):
            return node
        types = tuple(_known(table, schema, stand_in) for table in node.types)
        return node if types == node.types else replace(node, types=types)
    return transform(tree, known)


def _known(table: str, schema: GraphSchema, stand_in: Callable[[str], str | None]) -> str:
    if not table.startswith(REL_PREFIX) or table[len(REL_PREFIX):] in schema.relations:
        return table
    relation = stand_in(table)
    return table if relation is None else rel_table(relation)


__all__ = ["known_relations"]
