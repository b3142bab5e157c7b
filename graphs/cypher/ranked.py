"""Readings that rank what a path reaches: the first or the last by a value on the path ("the
first woman to win the economics prize": the laureates an economics prize reaches, those of the
smallest prize year), and the value shared by the most of them ("the month the most medicine
laureates were born in": the laureates' birth dates grouped by month, the month of the most).

    Order(key, descending)   -> MATCH path WITH min(key) AS best MATCH path WHERE key = best RETURN end
    Group(key, part)         -> MATCH path WITH part(key) AS k, count(DISTINCT end) AS n RETURN k ORDER BY n DESC
    (keyed on the end's own name, `before`: count(DISTINCT the node one hop before the end))

A key is a feature of one node of the path, named by which path (the reading's own, or the one
it joins) and how many hops along it. Which key a question means is the readings' ranking's to
say, not this file's: every date or year on the path orders, every date (by its year, month
or decade), number, category or name of a node other than the end groups. Ties at the top are
all returned by an order (two laureates of the first year); a group's ties go to the smaller
key, so the answer is stable. Dates are ISO text (`1949-06-25`; an unknown month is `00`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.syntax import (Binary, Case, Cast, FunctionCall, IsNull, Literal, Match, Projection,
                                           Property, Query, Return, SingleQuery, Variable, With)

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
YEAR, MONTH, DECADE = "year", "month", "decade"
BEST, KEY, SIZE = "glm_best", "glm_key", "glm_n"


@dataclass(frozen=True, slots=True)
class Key:
    """A feature of one node of a reading's path: `side` "a" (the reading's own path) or "b"
    (the path it joins), `at` hops along it (0: its start)."""

    side: str
    at: int
    type_name: str
    feature: str

    def words(self) -> str:
        return f"{self.type_name} {self.feature}".replace("_", " ")


@dataclass(frozen=True, slots=True)
class Order:
    """The end nodes at one end of an order by the key: the first (smallest) or, `descending`,
    the last (largest). `number`: the key is a number, said as the largest or the smallest, not
    the first or the last. `nth` counts from that end and `top` keeps that many ("the
    second-largest": nth 2; "the three biggest": top 3); each end node is ranked by its best
    key, ties in the order of its returned value."""
    key: Key
    descending: bool
    number: bool = False
    nth: int = 1
    top: int = 1

    def words(self) -> str:
        end = ("largest" if self.descending else "smallest") if self.number else ("last" if self.descending else "first")
        place = f"{_ordinal(self.nth)} " if self.nth > 1 else ""
        many = f"{self.top} " if self.top > 1 else ""
        return f"the {place}{many}{end} by {self.key.words()}"

    def tree(self, match: Match, key: Property, returned: Projection, kept: tuple | None = None,
             end: str | None = None) -> Query:
        """The rows of the path whose key is the smallest (largest) any of its rows has; `kept`:
        (the clauses before, the condition that keeps the path's rows, the variable they carry),
        as graphs/cypher/counted.py `Counted.kept` gives them: among the rows it keeps. Where
        `nth` or `top` is more than 1, the end nodes (variable `end`) ranked by their best key."""
        before, condition, carried = kept if kept is not None else ((), None, None)
        where = match.where if condition is None else _and(match.where, condition)
        known = _and(where, IsNull(key, negated=True))
        best_of = FunctionCall("max" if self.descending else "min", (key,))
        if (self.nth > 1 or self.top > 1) and end is not None and kept is None:
            (value, _), = returned.items
            ranked = With(Projection(((Variable(end), end), (best_of, BEST)),
                                     order=((Variable(BEST), self.descending), (value, False)),
                                     skip=Literal(self.nth - 1) if self.nth > 1 else None, limit=Literal(self.top)))
            return Query((SingleQuery((*before, Match(match.patterns, known), ranked,
                                       Return(replace(returned, distinct=False)))),))
        best = With(Projection(((() if carried is None else ((Variable(carried), carried),))
                                + ((best_of, BEST),))))
        again = Match(match.patterns, _and(where, Binary("=", key, Variable(BEST))))
        return Query((SingleQuery((*before, Match(match.patterns, known), best, again, Return(returned))),))


@dataclass(frozen=True, slots=True)
class Group:
    key: Key
    part: str | None  # YEAR, MONTH, DECADE of a date (DECADE of a year's number); None: the value itself
    fewest: bool = False
    date: bool = False  # the key is a date (ISO text); else a number, or text grouped as it is
    before: bool = False  # the key is the end's own name: what shares it are the nodes one hop before the end

    @property
    def name(self) -> str:
        return self.part or self.key.feature

    def words(self, end_type: str) -> str:
        what = f"the {self.part} of {self.key.words()}" if self.part else f"the {self.key.words()}"
        return f"{what} with the {'fewest' if self.fewest else 'most'} {end_type}"

    def tree(self, match: Match, key: Property, end: str) -> Query:
        """The key's value (or part of it) shared by the most end nodes; of equals, the smallest."""
        grouped = With(Projection(((self._part(key), KEY),
                                   (FunctionCall("count", (Variable(end),), distinct=True), SIZE))),
                       IsNull(Variable(KEY), negated=True))
        returned = Projection(((Variable(KEY), self.name),), order=((Variable(SIZE), not self.fewest),
                                                                     (Variable(KEY), False)), limit=Literal(1))
        return Query((SingleQuery((match, grouped, Return(returned))),))

    def _part(self, key: Property):
        text = key if self.date else Cast(key, "STRING")
        if self.part == YEAR:
            return FunctionCall("substring", (text, Literal(1), Literal(4)))
        if self.part == DECADE:
            return FunctionCall("concat", (FunctionCall("substring", (text, Literal(1), Literal(3))), Literal("0s")))
        if self.part == MONTH:
            month = FunctionCall("substring", (text, Literal(6), Literal(2)))
            return Case(month, tuple((Literal(f"{i:02d}"), Literal(name)) for i, name in enumerate(MONTHS, 1)))
        return key


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _and(left, right):
    return right if left is None else Binary("AND", left, right)


__all__ = ["Key", "Order", "Group", "YEAR", "MONTH", "DECADE", "MONTHS"]
