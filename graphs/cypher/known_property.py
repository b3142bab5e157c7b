"""The pass `known_properties`: a property its node's type lacks, written as the one feature of
that type it shares a word with.

A small model writes `b.publication_year` of a paper whose feature is `year`. A relation's word
read as a property (`a.place_of_birth`, PathQuestion-L's `people_person_place_of_birth`) is no
misspelt feature: it is left to the passes that read it as a hop. A property no feature shares a
word with stays, for Kuzu to refuse and the repair to hear of.
"""

from __future__ import annotations

from dataclasses import replace

from glm_dspy.graphs.cypher.syntax import Property, Query, Variable, written_labels
from glm_dspy.graphs.cypher.transform import transform
from glm_dspy.graphs.schema import GraphSchema, spells


def known_properties(tree: Query, schema: GraphSchema) -> Query:
    """Each `v.key` whose variable `v` a node pattern labels (its first label; the last such
    pattern where several do), where the label's type has no feature `key` and no relation is
    spelled by it, as `v.feature` for the one feature that is one of `key`'s words or has
    `key` as one of its own (`publication_year` -> `year`); unchanged where none or several are."""
    labels = written_labels(tree)

    def known(node):
        if not isinstance(node, Property) or not isinstance(node.subject, Variable):
            return node
        feature = _feature(schema, labels.get(node.subject.name), node.key)
        return node if feature is None else replace(node, key=feature)
    return transform(tree, known)


def _feature(schema: GraphSchema, label: str | None, key: str) -> str | None:
    node_type = schema.node_types.get(label or "")
    if node_type is None or key in node_type.features or key == "id" \
            or any(spells(relation, key) for relation in schema.relations):
        return None
    said = set(key.lower().split("_"))
    near = [f for f in node_type.features if f.lower() in said or key.lower() in f.lower().split("_")]
    return near[0] if len(near) == 1 else None


__all__ = ["known_properties"]
