"""Rewrites of a parsed query (graphs/cypher/syntax.py) that read its plan and the schema, never
its text and never the database: each pass takes a tree and gives a tree (the same one where it
does not apply), so it can be tested on its own and recorded by name (Text2Cypher's step
`rewrites`).

`return_node_names`: a query that returns whole nodes (`RETURN DISTINCT city`: the model's
shorthand for "the city") returns their name, the text feature of the node's type, where the
type is known (its label, or the one type its hops leave it).

The other passes are one file each, in the order Text2Cypher applies them: name_literals.py
(`link_names`), relabel.py, known_relation.py, known_property.py, return_end.py,
nested_property.py, then this one, then answer_kind.py.
"""

from __future__ import annotations

from dataclasses import replace

from glm_dspy.graphs.cypher.plan import plan_of
from glm_dspy.graphs.cypher.syntax import Property, Query, Return, SingleQuery, Variable
from glm_dspy.graphs.cypher.typecheck import node_types
from glm_dspy.graphs.schema import GraphSchema


def return_node_names(tree: Query, schema: GraphSchema) -> Query:
    """Each bare node variable the last RETURN of each part returns, read as its type's text
    feature (`RETURN c` -> `RETURN c.name AS c`: the column keeps its name)."""
    parts = []
    for part in tree.parts:
        single = Query((part,))
        types = node_types(plan_of(single), schema)
        final = part.clauses[-1]
        items = []
        for expression, alias in final.projection.items:
            feature = _text_feature(expression, types, schema)
            items.append((Property(expression, feature), alias or expression.name) if feature else (expression, alias))
        projection = replace(final.projection, items=tuple(items))
        parts.append(SingleQuery((*part.clauses[:-1], Return(projection))) if projection != final.projection else part)
    return Query(tuple(parts), tree.union_all) if any(a is not b for a, b in zip(parts, tree.parts)) else tree


def _text_feature(expression, types: dict[str, set[str]], schema: GraphSchema) -> str | None:
    if not isinstance(expression, Variable) or expression.name not in types:
        return None
    features = {schema.node_types[t].text_feature for t in types[expression.name]}
    return features.pop() if len(features) == 1 and None not in features else None


__all__ = ["return_node_names"]
