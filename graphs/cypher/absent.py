"""Readings of what a path does not reach: the complement of a path's ends among all nodes of
their type ("the continents where no economics laureate was born": the continents that no path
from an economics prize through a laureate's birth country reaches), or, of a path from every
node of a type, the nodes from which it reaches nothing ("the laureates who had no mentor").

    end:   MATCH (x:End) WHERE NOT EXISTS { MATCH path-to-x WHERE start } RETURN DISTINCT x.name
    value: MATCH (y:End) WHERE y.f IS NOT NULL AND NOT EXISTS { MATCH path-to-x WHERE start AND x.f = y.f }
           RETURN DISTINCT y.f     (a category of the end: "the continents where no ... was born")
    start: MATCH (a:T) WHERE NOT EXISTS { MATCH path-from-a } RETURN DISTINCT a.name

Which path a question negates is the readings' ranking's to say; that it negates is the
question's (glm_dspy/readings/operators.py `negated`).
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.cypher.value_index import TEXT, ValueIndex
from glm_dspy.graphs.cypher.syntax import (Binary, FunctionCall, IsNull, Match, NodePattern, PatternPart, Projection,
                                           Property, Query, Return, SingleQuery, Subquery, Unary, Variable)

END, START = "end", "start"
MAX_ABSENT_HOPS = 3


@dataclass(frozen=True, slots=True)
class Absent:
    """The nodes at the `side` of a path (END: of the end's types; START: of an unconditioned
    start's type) that the path does not join to anything; or, where `feature` is given, the
    values of that feature of the end's type that no end the path reaches holds."""

    side: str
    feature: str | None = None

    def __post_init__(self) -> None:
        assert self.side in (END, START) and not (self.feature and self.side == START), (self.side, self.feature)

    def words(self, type_name: str) -> str:
        return f"every {type_name} it does {'not reach' if self.side == END else 'not start'}"

    def value_tree(self, path: PatternPart, where, labels: tuple[str, ...], end: str, count: bool) -> Query:
        """The values of the end's `feature` that no end of `path` (its start's conditions
        `where`) holds; how many there are where `count`."""
        feature = self.feature
        value, other = Property(Variable("y"), feature), Property(Variable(end), feature)
        inner = Binary("=", other, value) if where is None else Binary("AND", where, Binary("=", other, value))
        outer = Match((PatternPart((NodePattern("y", labels),), ()),),
                      Binary("AND", IsNull(value, negated=True), Unary("NOT", Subquery("EXISTS", (path,), inner))))
        if count:
            returned = Projection(((FunctionCall("count", (value,), distinct=True), "count"),))
        else:
            returned = Projection(((value, feature),), distinct=True)
        return Query((SingleQuery((outer, Return(returned))),))

    def tree(self, path: PatternPart, where, labels: tuple[str, ...], first: str, end: str,
             returns: str | None) -> Query:
        """`path` from `first` to `end` (its start's conditions `where`); `returns`: the feature
        of the nodes kept, None for how many they are."""
        kept = end if self.side == END else first
        outer = Match((PatternPart((NodePattern(kept, labels),), ()),),
                      Unary("NOT", Subquery("EXISTS", (path,), where)))
        if returns is None:
            returned = Projection(((FunctionCall("count", (Variable(kept),), distinct=True), "count"),))
        else:
            returned = Projection(((Property(Variable(kept), returns), returns),), distinct=True)
        return Query((SingleQuery((outer, Return(returned))),))


def absent_readings(schema, index: ValueIndex, readings, count_asked: bool) -> list:
    """Of each plain path of `readings` (at most MAX_ABSENT_HOPS hops), the nodes of its end's
    types it does not reach, and the values of each categorical feature of its end that no end
    it reaches holds; of a path from every node of a type, the nodes it leaves from nothing.
    Each returns those nodes' names (or the values), or how many they are where `count_asked`."""
    from glm_dspy.graphs.cypher.candidate import COUNT, Candidate

    paths = dict.fromkeys((c.start, c.hops) for c in readings
                          if c.join is None and c.same is None and c.order is None and c.group is None
                          and c.meets is None and c.counted is None and c.absent is None
                          and 1 <= len(c.hops) <= MAX_ABSENT_HOPS)
    found = []
    for start, hops in paths:
        if start.conditions:
            side, type_name = END, hops[-1].type_name
        else:
            side, type_name = START, start.type_name
        returns = COUNT if count_asked else schema.node_types[type_name].text_feature
        found.append(Candidate(start, hops, returns, absent=Absent(side)))
        if side == END and not hops[-1].also:
            for feature in schema.node_types[type_name].features:
                if (type_name, feature) in index.categorical and index.kind(type_name, feature) == TEXT:
                    found.append(Candidate(start, hops, COUNT if count_asked else feature,
                                           absent=Absent(END, feature)))
    return found


__all__ = ["Absent", "absent_readings", "END", "START", "MAX_ABSENT_HOPS"]
