"""The readings of a question (one front door): what the question asks (`read`), and what a
reading's values must be to answer it (glm_dspy/readings/answer_type.py), computed from values
where it asks a year, an age, a span or which of two (glm_dspy/readings/compute.py)."""

from glm_dspy.readings.question import Question, read

__all__ = ["Question", "read"]
