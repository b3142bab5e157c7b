"""Readings that compute with values and are typed by what is asked, on two real graphs: Nobel
(relations named as nouns, full dates) and the movies CSV folder (relations named by verbs:
DIRECTED, ACTED_IN; years as numbers). glm_dspy/readings/."""

import pytest

from glm_dspy.modules.discriminate import Discriminate
from glm_dspy.runs.steps import StepLog


@pytest.fixture(scope="module")
def nobel(nobel_graph):
    return Discriminate(nobel_graph, confidence=None)


@pytest.fixture(scope="module")
def movies(movies_graph):
    return Discriminate(movies_graph, confidence=None)


def answer(program, question):
    judged = program.judge(question, StepLog())
    return judged and judged.answer


@pytest.mark.parametrize("question, expected", [
    ("What year was Niels Bohr born in?", "1885"),  # a full date stored, its year asked
    ("What year did Niels Bohr die?", "1962"),
    ("When was Niels Bohr born?", "1885-10-07"),  # a time asked: as stored
    ("How long did Albert Einstein live?", "76"),  # 1879-03-14 to 1955-04-18
    ("How old was Andrea Ghez when she received her Nobel Prize?", "55"),  # born 1965-06-16, the 2020 prize
    ("Who was older, Niels Bohr or Albert Einstein?", "Albert Einstein"),
    ("Who was younger, Niels Bohr or Albert Einstein?", "Niels Bohr"),
    ("Where was Niels Bohr born?", "Copenhagen"),
])
def test_nobel(nobel, question, expected):
    assert answer(nobel, question) == expected


@pytest.mark.parametrize("question, expected", [
    ("How old was Keanu Reeves when The Matrix was released?", "35"),  # two named things: born 1964, released 1999
    ("Who is older, Keanu Reeves or Carrie-Anne Moss?", "Keanu Reeves"),
    ("Which movie came first, The Matrix or The Matrix Reloaded?", "The Matrix"),  # one name inside the other
    ("Which came out later, The Matrix or The Matrix Reloaded?", "The Matrix Reloaded"),
    ("How many years after The Matrix was The Matrix Reloaded released?", "4"),
    ("What year was Keanu Reeves born?", "1964"),
])
def test_movies(movies, question, expected):
    assert answer(movies, question) == expected


def test_which_of_two_compares_only_the_things_named(movies):
    """"the director of X or the director of Y" offers two paths, not X and Y: no program compares
    X and Y in their place."""
    assert answer(movies, "Who is older, the director of The Matrix or the director of Forrest Gump?") is None


def test_no_plain_reading_answers_an_age_and_a_program_that_cannot_compute_one_hands_it_on(nobel):
    """Marie Curie won two prizes: the event's time is not one value, so no age is sure; no
    reading of another kind (a year, a name) answers it instead."""
    log = StepLog()
    assert nobel.judge("How old was Marie Curie when she won the Nobel Prize?", log) is None
    assert "no reading computes an age" in log.steps[-1].output


def test_a_reading_of_another_kind_than_asked_never_answers(nobel):
    """'who' is answered by a type of people, never by a year read on the way; the gate's lever
    off, the best fitting reading of any kind answers."""
    question = "In the year Wolfgang Pauli won the physics prize, who won the chemistry prize?"
    typed = answer(nobel, question)
    assert typed is None or not typed.isdigit()
    for _, values, _ in nobel.shown(question):
        assert not any(value.isdigit() for value in values)
