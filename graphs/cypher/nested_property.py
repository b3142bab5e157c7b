"""The pass `nested_property`: a relation read as a property of a node, and a feature read of
that, is the hop along the relation.

"Who wrote the papers cited by X?" written `RETURN c.author.name`: Kuzu refuses the nested
property, and the repair had repeated it. The hop `MATCH (c)-[:rel_author]->(glm_nested:author)
RETURN DISTINCT glm_nested.name` is what it means.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.syntax import (Match, NodePattern, PatternPart, Projection, Property, Query, RelPattern,
                                           Return, SingleQuery, Variable, written_labels)
from glm_dspy.graphs.schema import GraphSchema, rel_table

NESTED = "glm_nested"  # the variable the node a nested property reaches is bound to


def nested_property(tree: Query, schema: GraphSchema) -> Query:
    """A query of one part whose RETURN is one item `v.relation.feature` (and nothing else: no
    alias, order or limit), where `v`'s label has `relation` to one type of node and that type
    has `feature`: the same query with the hop `MATCH (v)-[:rel_relation]->(glm_nested:type)`
    before a `RETURN DISTINCT glm_nested.feature`. Unchanged otherwise."""
    if len(tree.parts) != 1:
        return tree
    part = tree.parts[0]
    projection = part.clauses[-1].projection
    if projection.star or projection.order or projection.skip is not None or projection.limit is not None \
            or len(projection.items) != 1 or projection.items[0][1] is not None:
        return tree
    returned = projection.items[0][0]
    if not isinstance(returned, Property) or not isinstance(returned.subject, Property) \
            or not isinstance(returned.subject.subject, Variable):
        return tree
    variable, relation, feature = returned.subject.subject.name, returned.subject.key, returned.key
    label = written_labels(tree).get(variable)
    reached = {dst for src, dst in schema.relations.get(relation, ()) if src == label}
    if len(reached) != 1 or feature not in schema.node_types[target := reached.pop()].features:
        return tree
    hop = PatternPart((NodePattern(variable), NodePattern(NESTED, (target,))), (RelPattern(types=(rel_table(relation),)),))
    answer = Return(Projection(((Property(Variable(NESTED), feature), None),), distinct=True))
    return Query((SingleQuery((*part.clauses[:-1], Match((hop,)), answer)),))


__all__ = ["NESTED", "nested_property"]
