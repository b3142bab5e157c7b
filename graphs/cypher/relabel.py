"""The pass `relabel`: a node matched by a name that none of its label's nodes has, but another
type's do, takes that type's label.

`(m:laureate {name: 'Lawrence Jones'})`, a scholar, matches nothing and counts 0. Which types
have a node of that name is the database's to say (`named`, the caller's); this pass only reads
the tree and the schema.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from glm_dspy.graphs.cypher.syntax import Literal, NodePattern, Query
from glm_dspy.graphs.cypher.transform import transform
from glm_dspy.graphs.schema import GraphSchema


def relabel(tree: Query, schema: GraphSchema, named: Callable[[str], list[tuple[str, str]]]) -> Query:
    """Each node pattern of one label matched by one text feature (`(v:label {name: 'X'})`)
    whose label is not among the types `named('X')` gives for that feature ((type, feature)
    pairs, the types with a node so named), labelled by the one such type, or by none where
    several have it. A pattern no type has the name of stays (the repair hears of it)."""
    text_features = {t.text_feature for t in schema.node_types.values() if t.text_feature}

    def relabelled(node):
        if not isinstance(node, NodePattern) or len(node.labels) != 1 or len(node.properties) != 1:
            return node
        feature, value = node.properties[0]
        if feature not in text_features or not isinstance(value, Literal) or not isinstance(value.value, str):
            return node
        types = [type_name for type_name, named_by in named(value.value) if named_by == feature]
        if not types or node.labels[0] in types:
            return node
        return replace(node, labels=(types[0],) if len(types) == 1 else ())
    return transform(tree, relabelled)


__all__ = ["relabel"]
