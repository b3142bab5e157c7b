"""The pass `answer_kind`: a query that returns a count where its question asks for the things,
or the things where it asks how many, returns what is asked.

A small model copies a "How many ..." example's `RETURN count(DISTINCT s)` into "Which Nobel
Prizes were received by students of X?", and a list into a "How many ..." question. What the
question asks is read off its English by the caller (`Asked`, glm_dspy's facts.py); this pass
reads only the tree and the schema: the query's last RETURN, and the node of the asked type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.shape import fresh_variable
from glm_dspy.graphs.cypher.syntax import (FunctionCall, NodePattern, Projection, Property, Query, Return, SingleQuery,
                                           Variable, walk, written_labels)
from glm_dspy.graphs.cypher.transform import transform
from glm_dspy.graphs.schema import GraphSchema

ASKED_VARIABLES = ("x", "y", "glm_asked")  # bound to the asked node where its pattern binds none


@dataclass(frozen=True, slots=True)
class Asked:
    """What a question asks for, in the schema's terms: `node_type` the graph's type its opening
    words name (None: they name none); `count` it asks how many ("How many ...?"); `counts` it
    says a word of counting anywhere ("most", "number"), so a count may be its answer."""
    node_type: str | None
    count: bool
    counts: bool

    def __post_init__(self) -> None:
        assert not self.count or self.counts, "a question that asks how many says a word of counting"


def answer_kind(tree: Query, schema: GraphSchema, asked: Asked) -> Query:
    """A one-part query whose RETURN is one `count([DISTINCT] v[.f])` (an alias aside), of a
    question that says no word of counting, returning `DISTINCT n.f` instead: `n` the one node
    of the asked type where the query has one (its text feature, unless `n` is `v`), else `v`
    (`f`, else its type's text feature). A one-part query that returns one `v.f`, the text
    feature of `v`'s type (or any text feature, of a `v` no pattern labels, where the question
    asks how many), and counts nothing, returning `count(DISTINCT n)` where the question asks how
    many, else the asked node's text feature where that node is another type's. Unchanged
    otherwise, and always where the query is several joined by UNION."""
    if len(tree.parts) != 1:
        return tree
    head, final = tree.parts[0].clauses[:-1], tree.parts[0].clauses[-1].projection
    if final.star or final.order or final.skip is not None or final.limit is not None or len(final.items) != 1:
        return tree
    labels, types = written_labels(tree), schema.node_types
    returned = final.items[0][0]
    if _is_count(returned) and not final.distinct:
        if asked.counts or returned.star or len(returned.args) != 1 or _node_of(returned.args[0]) is None:
            return tree
        variable, feature = _node_of(returned.args[0])
        node_type = types.get(labels.get(variable, ""))
        found = _asked_node(head, asked)
        if found is not None:
            head, asked_variable = found
            node_type = types[asked.node_type]
            feature = feature if asked_variable == variable else node_type.text_feature
            variable = asked_variable
        feature = feature or (node_type.text_feature if node_type is not None else None)
        if feature is None or node_type is not None and feature not in node_type.features:
            return tree
        return _returning(head, Projection(((Property(Variable(variable), feature), None),), distinct=True))
    if not isinstance(returned, Property) or _node_of(returned) is None or any(map(_is_count, walk(tree))):
        return tree
    variable, feature = _node_of(returned)
    node_type = types.get(labels.get(variable, ""))
    text_features = {t.text_feature for t in types.values() if t.text_feature}
    unlabeled = asked.count and feature in text_features and any(
        isinstance(node, NodePattern) and node.variable == variable and not node.labels for node in walk(tree))
    if not unlabeled and (node_type is None or feature != node_type.text_feature):
        return tree
    found = _asked_node(head, asked)
    if asked.count:
        head, variable = found if found is not None else (head, variable)
        return _returning(head, Projection(((FunctionCall("count", (Variable(variable),), distinct=True), None),)))
    if found is None or asked.node_type == labels.get(variable):
        return tree
    head, variable = found
    return _returning(head, Projection(((Property(Variable(variable), types[asked.node_type].text_feature), None),),
                                       distinct=final.distinct))


def _is_count(node) -> bool:
    return isinstance(node, FunctionCall) and node.name.lower() == "count"


def _node_of(expression) -> tuple[str, str | None] | None:
    """(variable, property) of `v.p`, (variable, None) of `v`; else None."""
    if isinstance(expression, Variable):
        return expression.name, None
    if isinstance(expression, Property) and isinstance(expression.subject, Variable):
        return expression.subject.name, expression.key
    return None


def _asked_node(head: tuple, asked: Asked) -> tuple[tuple, str] | None:
    """(the clauses `head` with the node of the asked type bound to a variable, that variable),
    where `head` has exactly one node pattern labelled by that type alone; else None."""
    if asked.node_type is None:
        return None
    found = [node for clause in head for node in walk(clause)
             if isinstance(node, NodePattern) and node.labels == (asked.node_type,)]
    if len(found) != 1:
        return None
    if found[0].variable:
        return head, found[0].variable
    variable = fresh_variable(*head, among=ASKED_VARIABLES)
    bound = replace(found[0], variable=variable)
    return tuple(transform(clause, lambda node: bound if node == found[0] else node) for clause in head), variable


def _returning(head: tuple, projection: Projection) -> Query:
    return Query((SingleQuery((*head, Return(projection))),))


__all__ = ["Asked", "answer_kind"]
