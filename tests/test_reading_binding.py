"""How readings bind a question to the graph beyond its words' meaning: "who" asks for a
type of people, found from the graph's own names (glm_dspy/modules/person_types.py), and the
values one node holds bind one start (graphs/cypher/anchors.py binds each word once)."""

from __future__ import annotations

import pytest

from glm_dspy.modules.discriminate import LEVERS, Discriminate
from glm_dspy.modules.readings import Readings
from glm_dspy.modules.person_types import person_types
from glm_dspy.modules.question_facts import asks_person
from glm_dspy.runs.steps import StepLog


@pytest.mark.parametrize("question, asks", [
    ("Who won the chemistry prize in 1950?", True),
    ("Henrik Pontoppidan shared his prize. Who trained the other one?", True),
    ("With whom did Pierre Curie share the prize?", True),
    ("whom did Niels Bohr mentor", True),
    ("Which laureates who won in 1950 were born in France?", False),  # a relative "who"
    ("Name the people who mentored Enrico Fermi.", False),
    ("Where was Marie Curie born?", False),
    ("Could you tell me who mentored Enrico Fermi?", True),  # a polite request's clause asks
])
def test_who_asks_for_a_person_but_a_relative_who_does_not(question, asks):
    assert asks_person(question) is asks


def _types(graph):
    return person_types(graph.store, graph.schema, Readings(graph)._embed)


def test_the_types_of_people_are_read_from_the_graphs_names(nobel_graph, movies_graph):
    # laureates and scholars have people's names; prizes, cities, countries, institutions do not
    assert _types(nobel_graph) == {"laureate", "scholar"}
    # another graph's own types, named otherwise: Person, not Movie or Genre
    assert _types(movies_graph) == {"Person"}


def test_a_graph_of_one_type_has_no_type_to_prefer(tmp_path, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    source = tmp_path / "people.tsv"
    source.write_text("Ada Lovelace\tmentor\tCharles Babbage\nAlan Turing\tmentor\tAlonzo Church\n", encoding="utf-8")
    build_database(f"triples:{source}", tmp_path / "db", embedder=embedder)
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        assert len(graph.schema.node_types) == 1 and _types(graph) == frozenset()


QUESTION = "Who received the chemistry prize in the year Marie Curie died?"  # Marie Curie died in 1934


def test_a_who_question_reads_the_person_not_the_thing_it_describes(nobel_graph):
    on = Discriminate(nobel_graph).answer(QUESTION, StepLog())
    typed = Discriminate(nobel_graph, levers=LEVERS - {"persons"}).answer(QUESTION, StepLog())
    off = Discriminate(nobel_graph, levers=LEVERS - {"persons", "answer-type"}).answer(QUESTION, StepLog())
    assert on[0] == "Harold C. Urey"
    # the answer type alone keeps a prize from answering "who" (glm_dspy/readings/answer_type.py) ...
    assert typed[0] == "Harold C. Urey"
    # ... and without either, the nearest reading is the prize the question describes, not who won it
    assert off[0] == "Nobel Prize in Chemistry 1934"


def test_values_said_of_one_thing_bind_one_start(nobel_graph):
    # "the 1935 physics laureate": the prize of 1935 in physics (James Chadwick), not a physics
    # laureate who was born in 1935 (the prize's "category and year" start, read cleanly, is nearer)
    readings = Discriminate(nobel_graph).readings("What is the family name of the 1935 physics laureate?")
    assert readings[0].join is None and Discriminate(nobel_graph).answer(
        "What is the family name of the 1935 physics laureate?", StepLog())[0] == "Chadwick"


def test_a_time_the_question_does_not_name_is_its_stated_starts(nobel_graph):
    # "saw the most medicine laureates": the medicine prizes' years, not the laureates' births
    top = Discriminate(nobel_graph).readings("Which decade had the most medicine laureates?")[0]
    assert top.group is not None and (top.group.key.at, top.group.key.type_name) == (0, "prize")
    # a time the question names is its own: "born" says the laureates' birth dates
    top = Discriminate(nobel_graph).readings("In which decade were the most medicine laureates born?")[0]
    assert top.group is not None and top.group.key.feature == "birth_date"
