"""Candidate readings from the graph's own paths: each path from a start with each thing its end
may return (`readings_of`), the other nodes that share a named node's value
(`same_value_candidates`), and the nodes two paths both reach (`joined_candidates`). A model (or
the embedder) then only has to say which of a few valid readings the question means.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Hop, Start, turns_back
from glm_dspy.graphs.cypher.walk import MAX_HOPS, paths_from


def candidates_from(store, schema, start: Start, **options) -> list[Candidate]:
    """Each path from `start` with each thing its end may return: the end type's features and
    the number of end nodes. Of no hops: the start's other features (not those its conditions
    name), and, for nodes met by value, how many meet them."""
    return readings_of(schema, start, paths_from(store, start, **options))


def readings_of(schema, start: Start, paths, join: "tuple[Start, tuple[Hop, ...]] | None" = None) -> list[Candidate]:
    result = []
    named = {c.feature for c in start.conditions}
    for path in paths:
        end_types = path[-1].labels if path else (start.type_name,)
        excludes = start.type_name in end_types and turns_back(path)
        shared = [schema.node_types[t].features for t in end_types]
        features = [f for f in shared[0] if all(f in other for other in shared[1:]) and (path or join or f not in named)]
        result += [Candidate(start, path, feature, excludes, join) for feature in features]
        if path or join or not start.is_named:
            result.append(Candidate(start, path, COUNT, excludes, join))
    return result


def same_value_candidates(schema, start: Start) -> list[Candidate]:
    """Of a named node: the other nodes of its type that share one of its values (born on the
    same day, in the same city), each thing they may return. Lists and the name aside."""
    node_type = schema.node_types[start.type_name]
    named = {c.feature for c in start.conditions}
    shared = [f for f, kind in node_type.features.items() if f not in named and not kind.endswith("[]")]
    return [Candidate(start, (), returns, True, None, same) for same in shared
            for returns in [*node_type.features, COUNT] if returns != same]


def joined_candidates(store, schema, first: Start, first_paths, second: Start, second_paths, *,
                      max_hops: int = MAX_HOPS + 1, max_joins: int = 60, probe: bool = True) -> list[Candidate]:
    """Readings of the nodes two paths both reach: a path from `first` and a path from `second`
    that end at nodes of one type, at most `max_hops` hops together, and meet at some node
    (checked with one query each); shortest first, at most `max_joins` pairs; of a named node and
    nodes of its type the question states, also the two with no hops (the named node is one of
    them, or not: unchecked). Two starts bound
    from the same words of the question (1913 as a prize's year and as a birth year) are two
    readings of those words, never one reading joining them: they give none. A probe that Kuzu
    cannot run (its buffer pool full, past its time) offers no join: unchecked, it is no reading.
    `probe` False: no pair is checked (a yes/no question's join that reads nothing says no)."""
    if first.said_alike(second):
        return []
    result = []
    if first.type_name == second.type_name and first.is_named != second.is_named:
        # no hops: whether the named node is one of the stated ("Is X still alive?"), unprobed: a
        # reading that reads no rows says no
        result += readings_of(schema, first, [()], (second, ()))
    pairs = sorted(((p, q) for p in first_paths for q in second_paths
                    if (p or q) and len(p) + len(q) <= max_hops
                    and (p[-1].labels if p else (first.type_name,)) == (q[-1].labels if q else (second.type_name,))),
                   key=lambda pair: len(pair[0]) + len(pair[1]))
    for p, q in pairs:
        if probe:
            try:
                if not store.read(Candidate(first, p, COUNT, False, (second, q)).cypher).rows[0]["count"]:
                    continue
            except RuntimeError:  # Kuzu's errors: "buffer pool is full", "Interrupted."
                continue
        result += readings_of(schema, first, [p], (second, q))
        if len(result) >= max_joins * 4:
            break
    return result


__all__ = ["candidates_from", "readings_of", "joined_candidates", "same_value_candidates"]
