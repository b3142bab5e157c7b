"""The pass `return_end`: a chain that returns the very name its first node is matched by, or a
one-hop chain that asks its start for the relation it has just taken, returns where it ends.

`MATCH (a:entity {name: 'Trenton'})-[:rel_location_location_containedby]->(:entity) RETURN
DISTINCT a.name` answers "Trenton" whatever the graph holds; `MATCH (a:entity {name: 'Sister
Wynona Carr'})-[:rel_people_person_place_of_birth]->(:entity) RETURN a.place_of_birth` asks the
start for a property it lacks, the hop's own word. Both mean the node the chain reaches.
"""

from __future__ import annotations

from dataclasses import replace

from glm_dspy.graphs.cypher.shape import final_return, fresh_variable, one_property, single_chain
from glm_dspy.graphs.cypher.syntax import Literal, Match, PatternPart, Property, Query, Return, SingleQuery, Variable
from glm_dspy.graphs.schema import REL_PREFIX, GraphSchema, spells


def return_end(tree: Query, schema: GraphSchema) -> Query:
    """A query `MATCH (s {<text feature>: '...'})-...->(e) RETURN [DISTINCT] s.<feature>` (one
    chain, `single_chain`; one property returned, `one_property`), where the feature is a text
    feature of some type (a name, a title) or a property its start lacks that the one hop's
    relation is spelled by (`_property_of_hop`), returning `e`'s text feature instead (its
    type's, else the feature returned), `e` bound to a fresh variable where it binds none.
    Unchanged where the chain ends at its start."""
    part = single_chain(tree)
    returned = one_property(final_return(tree).projection) if part is not None else None
    if returned is None:
        return tree
    start, text_features = part.nodes[0], {t.text_feature for t in schema.node_types.values() if t.text_feature}
    variable, feature = returned
    if not start.variable or variable != start.variable or not _named(start, text_features) \
            or not (feature in text_features or _property_of_hop(part, feature, schema)):
        return tree
    last = part.nodes[-1]
    if last.variable == start.variable:
        return tree
    if last.variable is None:
        last = replace(last, variable=fresh_variable(tree))
        part = replace(part, nodes=(*part.nodes[:-1], last))
    node_type = schema.node_types.get(last.labels[0] if last.labels else "")
    end_feature = node_type.text_feature if node_type is not None and node_type.text_feature else feature
    projection = replace(final_return(tree).projection, items=((Property(Variable(last.variable), end_feature), None),))
    return Query((SingleQuery((Match((part,)), Return(projection))),))


def _named(node, text_features: set[str]) -> bool:
    """Whether the node pattern is matched by a text feature's string (`{name: 'X'}`)."""
    return any(key in text_features and isinstance(value, Literal) and isinstance(value.value, str)
               for key, value in node.properties)


def _property_of_hop(part: PatternPart, feature: str, schema: GraphSchema) -> bool:
    """Whether a one-hop chain's start is asked, as a property, for the relation it has just
    taken: its label's type lacks `feature`, which some relation is spelled by, and the hop's
    is (`a.place_of_birth` after `-[:rel_people_person_place_of_birth]->`)."""
    start = part.nodes[0]
    return len(part.rels) == 1 and relation_as_property(schema, start.labels[0] if start.labels else None, feature) \
        and spells(part.rels[0].types[0].removeprefix(REL_PREFIX), feature)


def relation_as_property(schema: GraphSchema, label: str | None, feature: str) -> bool:
    """Whether `feature` is a relation's word read as a property (`RETURN a.place_of_birth`,
    PathQuestion-L's `people_person_place_of_birth`): nodes of type `label` have no such
    property and a relation is named by it or ends with it; False where the type is not known."""
    node_type = schema.node_types.get(label or "")
    return node_type is not None and feature != "id" and feature not in node_type.features \
        and any(spells(relation, feature) for relation in schema.relations)


__all__ = ["return_end", "relation_as_property"]
