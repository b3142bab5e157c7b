"""What a question asks for, read from its words: the one place (with the name reader in
text2cypher's facts) where English is read; everything downstream works on these facts.

`asked_thing(question)` gives the word of "which/what <word>" (the thing asked for).
`asked(question)` says which kind of value answers it: a count ("How many ...", "the number
of ..."), a date or year ("When ...", "In which year ...", "What year ..."), a yes or no ("Is
...", "Did ...", "Was ..."), or None where the words do not say (a name, a place, a thing:
the readings' own words and the model decide among those).
"""

from __future__ import annotations

import re

COUNT = "count"
DATE = "date"
YES_NO = "yes/no"

_COUNT = re.compile(r"\b(?:how many|how often|number of|count of)\b", re.IGNORECASE)
_DATE = re.compile(r"^\W*(?:when\b|(?:in |on )?(?:which|what) (?:year|date|day|decade)\b)", re.IGNORECASE)
_YES_NO = re.compile(r"^\W*(?:is|was|were|are|did|does|do|has|have|had|can|could)\b", re.IGNORECASE)


def asked(question: str) -> str | None:
    """COUNT, DATE, YES_NO, or None (module doc)."""
    if _COUNT.search(question):
        return COUNT
    if _DATE.search(question):
        return DATE
    if _YES_NO.search(question):
        return YES_NO
    return None


_ASKED_THING = re.compile(r"\b(?:which|what|how many)\s+(?:other\s+|different\s+|of\s+the\s+)?([a-z]+)",
                          re.IGNORECASE)


def asked_thing(question: str) -> str | None:
    """The word naming the thing asked for, singular: "Which institutions in Brussels ..." ->
    "institution", "How many laureates ..." -> "laureate"; None where the question has no
    "which/what/how many <word>"."""
    found = _ASKED_THING.search(question)
    if found is None:
        return None
    word = found.group(1).lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def fits(kind: str | None, returns: str, is_count: bool) -> bool:
    """Whether a reading that returns the feature `returns` (or a count) can answer a question
    asking for `kind`: a count for COUNT; a feature naming a date or year for DATE; any other
    reading where the question does not say."""
    if kind == COUNT:
        return is_count
    if is_count:
        return False
    if kind == DATE:
        return any(word in returns.lower() for word in ("date", "year", "day", "time"))
    return True
