"""Whether a query's rows can be what its question asks for (issue 31, §2): a question that asks
who, where or which <thing> wants names, not dates, numbers or whole nodes; one that asks when
or in which year wants a date or a number, not names; one that asks how many wants a number. The
kind asked is read once, from the question's words (glm_dspy/modules/question_facts.py); the kind
returned from the values themselves. A mismatch goes back to the repair with what to return,
never out as the answer ("Where was X born?" answered with a birth date)."""

from __future__ import annotations

import re

from glm_dspy.modules.question_facts import COUNT, DATE, NAME, asked

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
TEXT, DATE_VALUE, NUMBER_VALUE, NODE = "text", "date", "number", "node"


def value_kind(value) -> str:
    if isinstance(value, dict):
        return NODE
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return NUMBER_VALUE
    text = str(value)
    if ISO_DATE.match(text):
        return DATE_VALUE
    return NUMBER_VALUE if NUMBER.match(text) else TEXT


def answer_type_problem(question: str, rows: list[dict]) -> str | None:
    """Why the first column of `rows` cannot answer `question`, or None (also where the question
    does not say what it asks, or a row holds several columns: the model reads those)."""
    if not rows or any(len(row) != 1 for row in rows):
        return None
    kinds = {value_kind(next(iter(row.values()))) for row in rows if next(iter(row.values())) not in (None, "", [])}
    if not kinds:
        return None
    kind = asked(question)
    returned = " and ".join(sorted(f"{k}s" for k in kinds))
    if NODE in kinds:
        return (f"the query returns whole nodes: return the property the question asks for "
                f"(a name: the node's name property), e.g. RETURN DISTINCT x.name")
    if kind == NAME and kinds <= {DATE_VALUE, NUMBER_VALUE}:
        return (f"the question asks who, where or which thing (a name), but the query returned {returned}: "
                f"return the name of the node the question asks about")
    if kind == DATE and kinds == {TEXT}:
        return (f"the question asks when (a date or a year), but the query returned {returned}: "
                f"return the date or year property")
    if kind == COUNT and kinds != {NUMBER_VALUE}:
        return f"the question asks how many, but the query returned {returned}: return count(DISTINCT ...)"
    return None
