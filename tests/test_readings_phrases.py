"""The phrases the readings weigh paths by (glm_dspy/readings/phrases.py), read off the words of
the one reading of the question: the words naming the thing asked, the passive's agent, a thing
named again, the answers offered, one value asked. Pure: no graph."""

from __future__ import annotations

import pytest

from glm_dspy.readings import phrases
from glm_dspy.readings.question import PERSON, read


@pytest.mark.parametrize("question, words", [
    ("Which Nobel laureate was born in Ulm?", ["nobel", "laureate", "was"]),
    ("What is the city that hosts the ceremony?", ["city", "that", "hosts"]),
    ("In which country was Irène Joliot-Curie born?", ["country", "was"]),  # not "ir" of Irène
    ("Which laureate's mentor won?", []),  # a possessive names the owner, not the thing asked
    ("what is the Aaha Kalyanam 's country 's recording ??", ["aaha"]),  # 's written apart is one too
    ("Who won?", []),
])
def test_the_words_naming_the_thing_asked(question, words):
    assert phrases.asked_words(read(question)) == words
    assert phrases.asked_words(read(question.lower())) == words


def test_where_the_words_naming_the_thing_asked_stand():
    question = "In which category did César Milstein win?"
    start, end = phrases.asked_span(read(question))
    assert question[start:end] == "category did"  # the words up to the name, none of it


@pytest.mark.parametrize("question, found", [
    ("Who was trained by the man who discovered X?", [("trained", ("the", "man", "who", "discovered"))]),
    ("What currency is used by Bolivia's most populous neighbour?", [("used", ("bolivia", "most", "populous",
                                                                               "neighbour"))]),
    ("Which prize was won by Bohr?", [("won", ("bohr",))]),
    ("Who was born in 1903?", []),
])
def test_a_word_said_in_the_passive_with_its_agent(question, found):
    assert phrases.passive_words(read(question)) == found


def test_a_thing_named_again_is_the_same_thing():
    question = "X's mentor also won a prize. Who did the mentor share it with?"
    found = phrases.referred_words(read(question))
    assert [w for _, w in found] == ["mentor"] and question[found[0][0]:].startswith("mentor share")
    assert phrases.referred_words(read("Who is the mentor of the mentor of X?")) == []  # two mentors


@pytest.mark.parametrize("question, offered", [
    ("Is X's darling a man or a woman ?", ("man", "woman")),
    ("Was it a physics or a chemistry prize?", ("physics", "chemistry")),
    ("Was she born in Paris or in Warsaw?", ("paris", "warsaw")),
    ("was she born in paris or in warsaw", ("paris", "warsaw")),  # no mark, lower case
    ("Is Roald Hoffmann still alive?", ()), ("Who won, X or Y?", ()),  # not yes or no
])
def test_the_answers_a_yes_no_question_offers(question, offered):
    assert phrases.alternatives(read(question)) == offered


@pytest.mark.parametrize("question, one", [
    ("What year was P published?", True), ("In which city is X based?", True),
    ("What is the capital of Peru?", True), ("Which prizes did X win?", False),
    ("Which countries is Spanish spoken in?", False), ("Who won in 1903?", False),
    ("Hey, what year was P published?", True),  # past a greeting
])
def test_a_question_for_one_value_by_its_number(question, one):
    assert phrases.asks_one(read(question)) is one


@pytest.mark.parametrize("question", ["Henrik Dam shared his prize. Who trained that scientist?",
                                      "With whom did Bohr share it?", "Do you know who mentored Bohr?",
                                      "Among the physics and chemistry laureates, who died first?"])
def test_a_person_is_asked_by_the_main_question(question):
    assert read(question).asked == PERSON
