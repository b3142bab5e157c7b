"""The ranked readings of a question's paths (graphs/cypher/ranked.py): for each path the plain
readings take, the same path ordered by each date or year a node on it holds (where the
question asks for a first or a last: an order in time), and grouped by each value a node on it holds (where it asks
for the most or the fewest). What a key is, is read from the graph (graphs/cypher/anchors.py's
kinds), never from the question: the ranking of the readings picks among them.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.value_index import DATE, NUMBER, TEXT, ValueIndex
from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
from glm_dspy.graphs.cypher.ranked import DECADE, MONTH, YEAR, Group, Key, Order

MAX_RANKED_HOPS = 2  # longer paths are not ranked: their keys multiply, and a question that ranks says its path


def ranked_readings(schema, index: ValueIndex, readings: list[Candidate], *, descending: bool | None,
                    most: bool | None, by_number=None, key_types: frozenset[str] | None = None) -> list[Candidate]:
    """Of each path of `readings` (of at most MAX_RANKED_HOPS hops a side): where `descending` is
    not None, its end's name (and the key itself, where the key is the end's) ordered by each
    key, the last first where `descending`; where `most` is not None, each key's value (a date's
    year, month or decade; a number's value or decade; a category's or another node's name)
    shared by the most end nodes (the fewest, where `most` is False); where `by_number` (a
    superlative: glm_dspy/readings/question.py `Ranked`), its end's name ordered by each number
    on the path that is not a year, the largest first where it says so, its nth and top: of a
    node of `key_types` where given (the types the noun it ranks names)."""
    paths = dict.fromkeys((c.start, c.hops, c.join, c.excludes_start) for c in readings
                          if c.same is None and c.order is None and c.group is None and c.meets is None
                          and len(c.hops) <= MAX_RANKED_HOPS and (c.join is None or len(c.join[1]) <= MAX_RANKED_HOPS))
    found = []
    for start, hops, join, excludes in paths:
        end_type = hops[-1].type_name if hops else start.type_name
        name = schema.node_types[end_type].text_feature
        for key in _keys(schema, start, hops, join):
            kind = index.kind(key.type_name, key.feature)
            at_end = key.side == "a" and key.at == len(hops)
            timed = kind == DATE or (key.type_name, key.feature) in index.years
            if descending is not None and timed:
                for returns in dict.fromkeys([name, key.feature] if at_end else [name]):
                    found.append(Candidate(start, hops, returns, excludes, join, order=Order(key, descending)))
            if by_number is not None and kind == NUMBER and not timed \
                    and (not key_types or key.type_name in key_types):
                order = Order(key, by_number.larger, number=True, nth=by_number.nth, top=by_number.top)
                found.append(Candidate(start, hops, name, excludes, join, order=order))
            if most is not None:
                for part in _parts(index, key, kind, timed, at_end, schema):
                    group = Group(key, part, fewest=not most, date=kind == DATE, before=at_end and key.feature == name)
                    found.append(Candidate(start, hops, key.feature, excludes, join, group=group))
    return found


def _parts(index: ValueIndex, key: Key, kind: str, timed: bool, at_end: bool, schema) -> tuple[str | None, ...]:
    """How a key groups: a date by its year, month or decade; a year by itself or its decade;
    another number, a category or a node's name as it is (the end's own name groups the nodes
    one hop before it: `Candidate._grouped`; an end that is its start groups nothing)."""
    if kind == DATE:
        return (YEAR, MONTH, DECADE)
    if kind == NUMBER:
        return (None, DECADE) if timed else (None,)
    if kind == TEXT and ((key.type_name, key.feature) in index.categorical
                         or (key.at > 0 or not at_end) and key.feature == schema.node_types[key.type_name].text_feature):
        return (None,)
    return ()


def _keys(schema, start: Start, hops: tuple[Hop, ...], join) -> list[Key]:
    """Every feature of every node of the path that is one node type (a named start is one node:
    nothing to rank), the joined path's too but its end (the same node as this path's)."""
    sides = [("a", start, hops)] + ([("b", *join)] if join is not None else [])
    keys = []
    for side, first, path in sides:
        types = [None if first.is_named else first.type_name] + [None if hop.also else hop.type_name for hop in path]
        if side == "b":
            types = types[:-1]
        for at, type_name in enumerate(types):
            if type_name is not None:
                keys += [Key(side, at, type_name, feature) for feature in schema.node_types[type_name].features]
    return keys


__all__ = ["ranked_readings", "MAX_RANKED_HOPS"]
