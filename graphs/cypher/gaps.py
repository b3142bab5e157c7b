"""Readings of the years of a range that nothing holds: "how many times between 1901 and 2022 was
the chemistry prize not awarded" asks for the years from 1901 to 2022 in which no chemistry
prize is. Those years are no node's value, so no path reads them (graphs/cypher/absent.py reads
the values other nodes hold); they are counted out of the range itself:

    UNWIND range(1901, 2022) AS glm_year
    OPTIONAL MATCH (x:prize) WHERE x.category = 'Chemistry' AND x.year = glm_year
    WITH glm_year, count(x) AS glm_held WHERE glm_held = 0
    RETURN glm_year AS year          (or: RETURN count(glm_year) AS count)

A reading's start bound on a year feature by a range (anchors' RANGE, of a feature whose every
value is a year) gives one; the path from it may be longer ("the years in which no woman won"),
its conditions kept but the range, which the years now walk.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.condition import RANGE, Condition
from glm_dspy.graphs.cypher.syntax import (Binary, FunctionCall, Literal, Match, Projection, Property, Query, Return,
                                           SingleQuery, Unwind, Variable, With)

YEAR, HELD = "glm_year", "glm_held"
MAX_GAP_HOPS = 2


@dataclass(frozen=True, slots=True)
class Gap:
    """The years of a start's `range` (a RANGE condition on a year feature: low to high, both
    in) in which no path from a start node with that year is."""

    range: Condition

    def __post_init__(self) -> None:
        assert self.range.op == RANGE and all(isinstance(v, int) for v in self.range.value), self.range

    @property
    def feature(self) -> str:
        return self.range.feature

    def words(self) -> str:
        low, high = self.range.value
        return f"every {self.feature.replace('_', ' ')} from {low} to {high} it does not hold"

    def unbounded(self, start):
        """The start without the range: the years walk it."""
        return replace(start, conditions=tuple(c for c in start.conditions if c != self.range))

    def tree(self, match: Match, key: Property, end: str, count: bool) -> Query:
        """`match` (its start's range left out), each year in turn equal to the start's `key`;
        the years no row meets, or how many they are."""
        year = Variable(YEAR)
        where = Binary("=", key, year) if match.where is None else Binary("AND", match.where, Binary("=", key, year))
        returned = Projection(((FunctionCall("count", (year,)), "count"),)) if count else \
            Projection(((year, self.feature),), order=((year, False),))
        return Query((SingleQuery((
            Unwind(FunctionCall("range", tuple(Literal(v) for v in self.range.value)), YEAR),
            replace(match, where=where, optional=True),
            With(Projection(((year, YEAR), (FunctionCall("count", (Variable(end),)), HELD))),
                 Binary("=", Variable(HELD), Literal(0))),
            Return(returned))),))


def gap_readings(years: set[tuple[str, str]], readings, count_asked: bool) -> list:
    """Of each plain reading (at most MAX_GAP_HOPS hops) whose start a range bounds on a year
    feature (`years`: the (type, feature) pairs whose values are years), the years of the range
    that no such path holds: the years, or how many they are where `count_asked`."""
    from glm_dspy.graphs.cypher.candidate import COUNT, Candidate

    found, seen = [], set()
    for c in readings:
        if c.join or c.same or c.order or c.group or c.meets or c.counted or c.absent or c.loop \
                or len(c.hops) > MAX_GAP_HOPS or (c.start, c.hops) in seen:
            continue
        for condition in c.start.conditions:
            if condition.op != RANGE or (c.start.type_name, condition.feature) not in years:
                continue
            seen.add((c.start, c.hops))
            found.append(Candidate(c.start, c.hops, COUNT if count_asked else condition.feature, gap=Gap(condition)))
    return found


__all__ = ["Gap", "gap_readings", "MAX_GAP_HOPS"]
