"""Render a node and its top-k neighbours as the paper's vertex chunk (GLM §5.1).

    [Node:<id> {k1:v1, k2:v2}]
    [neighbours:(<id>:<relation> {name:...}),(<id>:<relation> {title:...}),...]

The rendering is canonical: keys sorted, values formatted by one function, long text and
long lists cut at fixed lengths, neighbours in the view's order (degree descending, then
id). The same vertex therefore always yields the same bytes — and so the same tokens and
KV-cache blocks, which is what vertex-centric prefix reuse depends on. The centre node
shows all its features plus its `type`; a neighbour shows only the text it is known by
(its name/title), since `NodeInfo(neighbour_id)` gives the rest.
"""

from __future__ import annotations

from typing import Any

from graphs.store import NodeRecord

MAX_VALUE_CHARS = 300
MAX_NEIGHBOUR_VALUE_CHARS = 80
MAX_LIST_ITEMS = 20


def format_value(value: Any, max_chars: int = MAX_VALUE_CHARS) -> str:
    """One canonical text form for a feature value."""
    if isinstance(value, list):
        items = [format_value(v, max_chars) for v in value[:MAX_LIST_ITEMS]]
        more = f", ... +{len(value) - MAX_LIST_ITEMS} more" if len(value) > MAX_LIST_ITEMS else ""
        return "[" + ", ".join(items) + more + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(int(value)) if value.is_integer() else repr(round(value, 6))
    text = " ".join(str(value).split())  # one line, single spaces
    return text if len(text) <= max_chars else text[: max_chars - 3] + "..."


def _features(features: dict[str, Any], max_chars: int) -> str:
    return "{" + ", ".join(f"{k}:{format_value(features[k], max_chars)}" for k in sorted(features)) + "}"


def render_vertex_chunk(node: NodeRecord, text_features: dict[str, str | None]) -> str:
    """The vertex chunk of `node`; `text_features[type]` names each type's label feature."""
    head = f"[Node:{node.id} {_features({**node.features, 'type': node.type}, MAX_VALUE_CHARS)}]"
    parts = []
    for relation, neighbour in node.neighbours:
        label = text_features.get(neighbour.type)
        shown = {label: neighbour.features[label]} if label and label in neighbour.features else {}
        parts.append(f"({neighbour.id}:{relation} {_features(shown, MAX_NEIGHBOUR_VALUE_CHARS)})")
    return head + "\n[neighbours:" + ",".join(parts) + "]"
