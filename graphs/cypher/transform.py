"""Rebuilding a syntax tree (graphs/cypher/syntax.py) node by node: what a pass uses to change
one kind of node wherever it stands.

`transform(tree, change)` calls `change` on every syntax node, children before their parent,
and rebuilds only the nodes above one that changed: where `change` returns every node as it
was given, the result is `tree` itself (`is`), which is how a pass says it did not apply.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace


def transform(node, change: Callable):
    """`node` with `change` applied to each syntax node inside it and then to itself, bottom up;
    the very same object where nothing changed."""
    changes = {}
    for name in node.__dataclass_fields__:
        value = getattr(node, name)
        new = _value(value, change)
        if new is not value:
            changes[name] = new
    return change(replace(node, **changes) if changes else node)


def _value(value, change: Callable):
    if isinstance(value, tuple):
        items = tuple(_value(item, change) for item in value)
        return value if all(a is b for a, b in zip(items, value)) else items
    if hasattr(value, "__dataclass_fields__"):
        return transform(value, change)
    return value


__all__ = ["transform"]
