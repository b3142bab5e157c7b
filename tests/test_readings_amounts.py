"""A quantity the values pass (issue 31, eleventh step): "reach one million", "more than
250,000" bound a number feature, as "since 2020" bounds a year; a small bare number stays a
count's bound ("in more than one field")."""

from __future__ import annotations

import pytest

from glm_dspy.readings.amounts import amounts
from glm_dspy.readings.question import read


@pytest.mark.parametrize("question, found", [
    ("When did the prize money first reach one million kronor?", [(">=", 1_000_000)]),
    ("Which prizes were worth more than 250,000 kronor?", [(">", 250_000)]),
    ("Which grants were under 2.5 million dollars?", [("<", 2_500_000)]),
    ("Which papers have over 1,000 citations?", [(">", 1_000)]),
    ("Which institutions had laureates in more than one field?", []),  # a count's bound
    ("Which laureates won more than 2 prizes?", [])])
def test_an_amount_is_a_bound_word_and_a_large_number(question, found):
    assert amounts(read(question).words) == found and amounts(read(question.lower()).words) == found


def test_an_amount_bounds_a_number_feature_and_the_first_passing_it_is_read(nobel_graph):
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.modules.readings import Readings
    from glm_dspy.runs.steps import StepLog

    question = "In what year did the Nobel prize money first reach one million Swedish kronor?"
    conditions = {(s.type_name, c.feature, c.op, c.value) for s in Readings(nobel_graph).starts(question)
                  for c in s.conditions}
    assert ("prize", "amount", ">=", 1_000_000) in conditions
    assert Discriminate(nobel_graph).answer(question, StepLog())[0] == "1981"
