"""How a question's grammar places its words (issue 31, eleventh step): a common English word is
no mention of a long text, "which <type>" asks for those nodes by name, a relation said in the
passive is read from its agent's side, the words naming the thing asked say the path's end and
no hop on the way, and a thing named again ("the mentor") is the same thing, not one more hop."""

from __future__ import annotations

from collections import Counter

import pytest

from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
from glm_dspy.graphs.cypher.rare_words import any_rare, rare
from glm_dspy.modules.question_facts import asked_span, passive_words, referred_words, word_stem
from glm_dspy.modules.reading_fit import path_fit
from glm_dspy.modules.word_order import order_misses, said_at


@pytest.mark.parametrize("word, is_rare", [
    ("positron", True), ("hydrogen", True), ("chamber", True),
    ("based", False), ("other", False), ("since", False), ("discovered", False), ("field", False)])
def test_a_rare_word_can_say_what_a_text_is_about(word, is_rare):
    assert rare(word) is is_rare


def test_a_run_of_words_is_a_mention_only_with_a_rare_word_in_it():
    assert any_rare(["heavy", "hydrogen"]) and not any_rare(["prize", "money"])


def test_common_words_bind_no_long_text(nobel_graph):
    from glm_dspy.modules.readings import Readings

    readings = Readings(nobel_graph)

    def mentioned(question):
        return {c.value for s in readings.starts(question) for c in s.conditions if c.op == "CONTAINS"}

    assert mentioned("Name the laureates born in the city where the German Cancer Research Center is based.") == set()
    assert mentioned("Which institution employed the scientist who discovered the positron?") == {"positron"}


def test_function_words_inside_a_phrase_are_the_phrase_s(nobel_graph):
    """"for the discovery of the neutron" is one mention (one laureate's motivation), not
    "discovery" and "neutron" apart (every neutron physicist's); a phrase begins and ends on its
    own words, and a word said twice is said twice ("the ... the")."""
    from glm_dspy.modules.readings import Readings

    readings = Readings(nobel_graph)
    mentioned = {c.value for s in readings.starts("Which laureate was honoured for the discovery of the neutron?")
                 for c in s.conditions if c.op == "CONTAINS"}
    assert mentioned == {"discovery of the neutron"}
    rows = nobel_graph.store.query("MATCH (l:laureate) WHERE lower(list_to_string(' | ', l.motivation)) "
                                   "CONTAINS 'neutron' RETURN l.name AS name")
    assert len(rows) > 1  # "neutron" alone would bind them all


def test_which_type_asks_for_those_nodes_by_name_not_another_feature_it_says(nobel_graph):
    from glm_dspy.modules.readings import LEVERS, Readings

    question = "Which institutions in the city where Jean Dausset was born had a laureate working there?"
    on = Readings(nobel_graph).candidates(question)
    off = Readings(nobel_graph, levers=LEVERS - {"which"}).candidates(question)
    assert on and {c.returns for c in on} == {"name"}
    assert "city" in {c.returns for c in off}  # the institutions' city, said in the question


@pytest.mark.parametrize("question, words", [
    ("Which laureate was trained by the man who shared Bloch's prize?", [("trained", ("the", "man", "who", "shared"))]),
    ("Which papers are cited by P?", [("cited", ("p",))]),
    ("Who was Ann trained by?", []),  # no agent after "by": the way is not said
    ("Who trained Ann?", [])])
def test_a_word_in_the_passive_has_its_agent_after_by(question, words):
    assert passive_words(question) == words


def test_a_relation_said_in_the_passive_is_said_by_a_hop_backwards():
    bloch = Start.named("laureate", "name", "Felix Bloch", "l1")
    students = Candidate(bloch, (Hop("mentor", False, "laureate"),), "name")
    said = Counter({"mentor": 1})
    active = path_fit(students, said, None, Counter())
    assert path_fit(students, said, None, Counter(), passive={"mentor": frozenset({"the", "man"})}) > active


def test_a_start_that_is_the_agent_of_a_passive_is_left_backwards():
    from glm_dspy.modules.reading_fit import agent_forwards

    bohr = Start.named("laureate", "name", "Niels Bohr", "l1")
    mentors = Candidate(bohr, (Hop("mentor", True, "laureate"),), "name")
    students = Candidate(bohr, (Hop("mentor", False, "laureate"),), "name")
    passive = {"mentor": frozenset({"niels", "bohr"})}  # "Who was trained by Niels Bohr?"
    assert agent_forwards(mentors, passive) and not agent_forwards(students, passive)
    assert not agent_forwards(mentors, {"mentor": frozenset({"the", "man"})})  # another agent
    said = Counter({"mentor": 1})
    assert path_fit(students, said, None, Counter(), passive=passive) > path_fit(mentors, said, None, Counter(), passive=passive)


def test_the_words_naming_the_thing_asked_place_no_hop():
    question = "Which Nobel laureate was trained by the man who shared Emmy Noether's prize?"
    hops = (Hop("laureate", False, "prize"), Hop("laureate", True, "laureate"), Hop("mentor", False, "laureate"))
    meant = {"trained": {word_stem("mentor")}}
    start = frozenset({"emmy", "noether"})
    assert order_misses(start, hops, said_at(question, meant, {})) == 1  # "laureate" placed the co-laureate far
    assert order_misses(start, hops, said_at(question, meant, {}, asked_span(question))) == 0


@pytest.mark.parametrize("question, words", [
    ("Ulf von Euler's mentor also won a Nobel Prize. Who did the mentor share it with?", ["mentor"]),
    ("Henrik Dam shared his prize with one other scientist. Who trained that scientist?", ["scientist"]),
    ("Who is the mentor of the mentor of the mentor of Ann Lee?", []),  # each "of" says one more
    ("Who is the spouse of the mentor of Ann Lee?", [])])
def test_a_thing_named_again_is_referred_back_to(question, words):
    assert [w for _, w in referred_words(question)] == words


def test_a_thing_named_again_places_no_hop():
    question = "Ada Lovelace's mentor won a prize. Who did the mentor share it with?"
    mentor_last = (Hop("laureate", False, "prize"), Hop("laureate", True, "laureate"), Hop("mentor", True, "laureate"))
    start = frozenset({"ada", "lovelace"})
    referring = frozenset(at for at, _ in referred_words(question))
    named = frozenset({"laureate"})  # backwards over laureate reaches a prize, named "prize"
    assert order_misses(start, mentor_last, said_at(question, {}, {}), named) == 0  # "the mentor" placed it last
    assert order_misses(start, mentor_last, said_at(question, {}, {}, None, referring), named) == 1


@pytest.mark.parametrize("question, answer, lever", [
    ("Which Nobel laureate was trained by the man who shared Felix Bloch's prize?", "Nicolaas Bloembergen", "passive"),
    ("Ulf von Euler's mentor also won a Nobel Prize. Who did the mentor share it with?", "Otto Loewi", "referred")])
def test_the_readings_read_the_voice_and_references_of_a_question(nobel_graph, question, answer, lever):
    from glm_dspy.modules.discriminate import LEVERS, Discriminate
    from glm_dspy.runs.steps import StepLog

    def answered(levers):
        found = Discriminate(nobel_graph, levers=levers).answer(question, StepLog())
        return found and found[0]

    assert answered(LEVERS) == answer
    assert answered(LEVERS - {lever}) != answer


def test_a_named_thing_s_time_is_the_one_said_after_its_name():
    from glm_dspy.graphs.cypher.value_meets import ValueMeet
    from glm_dspy.modules.reading_fit import meets_unsaid
    from glm_dspy.modules.word_order import said_after

    hershey = Start.named("laureate", "name", "Alfred D. Hershey", "l1")
    laureates, prizes = Start("laureate", (), "laureate"), Start("prize", (), "prize")
    his_prize = Candidate(laureates, (), "name", meets=ValueMeet(hershey, (Hop("laureate", False, "prize"),), "year", "birth_date"))
    his_birth = Candidate(prizes, (Hop("laureate", True, "laureate"),), "name", meets=ValueMeet(hershey, (), "birth_date", "year"))
    question = "Which laureate was born in the year Alfred D. Hershey won his Nobel Prize?"
    after = said_after(hershey.bound, said_at(question, {"won": {word_stem("prize")}}, {}))
    assert word_stem("prize") in after and "born" not in after
    assert not meets_unsaid(his_prize, after, set()) and meets_unsaid(his_birth, after, set())
    assert not meets_unsaid(his_birth, set(), {"birth date"})  # "... the year Hershey was born": said in other words
