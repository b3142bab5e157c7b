"""A relation's name read as English (glm_dspy/readings/relation_grammar.py): a noun, a verb and
what follows it, or a place; the readings' words and the bank `build` writes say it so."""

from __future__ import annotations

import pytest

from glm_dspy.readings.relation_grammar import NOUN, PARTICIPLE, PAST, PLACE, PRESENT, VERB, grammar


@pytest.mark.parametrize("relation, kind, tense, base", [
    ("mentor", NOUN, None, None), ("birth_city", NOUN, None, None), ("student", NOUN, None, None),
    ("HAS_CAPITAL", NOUN, None, None),  # "has" and a noun: the noun
    ("PART_OF", NOUN, None, None), ("born_laureate", NOUN, None, None),  # a participle before a noun: its adjective
    ("BORDERS", VERB, PRESENT, "border"), ("USES_CURRENCY", VERB, PRESENT, "use currency"),
    ("DIRECTED", VERB, PAST, "direct"), ("ACTED_IN", VERB, PAST, "act in"), ("WORKS_FOR", VERB, PRESENT, "work for"),
    ("born_in", VERB, PARTICIPLE, "bear in"), ("cited_by", VERB, PAST, "cite by"),
    ("IN_COUNTRY", PLACE, None, None), ("IN_TIME_ZONE", PLACE, None, None),
])
def test_a_relation_is_said_as_its_names_words_are(relation, kind, tense, base):
    said = grammar(relation)
    assert (said.kind, said.tense) == (kind, tense)
    if base is not None:
        assert said.base() == base
    if relation == "HAS_CAPITAL":
        assert said.noun == "CAPITAL"
    if kind == PLACE:
        assert said.preposition == "in" and said.noun.lower() in ("country", "time zone")


@pytest.mark.parametrize("relation, backwards", [
    ("mentor", "Laureate whose mentor it is"),
    ("DIRECTED", "Person that DIRECTED it"), ("BORDERS", "Country that BORDERS it"),
    ("USES_CURRENCY", "Country that USES it"),  # the object named is the node read from
    ("ACTED_IN", "Person that ACTED IN it"), ("cited_by", "Paper cited by it"), ("born_in", "Person born in it"),
    ("IN_COUNTRY", "City IN it"), ("PART_OF", "Region PART OF it"),
])
def test_a_hop_read_backwards_says_what_is_so_to_its_target(relation, backwards):
    labels = {"mentor": "Laureate", "DIRECTED": "Person", "BORDERS": "Country", "USES_CURRENCY": "Country",
              "ACTED_IN": "Person", "cited_by": "Paper", "born_in": "Person", "IN_COUNTRY": "City",
              "PART_OF": "Region"}[relation]
    assert grammar(relation).of_object(labels) == backwards


def test_the_readings_words_say_a_verb_backwards_as_a_verb():
    from glm_dspy.graphs.cypher.candidate import Hop, Start, words_of

    start = Start.named("Film", "name", "The Long Road", "film_1")
    assert words_of(start, (Hop("DIRECTED", False, "Person"),)) == "The Long Road -> Person that DIRECTED it"
    assert words_of(start, (Hop("mentor", False, "Laureate"),)) == "The Long Road -> Laureate whose mentor it is"


def test_the_bank_of_a_verb_named_graph_asks_in_verbs(tmp_path, embedder):
    from glm_dspy.graphs.build import build_database
    from glm_dspy.graphs.schema_examples import schema_examples
    from glm_dspy.graphs.store import GraphStore

    (tmp_path / "kb.tsv").write_text(
        "mozambique\tBORDERS\ttanzania\ntanzania\tBORDERS\tkenya\nmozambique\tUSES_CURRENCY\tmetical\n"
        "kenya\tUSES_CURRENCY\tshilling\nbeira\tIN_COUNTRY\tmozambique\nmombasa\tIN_COUNTRY\tkenya\n"
        "ada\tDIRECTED\tthe_long_road\nbo\tDIRECTED\tthe_short_road\n")
    build_database(f"triples:{tmp_path / 'kb.tsv'}", tmp_path / "db", embedder=embedder)
    questions = {e["question"] for e in schema_examples(GraphStore.open(tmp_path / "db"))}
    assert not any(f"the {relation} of" in q.lower() for q in questions
                   for relation in ("borders", "uses currency", "in country", "directed")), sorted(questions)
    assert any(q.startswith("Which ") and q.endswith(" does mozambique border?") for q in questions), sorted(questions)
    assert any(" is beira in?" in q for q in questions), sorted(questions)
