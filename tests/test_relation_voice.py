"""glm_dspy/readings/relation_voice.py: a relation is read the way the question says it, by the
part of speech its name is (a noun's owner, a verb's subject, object or agent, a verb's or a
place's preposition)."""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start, prepositional, words_of
from glm_dspy.readings.relation_voice import object_words, said_as_object, said_as_owner
from conftest import triples_db

PAPER = frozenset({"dense", "matrix", "sketching"})


@pytest.mark.parametrize("question, start, relation, said", [
    ("Which papers are cited by Dense Matrix Sketching?", PAPER, "cited_by", True),
    ("Who wrote the papers cited by the paper Dense Matrix Sketching?", PAPER, "cited_by", True),  # within GAP
    ("Which papers cite Dense Matrix Sketching?", PAPER, "cited_by", False),  # active: no preposition
    ("Is Dense Matrix Sketching cited by many papers?", PAPER, "cited_by", False),  # the start is the subject
    ("Who works for Acme Robotics?", frozenset({"acme", "robotics"}), "works_for", True),
    ("Which company does Ann Lee work for?", frozenset({"ann", "lee"}), "works_for", False),
    ("Who is the mentor of Ann Lee?", frozenset({"ann", "lee"}), "mentor", False),  # a noun: no way said
])
def test_a_start_after_the_relation_s_preposition_is_its_object(question, start, relation, said):
    assert said_as_object(object_words(question), start, relation) is said


def test_a_hop_backwards_over_a_prepositional_relation_reads_as_english():
    start = Start.named("paper", "title", "Dense Matrix Sketching", "p1")
    assert prepositional("cited_by") and prepositional("born_in") and not prepositional("birth_city")
    assert words_of(start, (Hop("cited_by", False, "paper"),)) == "Dense Matrix Sketching -> paper cited by it"
    assert words_of(start, (Hop("mentor", False, "person"),)) == "Dense Matrix Sketching -> person whose mentor it is"


@pytest.fixture(scope="module")
def citations(tmp_path_factory, embedder):
    """A cites B is written `B cited_by A`: Sparse Graph Sampling is cited by Dense Matrix
    Sketching, which is cited by Tensor Trains."""
    from glm_dspy.graph import open_graph

    db = triples_db(tmp_path_factory.mktemp("cites"), "".join(f"{s}\t{r}\t{o}\n" for s, r, o in (
        ("Sparse Graph Sampling", "cited_by", "Dense Matrix Sketching"), ("Sparse Graph Sampling", "author", "Ann Weber"),
        ("Dense Matrix Sketching", "author", "Bo Lindqvist"), ("Random Walk Kernels", "cited_by", "Sparse Graph Sampling"),
        ("Random Walk Kernels", "author", "Cid Okafor"), ("Dense Matrix Sketching", "cited_by", "Tensor Trains"),
        ("Tensor Trains", "author", "Dee Park"))))
    with open_graph(db, embedder=embedder) as graph:
        yield graph


@pytest.mark.parametrize("question, answer", [
    ("Which papers are cited by Dense Matrix Sketching?", "Sparse Graph Sampling"),
    ("Which papers cite Dense Matrix Sketching?", "Tensor Trains")])
def test_the_readings_take_the_relation_the_way_the_question_says_it(citations, question, answer):
    from glm_dspy.modules.discriminate import LEVERS, Discriminate
    from glm_dspy.runs.steps import StepLog

    found = Discriminate(citations).answer(question, StepLog())
    assert found is not None and found[0] == answer, found
    if "cited by" in question:  # without the lever, "cited by" says the hop forwards: the papers citing it
        off = Discriminate(citations, levers=LEVERS - {"voice"}).answer(question, StepLog())
        assert off is not None and off[0] != answer


@pytest.mark.parametrize("question, relation, said", [
    ("In which cities were the Nobel laureate mentors of Jack Steinberger born?", "mentor", True),
    ("Who is Jack Steinberger's mentor?", "mentor", True),
    ("Where is the birth city of Jack Steinberger?", "birth_city", True),
    ("Who did Jack Steinberger mentor?", "mentor", False),  # a verb: the start is its subject, no way said
    ("Which papers are cited by Jack Steinberger?", "cited_by", False)])  # a verb and its preposition
def test_a_relation_named_by_a_noun_of_the_start_is_the_start_s_own(question, relation, said):
    assert said_as_owner(object_words(question), frozenset({"jack", "steinberger"}), relation) is said


def test_a_first_hop_against_the_way_the_question_says_it_costs():
    from glm_dspy.modules.reading_fit import against_way

    start = Start.named("laureate", "name", "Jack Steinberger", "l1")
    words = object_words("Where were the mentors of Jack Steinberger born?")
    forwards = Candidate(start, (Hop("mentor", True, "laureate"), Hop("birth_city", True, "city")), "name")
    backwards = Candidate(start, (Hop("mentor", False, "laureate"), Hop("birth_city", True, "city")), "name")
    assert not against_way(forwards, words, False) and against_way(backwards, words, False)
    assert against_way(forwards, words, True)  # a start said as the object: forwards goes against it


VOICED = [  # (question, start, relation, at the target, at the source)
    ("Who directed Inception?", {"inception"}, "DIRECTED", True, False),
    ("Which films did Christopher Nolan direct?", {"christopher", "nolan"}, "DIRECTED", False, True),
    ("Which films were directed by Christopher Nolan?", {"christopher", "nolan"}, "DIRECTED", False, True),
    ("Was Inception directed by Nolan?", {"inception"}, "DIRECTED", True, False),
    ("Who follows Ann Lee?", {"ann", "lee"}, "FOLLOWS", True, False),
    ("who does ann lee follow", {"ann", "lee"}, "FOLLOWS", False, True),
    ("What currency does Japan use?", {"japan"}, "USES_CURRENCY", False, True),
    ("Which countries use the euro?", {"euro"}, "USES_CURRENCY", True, False),
    ("Which cities are in France?", {"france"}, "IN_COUNTRY", True, False),
    ("What is the country of Paris?", {"paris"}, "IN_COUNTRY", False, True),
    ("What is the capital of Kenya?", {"kenya"}, "HAS_CAPITAL", False, True),
    ("Where was Marie Curie born?", {"marie", "curie"}, "born_in", False, True),
    ("Is Dense Matrix Sketching cited by many papers?", PAPER, "cited_by", False, True),
    ("What are the borders of Kenya?", {"kenya"}, "BORDERS", False, False),  # a verb's name said as a noun
    ("What language do people speak in Laos?", {"laos"}, "SPEAKS", False, False),  # "in Laos": where, not what
    ("number of languages spoken in ireland", {"ireland"}, "SPEAKS", False, False),
    ("Who did Jack Steinberger mentor?", {"jack", "steinberger"}, "mentor", False, False),  # join_roles' to read
]


@pytest.mark.parametrize("question, start, relation, target, source", VOICED)
def test_a_relation_s_grammar_says_which_end_a_start_is(question, start, relation, target, source):
    words = object_words(question)
    assert said_as_object(words, frozenset(start), relation) is target
    assert said_as_owner(words, frozenset(start), relation) is source


def test_without_the_verbs_rules_only_a_noun_s_owner_and_a_verb_s_preposition_are_read():
    said = [(said_as_object(object_words(q), frozenset(s), r, verbs=False),
             said_as_owner(object_words(q), frozenset(s), r, verbs=False)) for q, s, r, *_ in VOICED]
    assert said[0] == said[4] == said[6] == (False, False)  # a verb's ends are not read
    assert said[10] == (False, True)  # a noun's owner is


@pytest.fixture(scope="module")
def follows(tmp_path_factory, embedder):
    """A graph whose one relation is a verb: Ann Lee follows Bo Park and Cy Diaz; Dee Wu follows
    Ann Lee."""
    from glm_dspy.graph import open_graph

    db = triples_db(tmp_path_factory.mktemp("follows"), "".join(f"{s}\t{r}\t{o}\n" for s, r, o in (
        ("Ann Lee", "FOLLOWS", "Bo Park"), ("Ann Lee", "FOLLOWS", "Cy Diaz"), ("Dee Wu", "FOLLOWS", "Ann Lee"),
        ("Eli Moss", "FOLLOWS", "Dee Wu"))))
    with open_graph(db, embedder=embedder) as graph:
        yield graph


@pytest.mark.parametrize("question, answer", [
    ("Who follows Ann Lee?", {"Dee Wu"}),
    ("Who does Ann Lee follow?", {"Bo Park", "Cy Diaz"})])
def test_the_readings_take_a_verb_the_way_the_question_says_it(follows, question, answer):
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.runs.steps import StepLog

    found = Discriminate(follows).answer(question, StepLog())
    assert found is not None and set(found[0].split(", ")) == answer, found


def test_without_the_verbs_rules_a_verb_is_read_one_way_whatever_is_asked(follows):
    from glm_dspy.modules.discriminate import LEVERS, Discriminate
    from glm_dspy.runs.steps import StepLog

    off = Discriminate(follows, levers=LEVERS - {"verb-voice"})
    found = [off.answer(q, StepLog()) for q in ("Who follows Ann Lee?", "Who does Ann Lee follow?")]
    assert found[0] is None or found[1] is None or found[0][0] == found[1][0], found
