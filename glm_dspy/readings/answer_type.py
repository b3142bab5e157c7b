"""The answer's type is a gate: a reading whose values cannot be what the question asks is never
the answer (the class of questions served: every question that says what kind of value it wants).

What a reading's values are (`Result`) is read from the graph: a count; a date (an ISO date
feature) or a year (a number feature whose every value is a year); another number; a node
type's names; another text feature. What the question asks is `glm_dspy.readings.read`'s. The
rules (`fits`):
- a person ("who"): names of a type that holds people, where the graph has one
  (glm_dspy/modules/person_types.py); never a time, a number or a count;
- a place ("where"): names or text, never of a type of people, a time, a number or a count;
- a time ("when"), a year, a month, a decade: a date or a year (a month only of a date), or the
  part of a date a reading groups by ("the month with the most ..."); a date's year, month or
  decade is computed from it (`project`);
- an age or a span of time: never a plain reading (glm_dspy/readings/compute.py computes them
  from two times); a span may be a number that is no year ("how long is ...");
- a count or a number ("how many", "how much"): a count or a number that is no year;
- a thing a noun names ("which currency", "the capital of", "a student of"): where the noun is a
  word of the schema's names (a node type, a feature or a relation, by lemma), the reading names
  things of that type, returns that feature, or names the things that relation reaches last (not
  a feature of theirs: "the capital" is no city's population); a noun of none of them says
  nothing the graph can check (`Fit.unknown_noun`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import glm_dspy.readings.question as q
from glm_dspy.readings.words import words_of

COUNT, DATE, YEAR, NUMBER, NAMES, TEXT, LIST = "count", "date", "year", "number", "names", "text", "list"
MONTH_OF, DECADE_OF = "month of a date", "decade of a time"  # a group's key: "June", "1990s"
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")


@dataclass(frozen=True, slots=True)
class Result:
    """What a reading's values are: `kind` (above), of node type `node_type` (its end's, or the
    type whose feature it returns), `feature` the feature returned (None for a count), `relation`
    the relation its last hop takes (None for none)."""
    kind: str
    node_type: str | None
    feature: str | None
    relation: str | None


@dataclass(frozen=True, slots=True)
class SchemaNouns:
    """The schema's names by the lemmas of their words: a noun -> the types, features and
    relations whose names hold it."""
    types: dict[str, frozenset[str]]
    features: dict[str, frozenset[str]]
    relations: dict[str, frozenset[str]]

    @classmethod
    def of(cls, schema, inverse_names: dict[str, str] | None = None) -> "SchemaNouns":
        """`inverse_names`: relation -> its name the other way (a graph's `student` of `mentor`)."""
        def index(names):
            found: dict[str, set[str]] = {}
            for name, owner in names:
                for word in words_of(_spaced(name)):
                    for lemma in word.lemmas:
                        found.setdefault(lemma, set()).add(owner)
            return {noun: frozenset(owners) for noun, owners in found.items()}

        features = [(f, f) for t in schema.node_types.values() for f in t.features]
        relations = [(r, r) for r in schema.relations] + [(name, r) for r, name in (inverse_names or {}).items()]
        return cls(index([(t, t) for t in schema.node_types]), index(features), index(relations))

    def knows(self, noun: str) -> bool:
        return noun in self.types or noun in self.features or noun in self.relations


def _spaced(name: str) -> str:
    """A schema name in words: "HAS_CAPITAL" -> "has capital", "TimeZone" -> "time zone"."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").lower()


def fits(question: q.Question, result: Result, *, persons: frozenset[str], nouns: SchemaNouns) -> bool:
    """Whether a reading whose values are `result` can answer `question` (module doc)."""
    asked, kind = question.asked, result.kind
    timely = kind in (DATE, YEAR)
    quantity = kind in (COUNT, NUMBER)
    if asked == q.PERSON:
        return kind in (NAMES, TEXT, LIST) and (not persons or kind != NAMES or result.node_type in persons)
    if asked == q.PLACE:
        return kind in (NAMES, TEXT, LIST) and not (kind == NAMES and result.node_type in persons)
    if asked == q.MONTH:
        return kind in (DATE, MONTH_OF)
    if asked == q.DECADE:
        return kind in (DATE, YEAR, DECADE_OF)
    if asked in q.TIMES:
        return timely
    if asked == q.AGE:
        return False
    if asked == q.SPAN:
        return kind == NUMBER
    if asked in (q.COUNT, q.NUMBER):
        return quantity
    if asked == q.THING and question.noun is not None and nouns.knows(question.noun):
        noun = question.noun
        named = kind in (NAMES, LIST, COUNT)  # the things themselves (or how many), not a feature of theirs
        return result.node_type in nouns.types.get(noun, ()) and named \
            or result.feature in nouns.features.get(noun, ()) \
            or result.relation in nouns.relations.get(noun, ()) and named
    return True


def unknown_noun(question: q.Question, nouns: SchemaNouns) -> bool:
    """Whether the question asks for a thing by a noun no schema name holds ("which continent"
    on a graph without one): no reading can be checked against what it asks."""
    return question.asked == q.THING and question.noun is not None and not nouns.knows(question.noun)


def project(question: q.Question, result: Result, values: list[str]) -> list[str]:
    """The values as the question asks them: a date's year for a year, its month's name for a
    month, its decade ("1900s") for a decade; a year's decade. Others unchanged."""
    if result.kind == DATE and question.asked == q.YEAR:
        return list(dict.fromkeys(v[:4] for v in values if _is_date(v)))
    if result.kind == DATE and question.asked == q.MONTH:
        return list(dict.fromkeys(MONTHS[int(v[5:7]) - 1] for v in values if _is_date(v)))
    if result.kind in (DATE, YEAR) and question.asked == q.DECADE:
        return list(dict.fromkeys(f"{v[:3]}0s" for v in values if re.match(r"^\d{4}", v)))
    return values


def _is_date(value: str) -> bool:
    return bool(re.match(r"^\d{4}-\d{2}-\d{2}", value))


__all__ = ["Result", "SchemaNouns", "fits", "unknown_noun", "project", "COUNT", "DATE", "YEAR", "NUMBER", "NAMES",
           "TEXT", "LIST", "MONTH_OF", "DECADE_OF"]
