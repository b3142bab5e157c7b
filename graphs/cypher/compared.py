"""Readings whose end nodes compare two values of their own: "laureates who won their prize
before their own mentor did" (the year of the laureate's prize is before the year of its
mentor's prize), "born after their mentor died", or hold one value twice: "shared their prize
with someone of the same given name" (the laureate's given name is its co-laureate's). Where
graphs/cypher/loops.py's two paths meet on a node ("born in the same city as their mentor"),
these end on two values.

    MATCH path-to-x, (x)-first->(v1), (x)-second->(v2)
    WHERE year(v1.f1) < year(v2.f2) RETURN DISTINCT x.name
    MATCH path-to-x, (x)-second->(v2) WHERE x.f = v2.f AND v2 <> x RETURN DISTINCT x.name

Times are compared by their years (a date's first four characters, a year number as text), so
a date and a year compare; "=" holds one feature's value at both ends (a time by its year), and
the second end is another node than x.
Which two values a question means is the readings' ranking's to say; that it compares what it
asks about with its own ("before their mentor") is the question's
(glm_dspy/readings/operators.py `compared`). The pairs are the graph's own: values at the
end of two different paths of at most MAX_LOOP_HOPS hops (one may be none: the end's own value),
each pair checked with one query for some node that holds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.cypher.loops import MAX_LOOP_HOPS
from glm_dspy.graphs.cypher.printer import print_query
from glm_dspy.graphs.cypher.syntax import (Binary, Cast, FunctionCall, Literal, Match, NodePattern, PatternPart, Projection,
                                  Property, Query, RelPattern, Return, SingleQuery, Variable)
from glm_dspy.graphs.schema import REL_PREFIX

OPS = ("<", ">", "=")
SAID = {"<": "before", ">": "after", "=": "the same as"}
TEXT, DATE, YEAR = "text", "date", "year"  # how a compared value is read: as stored, or by its year
MAX_COMPARED = 96  # pairs checked per node type and comparison
FIRST, SECOND = "v1", "v2"  # the nodes holding the compared values


@dataclass(frozen=True, slots=True)
class Compared:
    """The end's time at the end of `first` (no hops: the end's own) `op` its time at the end of
    `second`, compared by year."""

    first: tuple  # of graphs.cypher.candidates.Hop
    first_feature: str
    op: str
    second: tuple
    second_feature: str
    dates: tuple[bool, bool] = (True, True)  # whether each feature holds ISO dates (else year numbers)
    text: bool = False  # "=" of values compared as stored, not by year

    def __post_init__(self) -> None:
        assert self.op in OPS, self.op
        assert self.second and self.first != self.second, (self.first, self.second)
        assert not self.text or self.op == "=", (self.op, self.text)

    @property
    def hops(self) -> tuple:
        return self.first + self.second

    def words(self) -> str:
        return (f"whose {_words(self.first, self.first_feature)} is {SAID[self.op]} its "
                f"{_words(self.second, self.second_feature)}")

    def patterns(self, end: str, labels: tuple[str, ...]) -> tuple[PatternPart, ...]:
        return tuple(_pattern(end, hops, name) for hops, name in ((self.first, FIRST), (self.second, SECOND)) if hops)

    def condition(self, end: str, end_labels: tuple[str, ...]):
        first = Property(Variable(FIRST if self.first else end), self.first_feature)
        second = Property(Variable(SECOND), self.second_feature)
        if not self.text:
            first, second = _year(first, self.dates[0]), _year(second, self.dates[1])
        compared = Binary(self.op, first, second)
        if self.op == "=" and self.second[-1].type_name in end_labels:  # one value twice: of another node
            return Binary("AND", compared, Binary("<>", Variable(SECOND), Variable(end)))
        return compared


def _year(value, date: bool):
    """A date's or a year's year, as four characters of text."""
    return FunctionCall("substring", (value, Literal(1), Literal(4))) if date else Cast(value, "STRING")


def _pattern(end: str, hops: tuple, name: str) -> PatternPart:
    nodes = [NodePattern(end, ())]
    rels = []
    for i, hop in enumerate(hops, 1):
        rels.append(RelPattern(types=(REL_PREFIX + hop.relation,), direction="out" if hop.outgoing else "in"))
        nodes.append(NodePattern(name if i == len(hops) else None, (hop.type_name,) if i == len(hops) else hop.labels))
    return PatternPart(tuple(nodes), tuple(rels))


def _words(hops: tuple, feature: str) -> str:
    """"mentor's prize year": each hop by what it reaches as the question would say it (a hop
    forwards by its relation, one backwards by the type it reaches), then the feature."""
    things = [hop.relation if hop.outgoing else hop.type_name for hop in hops]
    return " ".join(["'s ".join(t.replace("_", " ") for t in things), feature.replace("_", " ")]).strip()


def compared_of(store, schema, type_name: str, op: str, inverses, timed) -> list[Compared]:
    """The pairs of values (at the ends of two different paths of at most MAX_LOOP_HOPS hops
    from nodes of `type_name`, plain types; the first path may be none) that compare by `op` for
    some node of it, the same feature of two things and the end's own value first, then the
    shortest, at most MAX_COMPARED checked. `timed(type, feature)`: DATE, YEAR, TEXT (a value
    "=" may hold twice) or None; "<" and ">" compare times, "=" one feature's values."""
    from glm_dspy.graphs.cypher.candidate import Start
    from glm_dspy.graphs.cypher.walk import paths_from

    assert op in OPS, op
    paths = [()] + [p for p in paths_from(store, Start(type_name, (), type_name), max_hops=MAX_LOOP_HOPS,
                                          inverses=inverses) if p and not any(hop.also for hop in p)]
    kinds = (DATE, YEAR, TEXT) if op == "=" else (DATE, YEAR)
    times = [(hops, feature, timed(held, feature)) for hops in paths
             for held in [hops[-1].type_name if hops else type_name]
             for feature in schema.node_types[held].features if timed(held, feature) in kinds]
    pairs = [(a, b) for a in times for b in times if b[0] and a[0] != b[0]
             and (op != "=" or (a[1] == b[1] and (a[2] == TEXT) == (b[2] == TEXT)))]
    # first the same value of two things ("won before their mentor did": both prizes' years) and
    # the end's own value against another's ("born after their mentor won"), then the shorter
    pairs.sort(key=lambda pair: (bool(pair[0][0]) and pair[0][1] != pair[1][1], len(pair[0][0]) + len(pair[1][0])))
    found = []
    for (first, f1, k1), (second, f2, k2) in pairs[:MAX_COMPARED]:
        compared = Compared(first, f1, op, second, f2, (k1 == DATE, k2 == DATE), text=k1 == TEXT)
        end = "x"
        match = Match((PatternPart((NodePattern(end, (type_name,)),), ()), *compared.patterns(end, (type_name,))),
                      compared.condition(end, (type_name,)))
        query = print_query(Query((SingleQuery((match, Return(Projection(((Variable(end), end),), limit=None)))),)))
        if store.query(query + " LIMIT 1"):
            found.append(compared)
    return found


__all__ = ["Compared", "compared_of", "OPS", "MAX_COMPARED", "TEXT", "DATE", "YEAR"]
