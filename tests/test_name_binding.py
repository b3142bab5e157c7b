"""A name the question writes binds the node so named, punctuation and brackets aside, and the
longest name wins over a name inside it (issue 31, §2: names bind to nodes)."""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher.anchors import _written
from glm_dspy.graphs.cypher.condition import Condition
from glm_dspy.graphs.cypher.candidate import Start
from glm_dspy.modules.question_starts import longest


@pytest.mark.parametrize("value, phrase, written", [
    ("Cambridge, MA", "Cambridge MA", True),
    ("Kaiser-Wilhelm-Institut (now Max-Planck Institut) für Chemie",
     "Kaiser-Wilhelm-Institut now Max-Planck Institut für Chemie", True),
    ("Forschungszentrum J&uuml;lich", "Forschungszentrum J uuml lich", True),
    ("May", "may", False),  # a word of the question is no name by its letters alone
    ("Cambridge", "Cambridge MA", False)])
def test_a_phrase_writes_a_value_as_it_is_written_but_its_punctuation(value, phrase, written):
    assert _written(value, phrase) is written


def test_a_name_inside_a_longer_bound_name_is_no_start(nobel_graph):
    schema = nobel_graph.schema
    cambridge = Start.named("city", "name", "Cambridge", "city_cambridge")
    massachusetts = Start.anchored("city", (Condition("name", "=", "Cambridge, MA"),), frozenset({"cambridge", "ma"}))
    institutions = Start.anchored("institution", (Condition("city", "=", "Cambridge, MA"),),
                                  frozenset({"cambridge", "ma"}))
    assert longest([cambridge, massachusetts, institutions], schema) == [massachusetts, institutions]
    # a value other than a name (an institution's city) binds no longer name: Cambridge stays
    assert longest([cambridge, institutions], schema) == [cambridge, institutions]


@pytest.mark.parametrize("question, answer", [
    ("Which laureates were born in Cambridge, MA?", {"Douglass C. North", "Lloyd S. Shapley", "Percy W. Bridgman"}),
    ("In which city is Kaiser-Wilhelm-Institut (now Max-Planck Institut) für Chemie located?", {"Berlin-Dahlem"})])
def test_the_readings_start_at_the_node_the_question_names_in_full(nobel_graph, question, answer):
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.runs.steps import StepLog

    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found is not None and set(found[0].split(", ")) == answer, found


def test_the_node_named_exactly_wins_over_names_that_hold_its_words(nobel_graph):
    schema = nobel_graph.schema
    named = Start.named("laureate", "name", "Max Born", "l1")
    holding = Start.anchored("laureate", (Condition("name", "IN", ("Max Born", "Max Planck")),), frozenset({"max", "born"}))
    other_type = Start.anchored("city", (Condition("name", "IN", ("Max", "Born")),), frozenset({"max", "born"}))
    assert longest([named, holding, other_type], schema) == [named, other_type]
