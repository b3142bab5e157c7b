"""The values a question states, as the readings' modules take them: a view of the one reading of
the question (glm_dspy/readings/values.py reads its value words, their runs, whole numbers,
dates, years that bound values, ranges, decades and amounts off its words).
graphs/cypher/anchors.py binds them to stored values.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.anchors import QuestionValues
from glm_dspy.readings.question import read
from glm_dspy.readings.values import values


def question_values(question: str) -> QuestionValues:
    """What a stored value may equal in the question: glm_dspy/readings/values.py."""
    return values(read(question))


def question_dates(question: str) -> list[str]:
    """The dates the question writes, as ISO text: "25 June 1864", "June 25, 1864", "1864-06-25"."""
    return list(question_values(question).dates)


__all__ = ["question_dates", "question_values"]
