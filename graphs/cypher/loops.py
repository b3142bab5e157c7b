"""Readings whose end nodes reach one node by two of their own paths: "laureates working in their
birth city" (a laureate's institution's city is the laureate's birth city), "born in the same
city as their mentor" (the laureate's birth city and the mentor's birth city: one node), "shared
a prize with their mentor".

    MATCH path-to-x, (x)-first->(l), (x)-second->(l) [WHERE l <> x] RETURN DISTINCT x.name

Which two paths a question means is the readings' ranking's to say; that it refers back to what
it asks about ("their", "his", "her") is the question's (glm_dspy/readings/operators.py
`refers_back`). The pairs are the graph's own: two paths of at most MAX_LOOP_HOPS hops from a
node type that end at one type and, for some node, at one node (one query each).
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.cypher.printer import print_query
from glm_dspy.graphs.cypher.syntax import (Binary, Match, NodePattern, PatternPart, Projection, Query, RelPattern,
                                           Return, SingleQuery, Variable)
from glm_dspy.graphs.schema import REL_PREFIX

MAX_LOOP_HOPS = 2
MAX_LOOPS = 24  # pairs checked per node type
MEET = "l"  # the node both paths reach


@dataclass(frozen=True, slots=True)
class Loop:
    """Two different paths from a reading's end that reach one node (not the end itself)."""

    first: tuple  # of glm_dspy.graphs.cypher.candidates.Hop
    second: tuple

    def __post_init__(self) -> None:
        assert self.first and self.second and self.first != self.second, (self.first, self.second)
        assert self.first[-1].type_name == self.second[-1].type_name, (self.first, self.second)

    @property
    def hops(self) -> tuple:
        return self.first + self.second

    def words(self) -> str:
        return f"whose {_words(self.first)} is the same {self.first[-1].type_name} as its {_words(self.second)}"

    def patterns(self, end: str, labels: tuple[str, ...]) -> tuple[PatternPart, PatternPart]:
        return _pattern(end, labels, self.first), _pattern(end, labels, self.second)

    def condition(self, end: str, end_labels: tuple[str, ...]):
        """Where both paths may come back to the end's own type, the node they meet is another."""
        return Binary("<>", Variable(MEET), Variable(end)) if self.first[-1].type_name in end_labels else None


def _pattern(end: str, labels: tuple[str, ...], hops: tuple) -> PatternPart:
    nodes = [NodePattern(end, ())]
    rels = []
    for i, hop in enumerate(hops, 1):
        rels.append(RelPattern(types=(REL_PREFIX + hop.relation,), direction="out" if hop.outgoing else "in"))
        nodes.append(NodePattern(MEET if i == len(hops) else None, (hop.type_name,) if i == len(hops) else hop.labels))
    return PatternPart(tuple(nodes), tuple(rels))


def _words(hops: tuple) -> str:
    return " -> ".join(hop.relation.replace("_", " ") if hop.outgoing else f"{hop.type_name} whose "
                       f"{hop.relation.replace('_', ' ')} it is" for hop in hops)


def loops_of(store, type_name: str, inverses, *, max_loops: int = MAX_LOOPS) -> list[Loop]:
    """The pairs of paths (at most MAX_LOOP_HOPS hops each, plain types) from nodes of
    `type_name` that reach one node for some node of it, shortest first, at most `max_loops`
    checked."""
    from glm_dspy.graphs.cypher.candidate import Start
    from glm_dspy.graphs.cypher.walk import paths_from

    paths = [p for p in paths_from(store, Start(type_name, (), type_name), max_hops=MAX_LOOP_HOPS, inverses=inverses)
             if p and not any(hop.also for hop in p)]
    pairs = [(a, b) for i, a in enumerate(paths) for b in paths[i + 1:] if a[-1].type_name == b[-1].type_name]
    pairs.sort(key=lambda pair: len(pair[0]) + len(pair[1]))
    found = []
    for first, second in pairs[:max_loops]:
        loop = Loop(first, second)
        end = "x"
        match = Match((PatternPart((NodePattern(end, (type_name,)),), ()), *loop.patterns(end, (type_name,))),
                      loop.condition(end, (type_name,)))
        query = print_query(Query((SingleQuery((match, Return(Projection(((Variable(end), end),), limit=None)))),)))
        if store.query(query + " LIMIT 1"):
            found.append(loop)
    return found


__all__ = ["Loop", "loops_of", "MAX_LOOP_HOPS", "MEET"]
