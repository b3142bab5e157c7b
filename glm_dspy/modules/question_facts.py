"""What a question asks for, as the readings' modules take it: thin views of the one reading of
the question (glm_dspy/readings/: `read()` reads the words once, `phrases` the phrases paths are
weighed by), named as the readings call them. Nothing here reads the raw string.

`asked(question)` says which kind of value answers it (`Question.kind`): a count ("How many ...",
"the number of ..."), a time ("When ...", "In which year ..."), yes or no ("Is ...", "Did ...";
not a choice between alternatives: "... a man or a woman?"), a name ("Who ...", "Where ..."), or
None where that is not so plain ("Which country code ...?" may be a number: the schema's nouns
say, glm_dspy/readings/answer_type.py). `fits` says whether a reading's values can be that.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.value_index import DATE as VALUE_DATE
from glm_dspy.graphs.cypher.value_index import NUMBER as VALUE_NUMBER
from glm_dspy.graphs.cypher.value_index import TEXT as VALUE_TEXT
from glm_dspy.readings import phrases
from glm_dspy.readings.question import COUNT, DATE, NAME, PERSON, YES_NO, read
from glm_dspy.readings.words import word_stem


def asked(question: str) -> str | None:
    """COUNT, DATE, YES_NO, NAME or None (module doc), past a polite request ("Do you know if
    ...": yes or no) and a leading clause ("When X won, was Y alive?": yes or no)."""
    return read(question).kind


def asked_words(question: str) -> list[str]:
    """The words naming the thing asked ("Which Nobel laureate ..."): glm_dspy/readings/phrases.py."""
    return phrases.asked_words(read(question))


def asked_span(question: str) -> tuple[int, int] | None:
    return phrases.asked_span(read(question))


def passive_words(question: str) -> list[tuple[str, tuple[str, ...]]]:
    """A word said in the passive with its agent ("trained by X"): glm_dspy/readings/phrases.py."""
    return phrases.passive_words(read(question))


def referred_words(question: str) -> list[tuple[int, str]]:
    """A thing named again ("X's mentor ... the mentor"): glm_dspy/readings/phrases.py."""
    return phrases.referred_words(read(question))


def alternatives(question: str) -> tuple[str, ...]:
    """The answers a yes/no question offers ("a man or a woman?"): glm_dspy/readings/phrases.py."""
    return phrases.alternatives(read(question))


def asks_one(question: str) -> bool:
    """A question for one value by its number ("What year was P published?"): phrases.py."""
    return phrases.asks_one(read(question))


def asks_person(question: str) -> bool:
    """Whether the main question asks "who", "whom" or "whose" ("Who won ...?", "Henrik Dam shared
    his prize. Who trained ...?", "With whom ...?", "Do you know who ...?"): it asks for a person."""
    return read(question).asked == PERSON


def fits(kind: str | None, value_kind: str, is_count: bool) -> bool:
    """Whether a reading whose values are of `value_kind` (graphs/cypher/anchors.py: text, date,
    number, list; read from the graph), or a count, can answer a question asking for `kind`: a
    count for COUNT; a date or a number (a year) for DATE; text for NAME; no count where the
    question does not ask how many."""
    if kind == COUNT:
        return is_count
    if is_count:
        return False
    if kind == DATE:
        return value_kind in (VALUE_DATE, VALUE_NUMBER)
    if kind == NAME:
        return value_kind == VALUE_TEXT
    return True


__all__ = ["COUNT", "DATE", "NAME", "YES_NO", "alternatives", "asked", "asked_span", "asked_words", "asks_one",
           "asks_person", "fits", "passive_words", "referred_words", "word_stem"]
