"""The registers bench/readings.py asks in (bench/registers.py): the same slip on every run, one
edit from the word, never its first letter."""

from __future__ import annotations

import pytest

from glm_dspy.bench.registers import in_register
from glm_dspy.readings.as_written import _one_edit

QUESTIONS = ["Which countries border Mozambique?", "When did Niels Bohr die?", "Who directed The Long Road?",
             "In which city was Marie Curie born?", "How many people did Ada Lovelace follow?"]


def test_lower_is_the_question_in_lower_case():
    assert in_register("When did Niels Bohr die?", "lower") == "when did niels bohr die?"
    assert in_register("When did Niels Bohr die?", "plain") == "When did Niels Bohr die?"


@pytest.mark.parametrize("question", QUESTIONS)
def test_a_typo_is_one_edit_in_one_word_and_the_same_every_run(question):
    slipped = in_register(question, "typo")
    assert slipped == in_register(question, "typo") != question
    before, after = question.split(), slipped.split()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and len(changed) == 1
    word, typo = changed[0]
    assert word[0] == typo[0] and _one_edit(word.strip("?").lower(), typo.strip("?").lower())


def test_an_unknown_register_is_refused():
    with pytest.raises(ValueError, match="register must be one of"):
        in_register("Who?", "shouting")
