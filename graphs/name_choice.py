"""Which property each node type is known by: the text RetrieveNode embeds, neighbours are
labelled with, and questions name nodes by.

The choice, per type, first that applies:
1. the user's `--name-property TYPE=PROP` (`parse_name_properties`);
2. the reader's own (`GraphData.text_features`: a mapping file's `name`);
3. a STRING property spelled as one of `glm_dspy.graphs.schema.TEXT_FEATURES` (name, title, label, ...),
   in any letter case (`named_feature`);
4. none: the nodes are known by their ids. Where the type has STRING properties this is an
   unclear choice, and a note (`GraphData.notes`, said by the build) names them and the option.
"""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.schema import TEXT_FEATURES

OPTION = "--name-property"


def parse_name_properties(items: list[str] | tuple[str, ...]) -> dict[str, str]:
    """{type: property} of `TYPE=PROP` items (the option given once per type)."""
    chosen: dict[str, str] = {}
    for item in items:
        type_name, sep, prop = item.partition("=")
        if not sep or not type_name.strip() or not prop.strip():
            raise ValueError(f"{OPTION} {item!r}: write TYPE=PROPERTY, e.g. {OPTION} Person=full_name")
        if type_name.strip() in chosen:
            raise ValueError(f"{OPTION} names {type_name.strip()!r} twice")
        chosen[type_name.strip()] = prop.strip()
    return chosen


def _string_features(graph: GraphData, type_name: str) -> list[str]:
    table = graph.nodes[type_name].table
    return [f for f in graph.nodes[type_name].features
            if pa.types.is_string(table.schema.field(f).type) or pa.types.is_large_string(table.schema.field(f).type)]


def named_feature(strings: list[str]) -> str | None:
    """The first of `strings` (text properties, in column order) spelled as one of TEXT_FEATURES,
    in TEXT_FEATURES' order and any letter case; None where none is."""
    by_case = {f.lower(): f for f in reversed(strings)}  # the first spelling of each, in column order
    return next((by_case[t.lower()] for t in TEXT_FEATURES if t.lower() in by_case), None)


def choose_text_features(graph: GraphData, overrides: dict[str, str] | None = None) -> GraphData:
    """`graph` with each type's text feature chosen (module doc) and unclear choices noted."""
    overrides = overrides or {}
    for type_name, prop in overrides.items():
        if type_name not in graph.nodes:
            raise ValueError(f"{OPTION} {type_name}={prop}: no node type {type_name!r}; "
                             f"types: {', '.join(sorted(graph.nodes))}")
        if prop not in graph.nodes[type_name].features:
            raise ValueError(f"{OPTION} {type_name}={prop}: {type_name!r} has no property {prop!r}; "
                             f"its properties: {', '.join(graph.nodes[type_name].features) or '(none)'}")
    chosen, notes = {}, list(graph.notes)
    for type_name in graph.nodes:
        strings = _string_features(graph, type_name)
        found = overrides.get(type_name) or graph.text_features.get(type_name) or named_feature(strings)
        if found is not None:
            chosen[type_name] = found
        elif strings:
            notes.append(f"node type {type_name!r}: no property called {'/'.join(TEXT_FEATURES)}; its nodes are "
                         f"known by their ids. To name them by a property instead: {OPTION} {type_name}=PROP "
                         f"(its text properties: {', '.join(strings)})")
    return dataclasses.replace(graph, text_features=chosen, notes=notes)
