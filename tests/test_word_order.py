"""glm_dspy/modules/word_order.py: a path's hops are said outwards from its start, whichever
way the sentence runs (possessives and narration forwards, relative clauses backwards), and the
readings' ranking pays for a path said out of that order. No LLM."""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher.candidate import Hop
from glm_dspy.readings.words import word_stem
from glm_dspy.modules.word_order import order_misses, said_at

MENTOR = Hop("mentor", True, "laureate")
STUDENT_OF = Hop("mentor", False, "laureate")  # backwards over mentor: those whose mentor it is
PRIZE = Hop("prize", True, "prize")
PRIZE_BACK = Hop("laureate", False, "prize")  # from a laureate back to the prize whose laureate it is
CO_LAUREATE = Hop("laureate", True, "laureate")


def misses(question, start_words, hops, meant=None, taught=None):
    return order_misses(frozenset(start_words), hops, said_at(question, meant or {}, taught or {}))


@pytest.mark.parametrize("question,start", [
    ("Ada Lovelace's mentor won a prize. With whom was it shared?", {"ada", "lovelace"}),
    ("Who shared the prize of the mentor of Ada Lovelace?", {"ada", "lovelace"}),  # said backwards
])
def test_the_hop_said_nearest_the_start_is_taken_first(question, start):
    right = (MENTOR, PRIZE, CO_LAUREATE)
    wrong = (PRIZE, CO_LAUREATE, MENTOR)
    assert misses(question, start, right) == 0
    assert misses(question, start, wrong) == 1


def test_a_relative_clause_reads_backwards_to_the_same_path():
    question = "Who was trained by the man who shared Emmy Noether's prize?"
    start, meant = {"emmy", "noether"}, {"trained": {word_stem("mentor")}}
    assert misses(question, start, (PRIZE, CO_LAUREATE, STUDENT_OF), meant) == 0
    assert misses(question, start, (STUDENT_OF, PRIZE, CO_LAUREATE), meant) == 1


def test_a_hop_backwards_is_said_by_its_type_where_its_relation_never_joins_a_type_to_itself():
    question = "Who was the mentor of the man whose prize Emmy Noether shared?"
    said = said_at(question, {}, {})
    # backwards over `laureate` (prize -> laureate only) to a prize: "prize" says it
    assert order_misses(frozenset({"emmy", "noether"}), (MENTOR, PRIZE_BACK), said, frozenset({"laureate"})) == 1
    assert order_misses(frozenset({"emmy", "noether"}), (MENTOR, PRIZE_BACK), said) == 0


def test_words_said_in_other_words_and_in_the_banks_place_a_hop():
    question = "Ada Lovelace shared her award with a colleague. Who trained that colleague?"
    meant = {"award": {word_stem("prize")}, "trained": {word_stem("mentor")}}  # stems, as meant_by_word gives
    assert misses(question, {"ada", "lovelace"}, (PRIZE, CO_LAUREATE, MENTOR), meant) == 0
    assert misses(question, {"ada", "lovelace"}, (MENTOR, PRIZE, CO_LAUREATE), meant) == 1
    assert misses(question, {"ada", "lovelace"}, (MENTOR, PRIZE, CO_LAUREATE)) == 0  # "trained" unread: nothing to place
    taught = {"colleague": ("laureate", True)}  # the bank's word for a co-laureate
    assert misses(question, {"ada", "lovelace"}, (CO_LAUREATE, PRIZE, MENTOR), meant) == 0
    assert misses(question, {"ada", "lovelace"}, (CO_LAUREATE, PRIZE, MENTOR), meant, taught) == 1
    assert misses(question, {"ada", "lovelace"}, (PRIZE, CO_LAUREATE, MENTOR), meant, taught) == 0


def test_unsaid_hops_and_the_starts_own_words_place_nothing():
    # the start is the prize said "the mentor prize": its words say no hop
    assert misses("Who won the mentor prize of 1990?", {"mentor", "prize"}, (CO_LAUREATE, MENTOR)) == 0
    assert misses("Who is it?", {"x"}, (MENTOR, PRIZE)) == 0  # the start is not in the question
    assert misses("Ada Lovelace", {"ada", "lovelace"}, ()) == 0


def test_a_relation_said_twice_places_a_later_hop_at_its_later_mention():
    question = "Ada Lovelace's mentor won a prize. Who did the mentor share it with?"
    assert misses(question, {"ada", "lovelace"}, (PRIZE, MENTOR)) == 0
    assert misses(question.replace("the mentor", "she"), {"ada", "lovelace"}, (PRIZE, MENTOR)) == 1


def test_a_possessive_binds_before_the_words_ahead_of_the_name():
    # "the spouse of (X's father)": X -> father -> spouse, though "spouse" stands as near X
    question = "the spouse of henry viii of england 's father ?"
    start = {"henry", "viii", "of", "england"}  # its "of" is no mention of the start
    spouse, father = Hop("spouse", True, "person"), Hop("father", True, "person")
    assert misses(question, start, (father, spouse)) == 0
    assert misses(question, start, (spouse, father)) == 1


def test_the_readings_take_a_narrated_path_in_the_order_it_is_told(nobel_graph):
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.runs.steps import StepLog

    question = "Vladimir Prelog split his Nobel Prize with another scientist. Who mentored that scientist?"
    program = Discriminate(nobel_graph)
    assert program.answer(question, StepLog())[0] == "Sir Robert Robinson"  # John Cornforth's mentor
    told = [hop.type_name for hop in program.readings(question)[0].hops]
    assert told == ["prize", "laureate", "laureate"]  # Prelog -> prize -> Cornforth -> mentor
