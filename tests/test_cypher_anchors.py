"""Anchors by value and the readings built on them (graphs/cypher/anchors.py, candidates.py) on the
real Nobel graph, no LLM: a question's words, numbers and dates bind to stored values as the graph
holds them, and every reading is a gated query that Kuzu runs."""

from __future__ import annotations

import pytest

from glm_dspy.modules.question_values import question_dates, question_values
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.anchors import anchors, starts_of
from glm_dspy.graphs.cypher.condition import Condition
from glm_dspy.graphs.cypher.value_index import DATE, LIST, NUMBER, TEXT, ValueIndex
from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Hop, Start
from glm_dspy.graphs.cypher.candidates import joined_candidates, same_value_candidates
from glm_dspy.graphs.cypher.walk import paths_from
from glm_dspy.graphs.store import GraphStore


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


@pytest.fixture(scope="module")
def index(store):
    return ValueIndex.build(store, store.schema)


def bound(index, store, question):
    return {(a.type_name, a.condition) for a in anchors(index, store, question_values(question))}


def run(store, candidate):
    assert gate(candidate.cypher).text == candidate.cypher
    return [next(iter(row.values())) for row in store.read(candidate.cypher).rows]


def test_each_features_kind_is_read_from_the_graph(index):
    assert index.kind("laureate", "birth_date") == DATE  # stored as text, every value an ISO date
    assert index.kind("prize", "year") == NUMBER and index.kind("laureate", "motivation") == LIST
    assert index.kind("laureate", "name") == TEXT and ("prize", "category") in index.categorical


def test_a_category_is_met_by_one_of_its_words_plurals_aside(index, store):
    found = bound(index, store, "How many prizes in economics went to medicine people?")
    assert ("prize", Condition("category", "=", "Economic Sciences")) in found
    assert ("prize", Condition("category", "=", "Physiology or Medicine")) in found


def test_other_values_are_met_only_as_written_and_never_by_function_words(index, store):
    found = bound(index, store, "Which laureates were born with the surname Curie?")
    assert ("laureate", Condition("family_name", "=", "Curie")) in found
    assert not any(c.value in ("Born", "The") for _, c in found)  # Max Born, The Svedberg: not "born", "the"


def test_numbers_meet_the_integers_and_the_dates_that_hold_them(index, store):
    found = bound(index, store, "Who won the 1903 prize?")
    assert ("prize", Condition("year", "=", 1903)) in found
    assert ("prize", Condition("date_awarded", "STARTS WITH", "1903")) in found
    assert not bound(index, store, "Which prizes of the 1900s?") & {("prize", Condition("year", "=", 1900))}


def test_a_decade_meets_the_years_and_dates_in_it(index, store):
    found = bound(index, store, "Which prizes of the 1900s?")
    assert ("prize", Condition("year", "decade", 1900)) in found
    assert ("prize", Condition("date_awarded", "STARTS WITH", "190")) in found
    years = {row["y"] for row in store.query("MATCH (p:prize) WHERE p.year / 10 = 190 RETURN DISTINCT p.year AS y")}
    start = Start.anchored("prize", (Condition("year", "decade", 1900),))
    assert set(run(store, Candidate(start, (), "year"))) == years == set(range(1901, 1910)) & years
    assert Condition("year", "decade", 1900).words() == "year is in the 1900s"


@pytest.mark.parametrize("question,op,year,date_op,date", [
    ("Who won since 2020?", ">=", 2020, ">=", "2020"), ("Who won after 2020?", ">", 2020, ">=", "2021"),
    ("Who won before 1902?", "<", 1902, "<", "1902"), ("Who won until 1902?", "<=", 1902, "<", "1903"),
])
def test_a_bounded_year_meets_the_years_and_dates_on_its_side(index, store, question, op, year, date_op, date):
    found = bound(index, store, question)
    assert ("prize", Condition("year", op, year)) in found and ("prize", Condition("year", "=", year)) not in found
    assert ("prize", Condition("date_awarded", date_op, date)) in found
    import operator

    side = {">=": operator.ge, ">": operator.gt, "<": operator.lt, "<=": operator.le}[op]
    years = run(store, Candidate(Start.anchored("prize", (Condition("year", op, year),)), (), "year"))
    assert years and all(side(y, year) for y in years)
    dates = run(store, Candidate(Start.anchored("prize", (Condition("date_awarded", date_op, date),)), (), "date_awarded"))
    assert dates and all(side(int(d[:4]), year) for d in dates)


@pytest.mark.parametrize("text,dates", [("born on 7 November 1867?", ["1867-11-07"]),
                                        ("on November 7th, 1867", ["1867-11-07"]), ("1867-11-07", ["1867-11-07"]),
                                        ("in 1867", [])])
def test_dates_are_read_in_the_ways_people_write_them(text, dates):
    assert question_dates(text) == dates


def test_a_date_binds_to_the_feature_that_holds_it(index, store):
    found = bound(index, store, "Which laureate was born on 7 November 1867?")
    assert ("laureate", Condition("birth_date", "=", "1867-11-07")) in found


def test_long_texts_are_met_by_the_longest_run_of_content_words_that_is_rare(index, store):
    found = [a for a in anchors(index, store, question_values("Who was honoured for the discovery of radium?"))
             if a.condition.op == "CONTAINS"]
    assert found and all(a.type_name == "laureate" and a.condition.feature == "motivation" for a in found)
    start = Start.anchored("laureate", (found[0].condition,))
    names = run(store, Candidate(start, (), "name"))
    assert "Marie Curie" in names and len(names) <= 5


def test_conditions_on_one_type_are_also_taken_together(index, store):
    found = anchors(index, store, question_values("Who won the 1903 physics prize?"))
    starts = starts_of(found, store)
    together = [(t, c) for t, c, _ in starts if t == "prize" and {x.feature for x in c} >= {"year", "category"}]
    assert together
    type_name, conditions = together[0]
    start = Start.anchored(type_name, conditions)
    hop = Hop("laureate", True, "laureate")
    assert "Marie Curie" in run(store, Candidate(start, (hop,), "name"))


def test_one_value_binds_one_feature_of_a_start(index, store):
    # "1921" meets a prize's year and its date awarded; the physics prize of 1921 was awarded in
    # 1922, so only "category and year" holds it: no start asks both features of the one "1921"
    starts = starts_of(anchors(index, store, question_values("Who won the 1921 physics prize?")), store)
    together = [{c.feature for c in conditions} for t, conditions, _ in starts if t == "prize" and len(conditions) > 1]
    assert {"category", "year"} in together
    assert not any({"year", "date_awarded"} <= features for features in together)
    start = next(Start.anchored("prize", c) for t, c, _ in starts
                 if t == "prize" and {x.feature for x in c} == {"category", "year"})
    assert run(store, Candidate(start, (Hop("laureate", True, "laureate"),), "name")) == ["Albert Einstein"]


def test_a_last_hop_to_several_types_reads_them_all(store):
    (row,) = store.query("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.id AS id")
    curie = Start.named("laureate", "name", "Marie Curie", row["id"])
    paths = paths_from(store, curie, max_hops=1)
    union = [p for p in paths if p and p[-1].also]
    assert union, "mentor and student reach laureates and scholars"
    for path in union:
        candidate = Candidate(curie, path, "name")
        assert ":" + ":".join(path[-1].labels) in candidate.cypher  # Kuzu reads (x:A:B) as A or B
        last = path[-1]
        single = {v for t in last.labels for v in run(store, Candidate(curie, (Hop(last.relation, last.outgoing, t),),
                                                                        "name"))}
        assert set(run(store, candidate)) == single


def test_nodes_that_share_a_value_with_a_named_node(store):
    (row,) = store.query("MATCH (l:laureate {name: 'Pierre Curie'}) RETURN l.id AS id")
    pierre = Start.named("laureate", "name", "Pierre Curie", row["id"])
    same = {c.same: c for c in same_value_candidates(store.schema, pierre) if c.returns == "name"}
    assert "name" not in same and "motivation" not in same  # not its name, not a list
    names = run(store, same["family_name"])
    assert "Marie Curie" in names and "Pierre Curie" not in names


def test_two_starts_meet_where_their_paths_reach_the_same_nodes(index, store):
    female = Start.anchored("laureate", (Condition("gender", "=", "female"),), frozenset({"female"}))
    poland = Start.named("country", "name", "Poland", store.query(
        "MATCH (c:country {name: 'Poland'}) RETURN c.id AS id")[0]["id"])
    met = joined_candidates(store, store.schema, female, [()], poland, paths_from(store, poland, max_hops=2))
    names = [run(store, c) for c in met if c.returns == "name"]
    assert any("Marie Curie" in found for found in names)
    assert all(c.returns == COUNT or c.join is not None for c in met)
    assert not joined_candidates(store, store.schema, female, [()], female, [()])  # one word is one reading
