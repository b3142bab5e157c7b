"""Whether a query's rows can be what its question asks for (issue 31, §2): a question that asks
who, where or which <thing> wants names, not dates, numbers or whole nodes; one that asks when
or in which year wants a date or a number, not names; one that asks how many wants a number; a
yes/no question wants a truth. The
kind asked is read once, from the question's words (glm_dspy/modules/question_facts.py); the kind
returned from the values themselves. A mismatch goes back to the repair with what to return,
never out as the answer ("Where was X born?" answered with a birth date)."""

from __future__ import annotations

import re

from glm_dspy.modules.question_facts import COUNT, DATE, NAME, YES_NO, asked

ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
TEXT, DATE_VALUE, NUMBER_VALUE, NODE, TRUTH = "text", "date", "number", "node", "truth"
TRUTH_WORDS = frozenset({"yes", "no", "true", "false"})


def value_kind(value) -> str:
    if isinstance(value, dict):
        return NODE
    if isinstance(value, bool) or str(value).strip().lower() in TRUTH_WORDS:
        return TRUTH
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
    problem = kind_problem(question, [next(iter(row.values())) for row in rows])
    if problem is None:
        return None
    asks, returned = problem
    if returned == NODE:
        return (f"the query returns whole nodes: return the property the question asks for "
                f"(a name: the node's name property), e.g. RETURN DISTINCT x.name")
    how = {NAME: "return the name of the node the question asks about", DATE: "return the date or year property",
           COUNT: "return count(DISTINCT ...)",
           YES_NO: "return whether what it asks holds, e.g. RETURN count(x) > 0 AS holds"}[asks]
    return f"the question asks {ASKS[asks]}, but the query returned {returned}: {how}"


ASKS = {NAME: "who, where or which thing (a name)", DATE: "when (a date or a year)", COUNT: "how many",
        YES_NO: "yes or no"}


def kind_problem(question: str, values: list) -> tuple[str, str] | None:
    """(the kind the question asks, the kinds `values` are, in words) where they cannot answer it:
    whole nodes for anything; dates or numbers for who, where or which; names for when; anything
    but a number for how many; anything but a truth (true or false, yes or no) for yes or no
    ("Did X ever win a prize?" answered "X"). None where they can, or the question does not say."""
    kinds = {value_kind(value) for value in values if value not in (None, "", [])}
    if not kinds:
        return None
    kind = asked(question)
    returned = " and ".join(sorted(f"{k}s" for k in kinds))
    if NODE in kinds:
        return kind, NODE
    if kind == NAME and kinds <= {DATE_VALUE, NUMBER_VALUE} or kind == DATE and kinds == {TEXT} \
            or kind == COUNT and kinds != {NUMBER_VALUE} or kind == YES_NO and kinds != {TRUTH}:
        return kind, returned
    return None
