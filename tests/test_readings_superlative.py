"""Superlatives by a number ("the most populous", "the second-largest", "the three biggest"):
read once from the question's words (glm_dspy/readings/question.py `Ranked`), answered by a
reading that orders a path's end by a number on the path (graphs/cypher/ranked.py `Order`), on
two real graphs: the movies CSV folder (relations named by verbs; a rating) and Nobel (relations
named by nouns; a prize's amount)."""

import pytest

from glm_dspy.modules.discriminate import Discriminate
from glm_dspy.modules.readings import LEVERS
from glm_dspy.readings.question import Ranked, read
from glm_dspy.runs.steps import StepLog


@pytest.mark.parametrize("question, ranked", [
    ("What's the second-largest city in Australia?", Ranked(True, "large", nth=2, noun="city")),
    ("Name the three biggest cities in Canada.", Ranked(True, "big", top=3, noun="city")),
    ("which is the least populous country in eastern europe", Ranked(False, "populous", noun="country")),
    ("top 5 most populous cities in india", Ranked(True, "populous", top=5, noun="city")),
    ("Which company has the fewest employees?", Ranked(False, "few", noun="employee")),
    # "most" before a noun: a number the things have, or the value the most share (the readings say)
    ("Which company in X has the second most employees?", Ranked(True, "employee", nth=2, noun="employee",
                                                                adjective=False)),
    ("Which movie has the lowest rating?", Ranked(False, "low", noun="rating")),
    ("What is the second highest rated movie?", Ranked(True, "high", nth=2, noun="movie")),
])
def test_a_superlative_is_read_with_its_direction_place_and_count(question, ranked):
    assert read(question).ranked == ranked


@pytest.mark.parametrize("question", [
    "Who is the oldest laureate?",  # a time: the first or the last, not a number
    "What was the most recent prize?",
    "Which is larger, Chad or Niger?",  # two offered: a comparison
    "Who won the prize in 1911?",
    "Which of them won the most?",  # "most" with nothing after it that says a value
    "What is the most common first name among laureates?",  # how often: the value the most share
])
def test_no_superlative_of_a_number_is_read_where_there_is_none(question):
    assert read(question).ranked is None


def test_which_has_asks_for_the_thing_that_has_it_not_what_it_has():
    read_as = read("Of the cities X's films were filmed in, which has the largest population?")
    assert read_as.asked == "thing" and read_as.noun is None and read_as.ranked.said == "large"


def answer(program, question):
    judged = program.judge(question, StepLog())
    return judged and judged.answer


@pytest.fixture(scope="module")
def movies(movies_graph):
    return Discriminate(movies_graph, confidence=None)


@pytest.fixture(scope="module")
def movies_without(movies_graph):
    return Discriminate(movies_graph, confidence=None, levers=LEVERS - {"superlative"})


@pytest.mark.parametrize("question, expected", [
    # Tom Hanks acted in Forrest Gump 8.8, Cast Away 7.8, Cloud Atlas 7.4, Sleepless in Seattle 6.8, You've Got Mail 6.7
    ("Which of Tom Hanks's movies has the highest rating?", "Forrest Gump"),
    ("Which movie with Tom Hanks has the lowest rating?", "You've Got Mail"),
    ("What is the second highest rated movie Tom Hanks acted in?", "Cast Away"),
    ("Name the two highest rated movies Tom Hanks acted in.", "Forrest Gump, Cast Away"),
    ("Which movie has the lowest rating?", "You've Got Mail"),  # no thing named: every movie
    ("Of the movies Tom Hanks acted in, which has the highest rating?", "Forrest Gump"),  # which has it: a movie
])
def test_movies_by_rating(movies, movies_without, question, expected):
    assert answer(movies, question) == expected
    assert answer(movies_without, question) != expected  # the lever is what answers it


def test_the_ranked_query_is_one_query_the_gate_runs(movies):
    """The nth of an order is one query: the end nodes by their best key, skipped and limited."""
    [reading, *_] = [c for c in movies.readings("What is the second highest rated movie Tom Hanks acted in?")
                     if c.order is not None and c.order.number]
    assert reading.order.nth == 2 and "SKIP 1" in reading.cypher and "LIMIT 1" in reading.cypher
    assert movies.graph.store.read(reading.cypher).rows == [{"title": "Cast Away"}]


@pytest.fixture(scope="module")
def nobel(nobel_graph):
    return Discriminate(nobel_graph, confidence=None)


@pytest.mark.parametrize("question, expected", [
    # Pauling: Chemistry 1954 (181,647 SEK), Peace 1962 (257,220); Curie: Physics 1903 (141,358), Chemistry 1911 (140,695)
    ("Which of Linus Pauling's prizes had the largest amount?", "Nobel Prize in Peace 1962"),
    ("Which of Marie Curie's prizes had the largest amount?", "Nobel Prize in Physics 1903"),
    ("Which of Marie Curie's prizes had the smallest amount?", "Nobel Prize in Chemistry 1911"),
])
def test_nobel_by_amount(nobel, question, expected):
    assert answer(nobel, question) == expected


def test_the_verb_world_by_staff_and_population(verbs_world):
    """A third graph, made up, relations named by verbs: each company's staff, each city's people."""
    graph, nodes, edges = verbs_world
    program = Discriminate(graph, confidence=None)
    companies = {row["id"]: row for row in nodes["Company"]}
    fewest = min(companies.values(), key=lambda row: row["employees"])["name"]
    assert answer(program, "Which company has the fewest employees?") == fewest
    city = {row["id"]: row for row in nodes["City"]}
    at = {}
    for company, c in edges["HEADQUARTERED_IN"]:
        at.setdefault(c, []).append(companies[company])
    c, staffed = next((c, rows) for c, rows in sorted(at.items()) if len(rows) >= 3)
    second = sorted(staffed, key=lambda row: row["employees"], reverse=True)[1]["name"]
    assert answer(program, f"Which company in {city[c]['name']} has the second most employees?") == second


def test_an_nth_or_a_top_is_not_kept_among_the_rows_a_count_keeps():
    """A count's kept rows take only an order's first or last (graphs/cypher/ranked.py `Order.tree`):
    an nth or a top of them is no reading, rather than one that reads the first and says the nth."""
    from dataclasses import replace

    from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
    from glm_dspy.graphs.cypher.counted import Counted, ordered_counted
    from glm_dspy.graphs.cypher.ranked import Key, Order

    start, hops = Start("prize", (), "prize"), (Hop("laureate", True, "laureate"),)
    counted = Candidate(start, hops, "name", counted=Counted(0, "prize", None, "=", 1))
    first = Candidate(start, hops, "name", order=Order(Key("a", 0, "prize", "amount"), True, number=True))
    assert len(ordered_counted([counted, first])) == 1
    assert ordered_counted([counted, replace(first, order=replace(first.order, nth=2))]) == []
