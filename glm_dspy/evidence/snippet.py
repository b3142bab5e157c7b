"""The evidence of a Python snippet over the graph functions: the snippet run again in the
sandbox with each graph call recorded (its arguments and what it returned); the node ids those
calls named or returned are the nodes it touched, and the relationships among them are read
from the store (the subgraph they induce; a pair of nodes joined once, the relationship that
leaves the first-touched type's node). The answer's nodes: those named by it (id or name),
and those NodeFeature read it off (the feature shown)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from glm_dspy.evidence.cypher import answer_names
from glm_dspy.evidence.subgraph import MAX_NODES, Evidence, SubgraphBuilder
from glm_dspy.graphs.literal import identifier

MAX_CANDIDATE_IDS = 1000  # strings a snippet's calls named or returned that are checked for being node ids


class CallRecorder:
    """The graph functions, each call recorded in order as (name, args, value) in `calls`."""

    def __init__(self, functions: dict[str, Callable[..., Any]]):
        self.calls: list[tuple[str, tuple, Any]] = []
        self.functions = {name: self._recording(name, function) for name, function in functions.items()}

    def _recording(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args, **kwargs):
            value = function(*args, **kwargs)
            self.calls.append((name, args + tuple(kwargs.values()), value))
            return value
        return call


def snippet_evidence(graph, code: str, answer: str, *, timeout_s: float = 10.0) -> Evidence:
    """Run `code` again over `graph`'s functions, recording them, and draw what it touched.
    A snippet that fails now gives evidence of kind "none" saying so."""
    from glm_dspy.executor import SnippetExecutor

    recorder = CallRecorder(graph.retriever.functions())
    with SnippetExecutor(recorder.functions, timeout_s=timeout_s) as executor:
        result = executor.run(code)
    if result.error is not None:
        return Evidence("none", code, note=f"the snippet failed when run again: {result.error}")
    return touched_evidence(graph.store, recorder.calls, answer, code)


def touched_evidence(store, calls: list[tuple[str, tuple, Any]], answer: str, code: str) -> Evidence:
    """The evidence of recorded graph calls (pure but for the store's reads)."""
    wanted = answer_names(answer)
    answers: dict[str, str | None] = {}  # node id -> the feature its answer was read from
    ids: dict[str, str] = {}  # node id -> its type, in the order the calls touched them
    for name, args, value in calls:
        for text in _strings((args[:1] if name != "RetrieveNode" else ()) + (value,))[:MAX_CANDIDATE_IDS]:
            if text not in ids and (node_type := _type_of(store, text)) is not None:
                ids[text] = node_type
        if name == "NodeFeature" and len(args) >= 2:
            subjects, values = args[0], value
            pairs = zip(subjects, values) if isinstance(subjects, list) and isinstance(values, list) \
                else [(subjects, values)]
            for subject, read in pairs:
                if isinstance(subject, str) and _strings([read]) and set(map(str.lower, _strings([read]))) & wanted:
                    answers[subject] = str(args[1])
    builder = SubgraphBuilder(store.schema)
    by_type: dict[str, list[str]] = {}
    for node_id, node_type in list(ids.items()):
        by_type.setdefault(node_type, []).append(node_id)
    nodes = {row["a"]["id"]: row["a"] for node_type, members in by_type.items()
             for row in store.query(f"MATCH (a:{identifier(node_type)}) WHERE a.id IN $ids RETURN a", {"ids": members})}
    for node_id in ids:  # the answer's nodes first: past MAX_NODES the others give way
        node = nodes.get(node_id)
        if node is not None and (node_id in answers or _names(node, store.schema) & wanted):
            builder.add(node, is_answer=True, answer_property=answers.get(node_id))
    for node_id in ids:
        builder.add(nodes.get(node_id))
    drawn = [node.id for node in builder.nodes.values()]
    joined: set[frozenset] = set()  # graphs hold most relations both ways (paper/author): each pair drawn once
    for node_type, members in by_type.items():
        for row in store.query(f"MATCH (a:{identifier(node_type)})-[r]->(b) WHERE a.id IN $ids AND b.id IN $drawn "
                               "RETURN r ORDER BY a.id, b.id", {"ids": members, "drawn": drawn}):
            pair = frozenset((str(row["r"]["_src"]), str(row["r"]["_dst"])))
            if pair not in joined:
                joined.add(pair)
                builder.add(row["r"])
    note = None if ids else "the snippet's graph calls named no node"
    return builder.evidence("snippet", code, note)


def _names(node: dict, schema) -> set[str]:
    """The node's id and name (its type's text feature), lower-cased."""
    node_type = schema.node_types.get(node["_label"])
    keys = {"id", node_type.text_feature if node_type is not None else None}
    return {str(value).lower() for key, value in node.items() if key in keys and value is not None}


def _strings(values) -> list[str]:
    """Every string in `values`, lists flattened, numbers as text."""
    found = []
    for value in values:
        if isinstance(value, list | tuple):
            found.extend(_strings(value))
        elif isinstance(value, str | int | float) and not isinstance(value, bool):
            found.append(str(value))
    return found


def _type_of(store, text: str) -> str | None:
    try:
        return store.type_of(text)
    except ValueError:  # not something an id can be (empty, too long, control characters)
        return None


__all__ = ["snippet_evidence", "touched_evidence", "CallRecorder", "MAX_NODES"]
