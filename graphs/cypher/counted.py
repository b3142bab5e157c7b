"""Readings that count per node: of the nodes at one place on a path, those the path reaches a
bounded number of things from ("institutions that had laureates in more than one field": the
institutions a path reaches, each with the number of distinct prize categories beyond it, kept
where that number is above 1; "laureates who won twice": at least 2 prizes).

    MATCH path WITH k AS glm_key, count(DISTINCT end[.feature]) AS glm_n WHERE glm_n > 1
    RETURN DISTINCT glm_key.name        (or count(DISTINCT glm_key): "how many ... more than once")

An order keeps to the paths of the key nodes a count keeps (`ordered_counted`: "the last person to
win the physics prize alone": of the physics prizes with exactly one laureate, the latest's
laureate): the kept keys are collected, and the order's path runs again among them
(graphs/cypher/ranked.py `Order.tree`, `kept`).

What is counted is the path's end nodes, or their values of a categorical feature or of a
year; which node is counted by is any node of one type on the path before its end but a named
start (one node: nothing to count by). Which of these a question means is the readings'
ranking's to say; the bound (op, n) is the question's (glm_dspy/readings/operators.py
`count_bound`), never guessed here.
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.cypher.value_index import NUMBER, TEXT, ValueIndex
from glm_dspy.graphs.cypher.syntax import (Binary, FunctionCall, Literal, Match, Projection, Property, Query, Return,
                                           SingleQuery, Variable, With)

BOUNDS = (">", ">=", "<", "<=", "=")
KEY, SIZE, KEPT = "glm_key", "glm_n", "glm_kept"
# "medicine laureates affiliated with institutions in two countries": prize, laureate, institution, country
MAX_COUNTED_HOPS = 3
_SAID = {">": "more than", ">=": "at least", "<": "fewer than", "<=": "at most", "=": "exactly"}


@dataclass(frozen=True, slots=True)
class Counted:
    """The nodes `at` hops along the reading's own path (of type `type_name`; 0: its start)
    from which the path reaches `op n` distinct end nodes (`feature` None) or distinct values
    of the end's `feature`."""

    at: int
    type_name: str
    feature: str | None
    op: str
    n: int

    def __post_init__(self) -> None:
        assert self.op in BOUNDS and self.n >= 0 and self.at >= 0, (self.op, self.n, self.at)

    def words(self, end_type: str) -> str:
        counted = (self.feature or end_type).replace("_", " ")
        return f"{self.type_name} with {_SAID[self.op]} {self.n} different {counted}"

    def grouped(self, key: str, end: str) -> With:
        """WITH the key nodes and their counts, kept where the count meets the bound."""
        counted = Variable(end) if self.feature is None else Property(Variable(end), self.feature)
        return With(Projection(((Variable(key), KEY), (FunctionCall("count", (counted,), distinct=True), SIZE))),
                    Binary(self.op, Variable(SIZE), Literal(self.n)))

    def kept(self, match: Match, key: str, end: str) -> tuple[tuple, Binary, str]:
        """The clauses that collect the key nodes whose count meets the bound, the condition that
        keeps a path's rows to those keys, and the variable that carries them (KEPT)."""
        collected = With(Projection(((FunctionCall("collect", (Variable(KEY),)), KEPT),)))
        return (match, self.grouped(key, end), collected), Binary("IN", Variable(key), Variable(KEPT)), KEPT

    def tree(self, match: Match, key: str, end: str, name: str | None) -> Query:
        """The names (`name`: the key's name feature) of the key nodes whose count meets the
        bound, or how many there are (`name` None)."""
        grouped = self.grouped(key, end)
        if name is None:
            returned = Projection(((FunctionCall("count", (Variable(KEY),), distinct=True), "count"),))
        else:
            returned = Projection(((Property(Variable(KEY), name), name),), distinct=True)
        return Query((SingleQuery((match, grouped, Return(returned))),))


def counted_readings(schema, index: ValueIndex, readings, bound: tuple[str, int], count_asked: bool) -> list:
    """Of each plain path of `readings` (of at most MAX_COUNTED_HOPS hops), each node of one
    type before its end (but a named start) counted by its end nodes and by each of the end's
    categorical or year values, kept where the count meets `bound`; each returns the counted-by
    node's name, or how many such nodes there are where `count_asked`."""
    from glm_dspy.graphs.cypher.candidate import COUNT, Candidate

    op, n = bound
    paths = dict.fromkeys((c.start, c.hops) for c in readings
                          if c.join is None and c.same is None and c.order is None and c.group is None
                          and c.meets is None and c.counted is None and 1 <= len(c.hops) <= MAX_COUNTED_HOPS)
    found = []
    for start, hops in paths:
        end = hops[-1]
        features = [None] + [f for f in schema.node_types[end.type_name].features if not end.also
                             and ((end.type_name, f) in index.categorical and index.kind(end.type_name, f) == TEXT
                                  or (end.type_name, f) in index.years and index.kind(end.type_name, f) == NUMBER)]
        types = [None if start.is_named else start.type_name] \
            + [None if hop.also else hop.type_name for hop in hops[:-1]]
        for at, type_name in enumerate(types):
            if type_name is None:
                continue
            returns = COUNT if count_asked else schema.node_types[type_name].text_feature
            for feature in features:
                found.append(Candidate(start, hops, returns, counted=Counted(at, type_name, feature, op, n)))
    return found


def ordered_counted(readings) -> list:
    """Of each reading that orders a plain path (graphs/cypher/ranked_candidates.py), the same
    order kept to the paths of each counted reading of that path (of `readings`) that counts its
    end nodes: "the last person to win the physics prize alone"."""
    from glm_dspy.graphs.cypher.candidate import Candidate

    counts: dict[tuple, list[Counted]] = {}
    for c in readings:
        if c.counted is not None and c.counted.feature is None:
            counts.setdefault((c.start, c.hops), []).append(c.counted)
    return [Candidate(c.start, c.hops, c.returns, c.excludes_start, order=c.order, counted=counted)
            for c in readings if c.order is not None and c.join is None and c.counted is None
            and c.order.nth == c.order.top == 1  # an nth or a top ranks end nodes, not the rows a count keeps
            for counted in counts.get((c.start, c.hops), ())]


__all__ = ["Counted", "counted_readings", "ordered_counted", "BOUNDS", "MAX_COUNTED_HOPS"]
