"""What a question says by the form of its words and its number (issue 31): a word says a
schema name it derives ("founded": founder), a relation said three times is three hops, a
question asking for one value of a named thing reads that thing's own value, and "what is the
<noun> ..." names the thing asked for."""

from __future__ import annotations

from collections import Counter

import pytest

from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
from glm_dspy.modules.meant_words import derives, meant_by_word
from glm_dspy.modules.question_facts import asked_words, asks_one
from glm_dspy.graphs.cypher.condition import Condition
from glm_dspy.modules.reading_fit import bound_time_unsaid, fewer_types, repeated
from conftest import triples_db


@pytest.mark.parametrize("word, part, says", [
    ("founded", "founder", True), ("employs", "employer", True), ("governs", "governor", True),
    ("home", "hometown", True), ("birth", "birthplace", True),
    ("man", "manager", False),  # too short to begin a compound
    ("mentored", "mentor", False),  # its own name, not a derived one (word_stem meets it)
    ("died", "death", False)])
def test_a_word_says_the_name_it_derives_by_its_form(word, part, says):
    assert derives(word, part) is says


def test_a_word_that_derives_one_name_says_it_without_the_embedder():
    def no_embedder(texts):
        raise AssertionError("the embedder is not asked")

    assert meant_by_word(["founded"], ["founder", "hometown", "name"], no_embedder) == {"founded": {"founder"}}


@pytest.mark.parametrize("question, words", [
    ("What is the city that is home to Ann Lee?", ["city", "that", "is"]),
    ("Who is the person who mentored Ann Lee?", ["person", "who", "mentored"]),
    ("Which Nobel laureate was born in Ulm?", ["nobel", "laureate", "was"]),
    ("Who was the laureate's mentor?", []),  # a possessive names the owner, not the thing asked
    ("Which laureate’s mentor won a prize?", [])])
def test_the_thing_asked_is_named_after_which_or_what_is_the(question, words):
    assert asked_words(question) == words


@pytest.mark.parametrize("question, one", [
    ("What year was the paper P published?", True), ("In which city was Ann Lee born?", True),
    ("What is the country of Ulm?", True),
    ("Which prize did Ann Lee win?", False),  # "did" says no number
    ("Which laureates were born in 1900?", False), ("Who won the 1903 physics prize?", False)])
def test_a_question_asks_one_value_by_its_number(question, one):
    assert asks_one(question) is one


def test_a_relation_said_more_often_than_taken_leaves_the_rest_unsaid():
    start = Start.named("person", "name", "Ann Lee", "n1")
    two = Candidate(start, (Hop("mentor", True, "person"),) * 2, "name")
    three = Candidate(start, (Hop("mentor", True, "person"),) * 3, "name")
    said = {"mentor": 3}
    assert repeated(two, said) == 1 and repeated(three, said) == 0
    assert repeated(Candidate(start, (), "name"), said) == 2  # its first mention is `unsaid`'s


def test_a_type_said_twice_wants_two_nodes_of_it():
    """"How many laureates of 1990 had a laureate as a mentor?": the mentor is a laureate too
    (a type said in the question's own words: "won" says prize, but no second prize)."""
    start = Start.named("prize", "name", "Medicine 1990", "p1")
    through_laureate = Candidate(start, (Hop("laureate", True, "laureate"), Hop("mentor", True, "laureate")), "name")
    through_scholar = Candidate(start, (Hop("laureate", True, "laureate"), Hop("mentor", True, "scholar")), "name")
    through_either = Candidate(start, (Hop("laureate", True, "laureate"),
                                       Hop("mentor", True, "scholar", ("laureate",))), "name")
    said = {"laureate": 2}
    assert fewer_types(through_laureate, said) == 0 and fewer_types(through_either, said) == 0
    assert fewer_types(through_scholar, said) == 1 and fewer_types(Candidate(start, (), "name"), said) == 2
    assert fewer_types(through_scholar, {"laureate": 1}) == 0  # said once: held once is enough


def test_a_start_bound_on_a_time_needs_the_words_that_name_that_time():
    """"... since 2020 ... when they won": the prize's year is its own time (no word needed); a
    death date needs "death" said, or a word near it ("died")."""
    times = {("prize", "year"), ("prize", "date_awarded"), ("person", "death_date")}

    def timed(type_name, feature):
        return (type_name, feature) in times

    def reading(type_name, feature):
        return Candidate(Start.anchored(type_name, (Condition(feature, ">=", 2020),)), (), "name")

    said = Counter({"won": 1, "sinc": 1})
    assert bound_time_unsaid(reading("prize", "year"), said, set(), timed) == 0
    assert bound_time_unsaid(reading("person", "death_date"), said, set(), timed) == 1
    assert bound_time_unsaid(reading("prize", "date_awarded"), said, set(), timed) == 1
    assert bound_time_unsaid(reading("person", "death_date"), said, {"death date"}, timed) == 0  # "died"
    assert bound_time_unsaid(reading("person", "death_date"), Counter({"death": 1}), set(), timed) == 0
    assert bound_time_unsaid(reading("person", "name"), said, set(), timed) == 0  # not a time


@pytest.fixture(scope="module")
def world(tmp_path_factory, embedder):
    """Ann's mentor is Bo, Bo's is Cy, Cy's is Dee; Acme was founded by Bo, whose hometown is
    Varn."""
    from glm_dspy.graph import open_graph

    triples = [("Ann Lee", "mentor", "Bo Strand"), ("Bo Strand", "mentor", "Cy Okafor"),
               ("Cy Okafor", "mentor", "Dee Park"), ("Dee Park", "mentor", "Eve Moss"),
               ("Acme Works", "founder", "Bo Strand"), ("Bo Strand", "hometown", "Varn"),
               ("Cy Okafor", "hometown", "Tolm"), ("Ann Lee", "hometown", "Quell"), ("Acme Works", "headquarters", "Tolm")]
    db = triples_db(tmp_path_factory.mktemp("forms"), "".join(f"{s}\t{r}\t{o}\n" for s, r, o in triples))
    with open_graph(db, embedder=embedder) as graph:
        yield graph


@pytest.fixture(scope="module")
def papers(tmp_path_factory, embedder):
    """The paper Deep Nets (2019) shares its author with three papers of other years."""
    import json

    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    titles = {"p1": ("Deep Nets", 2019), "p2": ("Wide Nets", 2011), "p3": ("Shallow Nets", 2013),
              "p4": ("Sparse Nets", 2015)}
    source = {"author_nodes": {"a1": {"features": {"name": "Fay Lund"}, "neighbors": {"paper": list(titles)}}},
              "paper_nodes": {key: {"features": {"title": title, "year": year}, "neighbors": {"author": ["a1"]}}
                              for key, (title, year) in titles.items()}}
    folder = tmp_path_factory.mktemp("papers")
    (folder / "graph.json").write_text(json.dumps(source))
    build_database(f"grbench:{folder / 'graph.json'}", folder / "db", embedder=embedder)
    with open_graph(folder / "db", embedder=embedder) as graph:
        yield graph


def _answer(graph, question, levers=None):
    from glm_dspy.modules.discriminate import LEVERS, Discriminate
    from glm_dspy.runs.steps import StepLog

    found = Discriminate(graph, levers=LEVERS if levers is None else levers).answer(question, StepLog())
    return found and found[0]


@pytest.mark.parametrize("question, answer", [
    ("Who is the mentor of the mentor of the mentor of Ann Lee?", "Dee Park"),
    ("What is the city that is home to the person who founded Acme Works?", "Varn")])
def test_the_readings_read_what_the_words_form_and_number_say(world, question, answer):
    assert _answer(world, question) == answer


def test_without_counting_a_relation_s_mentions_a_hop_is_left_out(world):
    from glm_dspy.modules.discriminate import LEVERS

    assert _answer(world, "Who is the mentor of the mentor of the mentor of Ann Lee?", LEVERS - {"repeated"}) != "Dee Park"


def test_a_question_asking_one_value_of_a_named_thing_reads_its_own(papers):
    from glm_dspy.modules.discriminate import LEVERS

    question = "What year was the paper Deep Nets published?"
    assert _answer(papers, question) == "2019"


def test_a_shorter_reading_of_one_value_comes_before_a_longer_one_of_several():
    from glm_dspy.modules.discriminate import _one_first

    paper = Start.named("paper", "title", "Deep Nets", "p1")
    loop = Candidate(paper, (Hop("author", True, "author"), Hop("author", False, "paper")), "year")
    own, cited = Candidate(paper, (), "year"), Candidate(paper, (Hop("cited_by", True, "paper"),), "year")
    shown = [(loop, ["2011", "2013"], ""), (cited, ["2020"], ""), (own, ["2019"], "")]
    assert [c for c, _, _ in _one_first(shown)] == [cited, loop, own]  # the first shorter one of one value
    assert _one_first(shown[::-1]) == shown[::-1]  # the nearest reads one already
    other = Candidate(paper, (), "title")  # another feature: not the value asked
    assert _one_first([shown[0], (other, ["Deep Nets"], "")])[0][0] is loop


def test_a_detour_back_to_the_named_thing_s_type_must_be_said():
    from collections import Counter

    from glm_dspy.modules.reading_fit import unsaid_detour

    paper = Start.named("paper", "title", "Deep Nets", "p1")
    others = Candidate(paper, (Hop("author", True, "author"), Hop("author", False, "paper")), "keywords")
    said = Counter({"keyword": 1, "paper": 1})
    assert unsaid_detour(others, said, Counter())  # "the keywords of the paper P": no word says author
    assert not unsaid_detour(others, said + Counter({"author": 1}), Counter())  # "... of P's authors' papers"
    assert not unsaid_detour(Candidate(paper, (), "keywords"), said, Counter())
    assert not unsaid_detour(others, said, Counter({("author", True): 1}))  # the bank's word for author


def test_a_relation_taken_more_often_than_said_leaves_a_hop_unsaid():
    start = Start.named("laureate", "name", "Jack Steinberger", "l1")
    own = Candidate(start, (Hop("mentor", True, "laureate"),), "name")
    fellows = Candidate(start, (Hop("mentor", True, "laureate"), Hop("mentor", False, "laureate")), "name")
    assert repeated(own, {"mentor": 1}) == 0 and repeated(fellows, {"mentor": 1}) == 1


@pytest.mark.parametrize("question, answer", [
    ("In which cities were the Nobel laureate mentors of Jack Steinberger born?", "Rome"),  # his mentor's, once
    ("Which other Nobel laureate studied under the same mentor as James Peebles?", "Rainer Weiss")])  # there and back
def test_a_relation_is_taken_as_often_as_the_question_says_it(nobel_graph, question, answer):
    assert _answer(nobel_graph, question) == answer
