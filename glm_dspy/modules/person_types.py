"""Which of a graph's node types hold people, read from the graph's own names, not from its
type names: "Who ...?" asks for a person, and a type called `laureate`, `scholar` or `Person`
says so only to a reader who knows the word. The embedder does know what people's names look
like: the names of a sample of a type's nodes ("Louis de Broglie", "Keanu Reeves") lie near "a
person"; a prize's ("Nobel Prize in Physics 1929"), a city's or a genre's do not.

Measured on the Nobel graph (laureate 0.25, scholar 0.25; country 0.15, city 0.14, institution and
prize 0.08) and the movies example (Person 0.26; Genre 0.14, Movie 0.13): PERSON_LIKENESS lies
between. A graph of one node type has no type to prefer: none is returned.
"""

from __future__ import annotations

import numpy as np

from glm_dspy.graphs.literal import cypher_name

PERSON = "a person"
PERSON_LIKENESS = 0.2  # mean cosine of a type's sampled names and PERSON, at or above which it holds people
SAMPLED_NAMES = 40  # names of each type embedded (the first the store gives: the same every run)


def person_types(store, schema, embed) -> frozenset[str]:
    """The node types whose sampled names lie near PERSON (mean cosine >= PERSON_LIKENESS).
    `embed(texts)` gives unit vectors (glm_dspy/modules/embedding_cache.py)."""
    if len(schema.node_types) < 2:
        return frozenset()
    probe = embed([PERSON])[0]
    found = set()
    for type_name, node_type in schema.node_types.items():
        feature = node_type.text_feature
        rows = store.read(f"MATCH (n:{cypher_name(type_name)}) WHERE n.{cypher_name(feature)} IS NOT NULL "
                          f"RETURN n.{cypher_name(feature)} AS name LIMIT {SAMPLED_NAMES}").rows
        names = [str(row["name"]) for row in rows if str(row["name"]).strip()]
        if names and float(np.mean(embed(names) @ probe)) >= PERSON_LIKENESS:
            found.add(type_name)
    return frozenset(found)


__all__ = ["person_types", "PERSON_LIKENESS"]
