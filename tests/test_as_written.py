"""A question's names as the graph writes them (glm_dspy/readings/as_written.py): case where the
writer gave none, one slip of a name's spelling, and nothing else."""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.readings.as_written import AsWritten

NAMES = ["Marie Curie", "Ernest Rutherford", "Mozambique", "Most", "China", "Reading", "Cambridge, MA",
         "Anna Karl", "Anna Kari", "The Who", "Cars", "Bohr Institute"]


@pytest.fixture(scope="module")
def as_written():
    from glm_dspy.graphs.cypher.value_index import folded

    return AsWritten({folded(name): name for name in NAMES})


@pytest.mark.parametrize("said, written", [
    ("who was marie curie's husband?", "who was Marie Curie's husband?"),
    ("Which countries border mozambique?", "Which countries border Mozambique?"),  # the first letter is no case
    ("WHICH COUNTRIES BORDER MOZAMBIQUE?", "WHICH COUNTRIES BORDER Mozambique?"),  # nor capitals throughout
    ("where is cambridge, ma", "where is Cambridge, MA"),  # punctuation inside a stored name
    # one word English uses otherwise stays: an adjective or adverb ("most"), a verb ("reading"), a plural
    ("what is the most populous city in china", "what is the most populous city in China"),
    ("who was reading about cars", "who was reading about cars"),
    ("who is the who", "who is the who"),  # words of closed classes only
])
def test_a_caseless_question_gets_the_graphs_case(as_written, said, written):
    assert as_written.restore(said).text == written


def test_where_the_writer_uses_case_it_is_theirs(as_written):
    said = "Who was marie curie's husband, asked Mozambique's Most?"
    assert as_written.restore(said).text == said and not as_written.restore(said)


@pytest.mark.parametrize("said, written", [
    ("When was Ernest Rutherfrod born?", "When was Ernest Rutherford born?"),  # two letters swapped
    ("when was ernest rutherfod born", "when was Ernest Rutherford born"),  # one dropped, and no case
    ("Where is the Bohrr Institute?", "Where is the Bohr Institute?"),  # one added
    ("Who was borm in Chna?", "Who was borm in China?"),  # "borm" is near no name's word
])
def test_one_slip_in_a_name_is_read_as_the_name(as_written, said, written):
    restored = as_written.restore(said)
    assert restored.text == written and len(restored.changes) == 1


def test_where_the_writer_uses_case_only_a_capitalised_word_is_a_names_slip():
    from glm_dspy.graphs.cypher.value_index import folded

    as_written = AsWritten({folded(name): name for name in ["Andre", "Frederick Sanger"]})
    assert as_written.restore('Which laureates are listed undre a "Lord" title?').text == \
        'Which laureates are listed undre a "Lord" title?'
    assert as_written.restore("who is listed undre a title").text == "who is listed Andre a title"  # no case: any word
    assert as_written.restore("Who was Frederick Sagner?").text == "Who was Frederick Sanger?"


@pytest.mark.parametrize("said", [
    "When was Rutherfrod born?",  # the word mended would stand in no whole name
    "Who is Anna Karo?",  # Karl and Kari are both one edit away
])
def test_a_slip_is_mended_only_into_one_whole_name(as_written, said):
    assert as_written.restore(said).text == said


def test_an_english_word_is_never_a_slip():
    from glm_dspy.graphs.cypher.value_index import folded

    as_written = AsWritten({folded(name): name for name in ["Bore Hall", "Born Hall"]})
    # "bore" and "born" are English words, so neither is read as the other's slip
    assert as_written.restore("Where is Bore Hall?").text == "Where is Bore Hall?"
    assert as_written.restore("Where is Borne Hall?").text == "Where is Borne Hall?"  # "borne" is English too


def test_glm_reads_a_lower_case_question_as_the_capitalised_one(nobel_graph):
    from glm_dspy.modules.glm import GLM

    program = GLM(nobel_graph, compiled=None)
    program.bank_match = 2.0  # the readings first, whatever the bank holds
    with dspy.context(lm=DummyLM([])):
        cased = program(question="In which city was Marie Curie born?")
        lower = program(question="in which city was marie curie born?")
        slipped = program(question="In which city was Marie Cuire born?")
    assert cased.answer == lower.answer == slipped.answer == "Warsaw"
    assert lower.num_calls == slipped.num_calls == 0
    said = [step["output"] for step in lower.steps if "read as written" in (step.get("output") or "")]
    assert said == ["read as written in the graph: 'marie curie' as 'Marie Curie'"]


def test_lever_as_written_off_reads_the_question_as_typed(nobel_graph):
    from glm_dspy.modules.discriminate import LEVERS, Discriminate

    off = Discriminate(nobel_graph, levers=LEVERS - {"as-written"})
    assert off.as_written("in which city was marie curie born?") == "in which city was marie curie born?"
    assert Discriminate(nobel_graph).as_written("in which city was marie curie born?") \
        == "in which city was Marie Curie born?"
