"""Readings whose start is met by a value, not by a node: "the laureates born in the year Alfred D.
Hershey won his prize" are the laureates whose birth date's year is the year of a prize a path
from Hershey reaches. Two paths meet on a time (a date or a year, compared by its year), where
graphs/cypher/candidates.py's joins meet on a node.

    ValueMeet(other, hops, feature, own)
    -> MATCH <other's path> WITH DISTINCT year(end.feature) AS glm_year
       MATCH <the reading's path> WHERE year(start.own) = glm_year RETURN ...

Which time a question means is the ranking's to say: every date or year a named node or its
neighbours hold meets every date or year of the reading's start type.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Hop, Start, pattern_of, words_of
from glm_dspy.graphs.cypher.syntax import (Binary, Cast, FunctionCall, Literal, Match, Projection, Property, Query,
                                           Return, SingleQuery, Variable, With)

YEAR, SELF = "glm_year", "glm_self"
MAX_MEET_HOPS = 1  # of each side: "the year X won" is X's prize; a longer path is rarely what a question means


@dataclass(frozen=True, slots=True)
class ValueMeet:
    other: Start  # a named node
    hops: tuple[Hop, ...]  # its path to the node holding the time
    feature: str  # that node's date or year
    own: str  # the date or year of the reading's start that shares its year
    dates: tuple[bool, bool] = (True, True)  # whether `feature`, `own` are ISO dates (else year numbers)

    def words(self, start_type: str) -> str:
        return (f"whose {start_type} {self.own.replace('_', ' ')} is in the year of "
                f"{words_of(self.other, self.hops)} {self.feature.replace('_', ' ')}")

    def tree(self, match: Match, start: str, end: str, same_type: bool, returned: Projection) -> Query:
        """The reading's rows whose start's `own` year is a year of the other path's `feature`;
        the named node itself left out where the reading could reach it."""
        first = Match((pattern_of(self.other, self.hops, "m", "m_end"),), self.other.where("m" if self.hops else "m_end"))
        named = Variable("m" if self.hops else "m_end")
        carried = With(Projection(((_year(Property(Variable("m_end"), self.feature), self.dates[0]), YEAR),
                                   (named, SELF)), distinct=True))
        meets = Binary("=", _year(Property(Variable(start), self.own), self.dates[1]), Variable(YEAR))
        where = meets if match.where is None else Binary("AND", match.where, meets)
        if same_type:
            where = Binary("AND", where, Binary("<>", Variable(end), Variable(SELF)))
        return Query((SingleQuery((first, carried, Match(match.patterns, where), Return(returned))),))


def _year(value, date: bool):
    """A date's or a year's year, as four characters of text."""
    return FunctionCall("substring", (value, Literal(1), Literal(4))) if date else Cast(value, "STRING")


def value_meet_readings(schema, timed, named: list[tuple[Start, list]], targets: list[tuple[Start, list]],
                        readings_of) -> list[Candidate]:
    """Of each named start and each of its paths of at most MAX_MEET_HOPS hops that ends at one
    node type, each time that end holds (`timed(type, feature)`: "date", "year" or None), met
    by each time of each target start's type: the target's readings (its paths of at most
    MAX_MEET_HOPS, their ends' names and counts), each met so."""
    found = []
    for other, other_paths in named:
        keys = [(hops, feature, timed(hops[-1].type_name if hops else other.type_name, feature))
                for hops in other_paths if len(hops) <= MAX_MEET_HOPS and not (hops and hops[-1].also)
                for feature in schema.node_types[hops[-1].type_name if hops else other.type_name].features]
        keys = [(hops, feature, kind) for hops, feature, kind in keys if kind is not None]
        for target, paths in targets:
            if target == other:
                continue
            owns = [(f, timed(target.type_name, f)) for f in schema.node_types[target.type_name].features]
            owns = [(f, kind) for f, kind in owns if kind is not None]
            short = [p for p in paths if len(p) <= MAX_MEET_HOPS]
            for reading in readings_of(schema, target, short):
                end_feature = schema.node_types[reading.end_type].text_feature
                if reading.returns not in (end_feature, COUNT):
                    continue
                for hops, feature, kind in keys:
                    for own, own_kind in owns:
                        meet = ValueMeet(other, hops, feature, own, (kind == "date", own_kind == "date"))
                        found.append(replace(reading, meets=meet))
    return found


__all__ = ["ValueMeet", "value_meet_readings", "MAX_MEET_HOPS"]
