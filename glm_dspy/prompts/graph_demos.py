"""Act demos that fit the graph at hand: the hand-written ones that name only its own
features and neighbour types, and demos written from its schema and data.

A 0.5B model copies its demos: on the Nobel dev sample it filtered prizes by category
"Chemistry" and started from "Nobel Prize in Physics 1921" (both from demos) in questions that
named neither, and on the academic graph it wrote the Nobel demos' relations. A demo whose
snippet names a relation the graph lacks teaches it nothing but that mistake, so it is
dropped; when fewer than MIN_DEMOS are left, demos written from the graph fill up: a feature
lookup, a neighbour list, a two-hop path and a count, each on a real node (the one of
lowest degree that has the path, so that it prints a short answer; ties by id, so the same
graph always gets the same demos and the same cached prompt prefix). Every snippet runs on the graph and prints a result
(tests/test_graph_demos.py).
"""

from __future__ import annotations

import ast
import re

import dspy

from glm_dspy.executor.autofix import NAMED_FUNCTIONS
from glm_dspy.retrieval.observation import is_empty_output
from glm_dspy.graphs.literal import identifier
from glm_dspy.graphs.schema import DEGREE, GraphSchema, rel_table

MIN_DEMOS = 5
DEMO_TIMEOUT_S = 20.0
LONG_TEXT_FEATURES = ("abstract", "motivation", "description", "keywords")  # not asked for in a lookup demo
MAX_NAME_CHARS = 100  # an entity a written demo names: a longer title makes a long prompt


def act_demos(graph, hand_written: list[dspy.Example], *, repairs: bool = True) -> list[dspy.Example]:
    """The demos of `hand_written` that fit `graph`, then written ones up to MIN_DEMOS (module
    docstring). A hand-written demo fits when its snippet names only the graph's features and
    neighbour types and, run on the graph, prints a real result. `repairs=False` shows a
    repair demo (one with a previous_code) as a first try, without the failed code: with no
    repairs that case never comes up, and the model copied the failed code's mistake
    (`RetrieveNodes`) into first tries; its fixed snippet still shows a pattern (a count)."""
    names = set().union(*graph.schema.names())
    executor = graph.executor(timeout_s=DEMO_TIMEOUT_S)
    if not repairs:
        hand_written = [demo.copy(previous_code="", error="") if demo.previous_code else demo for demo in hand_written]
    kept = [demo for demo in hand_written if _names_in(demo.code) <= names and _runs(executor, demo.code)]
    missing = MIN_DEMOS - sum(1 for demo in kept if not demo.previous_code)
    written = [demo for demo in written_demos(graph) if _runs(executor, demo.code)] if missing > 0 else []
    return kept + written[:max(missing, 0)]


def _runs(executor, code: str) -> bool:
    result = executor.run(code)
    return (result.is_ok and bool(result.output.strip()) and not result.is_observation_only
            and not is_empty_output(result.output))


def _names_in(code: str) -> set[str]:
    """The feature and neighbour-type names a snippet passes to the graph functions."""
    return {node.args[1].value for node in ast.walk(ast.parse(code))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in NAMED_FUNCTIONS
            and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)}


def written_demos(graph) -> list[dspy.Example]:
    """Demos written from `graph`: a feature, a neighbour list, a two-hop path, a count."""
    schema, store = graph.schema, graph.store
    demos = []
    feature = _feature_demo(schema, store)
    if feature is not None:
        demos.append(feature)
    for relation in _relations(schema):
        src, dst = schema.relations[relation][0]
        label = schema.node_types[dst].text_feature
        name = _top_name(store, schema, src, [relation])
        if label and name:
            var = _variable(name)
            demos.append(_example(
                f"What are the {_words(relation)} of {name}?",
                f'{var} = RetrieveNode("{name}")\nprint(", ".join(NodeFeature(NeighbourCheck({var}, "{relation}"), '
                f'"{label}")))'))
            count = _example(f"How many {_words(relation)} does {name} have?",
                             f'{var} = RetrieveNode("{name}")\nprint(len(NeighbourCheck({var}, "{relation}")))')
            break
    else:
        count = None
    for first, second in _two_hops(schema):
        src = schema.relations[first][0][0]
        dst = next(d for s, d in schema.relations[second] if s == schema.relations[first][0][1])
        label = schema.node_types[dst].text_feature
        name = _top_name(store, schema, src, [first, second])
        if label and name:
            var = _variable(name)
            demos.append(_example(
                f"What are the {_words(second)} of the {_words(first)} of {name}?",
                f'{var} = RetrieveNode("{name}")\n{first} = NeighbourCheck({var}, "{first}")\n'
                f'print(", ".join(NodeFeature(NeighbourCheck({first}, "{second}"), "{label}")))'))
            break
    return demos + ([count] if count is not None else [])


def _feature_demo(schema: GraphSchema, store) -> dspy.Example | None:
    """A lookup of a feature other than the label, on the type with the most such features."""
    for type_name, node_type in sorted(schema.node_types.items(), key=lambda kv: (-len(kv[1].features), kv[0])):
        label = node_type.text_feature
        for feature in sorted(f for f in node_type.features if f != label and f in _short_value_features(node_type)):
            rows = store.query(
                f"MATCH (n:{identifier(type_name)}) WHERE n.{identifier(feature)} IS NOT NULL "
                f"RETURN n.{identifier(label)} AS name ORDER BY n.{DEGREE}, n.id LIMIT 5") if label else []
            if name := next((row["name"] for row in rows if _usable(row["name"])), None):
                return _example(f"What is the {_words(feature)} of {name}?",
                                f'{_variable(name)} = RetrieveNode("{name}")\n'
                                f'print(NodeFeature({_variable(name)}, "{feature}"))')
    return None


def _short_value_features(node_type) -> set[str]:
    """Features whose values are short facts (dates, numbers, names), not long text such as an abstract."""
    return {name for name, kind in node_type.features.items()
            if not name.endswith(("abstract", "motivation", "description", "keywords"))}


def _relations(schema: GraphSchema) -> list[str]:
    """Relations, plain ones (not `inv_`) first, each from a type with a label feature."""
    return sorted(schema.relations, key=lambda r: (r.startswith("inv_"), r))


def _two_hops(schema: GraphSchema) -> list[tuple[str, str]]:
    """(first, second) relation pairs that chain (first's target type has second), not a relation and
    its inverse; those that end on another node type than they start from first (paper -> paper ->
    author before paper -> author -> paper), where the graph has more than one."""
    pairs = []
    for first in _relations(schema):
        middle = {dst for _, dst in schema.relations[first]}
        for second in _relations(schema):
            if second == first or second in (f"inv_{first}", first.removeprefix("inv_")):
                continue
            ends = {dst for src, dst in schema.relations[second] if src in middle}
            if ends:
                starts = {src for src, _ in schema.relations[first]}
                pairs.append((ends <= starts and len(schema.node_types) > 1, first, second))
    return [(first, second) for _, first, second in sorted(pairs)]  # a path that leads on before one that returns


def _top_name(store, schema: GraphSchema, type_name: str, path: list[str]) -> str | None:
    """The label of the lowest-degree `type_name` node (ties by id) from which `path` leads somewhere:
    its snippet prints a short answer."""
    label = schema.node_types[type_name].text_feature
    if not label:
        return None
    hops = "".join(f"-[:{identifier(rel_table(relation))}]->(m{i})" for i, relation in enumerate(path))
    rows = store.query(f"MATCH (n:{identifier(type_name)}){hops} RETURN DISTINCT n.{identifier(label)} AS name, "
                       f"n.{DEGREE} AS degree, n.id AS id ORDER BY degree, id LIMIT 5")
    return next((row["name"] for row in rows if _usable(row["name"])), None)


def _usable(name) -> bool:
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME_CHARS and '"' not in name and "\\" not in name


def _words(name: str) -> str:
    return name.replace("_", " ")


def _variable(name: str) -> str:
    words = re.findall(r"[a-z]+", name.lower())
    word = max(words, key=len) if words else "node"
    return word if word.isidentifier() and word not in ("print", "len", "sum", "set", "list") else "node"


def _example(request: str, code: str) -> dspy.Example:
    return dspy.Example(request=request, previous_code="", error="", code=code).with_inputs(
        "request", "previous_code", "error")
