"""The names a query matches nodes by, read and rewritten on its tree: the string values of a
text feature (`{name: 'X'}` in a pattern or map, `x.title = 'X'` in a filter); and the node
ids a template query matches by (`{id: '...'}`, `id_literals`).

`link_names` is the pass: it hands the names, in the order the query writes them, to `relink`
(the caller's: Text2Cypher holds them to the question's names and links each to the stored
name it means) and writes back the names it gives. A value enters the query only as a tree
`Literal`; the printer writes it (`glm_dspy.graphs.literal.text_literal`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from glm_dspy.graphs.cypher.syntax import Binary, Literal, MapLiteral, NodePattern, Property, Query, RelPattern, walk
from glm_dspy.graphs.cypher.transform import transform
from glm_dspy.graphs.schema import GraphSchema


def name_literals(tree, schema: GraphSchema) -> list[str]:
    """The names `tree` matches by, in the order it writes them (a name written twice, twice)."""
    found = []
    _each_name(tree, schema, lambda name: found.append(name) or name)
    return found


def id_literals(tree) -> list[str]:
    """The node ids `tree` matches by, in the order it writes them: each map of one `id` string
    (`({id: 'l189'})`, `{id: '...'}`), the form graphs/' templates find their entities by."""
    return [pairs[0][1].value for node in walk(tree) if (pairs := id_properties(node)) is not None]


def id_properties(node) -> tuple | None:
    """The properties of a node pattern, relationship pattern or map that holds one `id` string, else None."""
    if not isinstance(node, (NodePattern, RelPattern, MapLiteral)):
        return None
    pairs = node.items if isinstance(node, MapLiteral) else node.properties
    if len(pairs) != 1 or pairs[0][0] != "id" or not isinstance(pairs[0][1], Literal) \
            or not isinstance(pairs[0][1].value, str):
        return None
    return pairs


def link_names(tree: Query, schema: GraphSchema, relink: Callable[[list[str]], list[str]]) -> Query:
    """`tree` with its names (`name_literals`) replaced, in order, by those `relink` gives for
    them (as many as it was given); the same tree where every name stays."""
    names = name_literals(tree, schema)
    linked = relink(names) if names else []
    assert len(linked) == len(names), (names, linked)
    if linked == names:
        return tree
    given = iter(linked)
    return _each_name(tree, schema, lambda _: next(given))


def without_strings(tree):
    """`tree` with every string literal empty: its shape, names and values aside."""
    return transform(tree, lambda node: Literal("") if isinstance(node, Literal) and isinstance(node.value, str)
                     else node)


def _each_name(tree, schema: GraphSchema, change: Callable[[str], str]):
    """`tree` with each name literal's value `v` replaced by `change(v)`, in source order."""
    text_features = {t.text_feature for t in schema.node_types.values() if t.text_feature}

    def named(key: str, value) -> bool:
        return key in text_features and isinstance(value, Literal) and isinstance(value.value, str)

    def renamed(value: Literal) -> Literal:
        new = change(value.value)
        return value if new == value.value else Literal(new)

    def rewrite(node):
        if isinstance(node, (NodePattern, RelPattern, MapLiteral)):
            pairs = node.properties if not isinstance(node, MapLiteral) else node.items
            new = tuple((key, renamed(value) if named(key, value) else value) for key, value in pairs)
            if all(a[1] is b[1] for a, b in zip(new, pairs)):
                return node
            return replace(node, items=new) if isinstance(node, MapLiteral) else replace(node, properties=new)
        if isinstance(node, Binary) and node.op == "=" and isinstance(node.left, Property) \
                and named(node.left.key, node.right):
            right = renamed(node.right)
            return node if right is node.right else replace(node, right=right)
        return node
    return transform(tree, rewrite)


__all__ = ["name_literals", "id_literals", "id_properties", "link_names", "without_strings"]
