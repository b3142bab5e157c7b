"""graphs/cypher/counted.py, absent.py and anchors' unions on the real Nobel graph (no LLM): a
reading that bounds a count per node, one of what a path does not reach, and a start of any of
several values read what the same rows, counted in Python, say."""

from __future__ import annotations

from collections import defaultdict
from functools import partial

import pytest

from glm_dspy.readings.operators import coordinated
from glm_dspy.readings.question import read
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.absent import END, START, absent_readings
from glm_dspy.graphs.cypher.anchors import Anchor, starts_of
from glm_dspy.graphs.cypher.condition import IN, Condition
from glm_dspy.graphs.cypher.value_index import ValueIndex
from glm_dspy.graphs.cypher.candidate import COUNT, Hop, Start
from glm_dspy.graphs.cypher.candidates import readings_of
from glm_dspy.graphs.cypher.counted import Counted, counted_readings
from glm_dspy.graphs.store import GraphStore


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


@pytest.fixture(scope="module")
def index(store):
    return ValueIndex.build(store, store.schema)


MEDICINE = Start.anchored("prize", (Condition("category", "=", "Physiology or Medicine"),))
LAUREATES = Start("laureate", (), "laureate")  # every laureate
TO_INSTITUTION = (Hop("laureate", True, "laureate"), Hop("institution", True, "institution"))


def _read(store, candidate) -> list:
    assert gate(candidate.cypher).text == candidate.cypher  # a reading is a query the gate passes
    return [next(iter(row.values())) for row in store.read(candidate.cypher).rows]


def test_a_count_bounded_per_node_on_the_path_reads_the_nodes_that_meet_it(store, index):
    plain = readings_of(store.schema, MEDICINE, [TO_INSTITUTION])
    found = counted_readings(store.schema, index, plain, (">=", 2), count_asked=False)
    by_country = next(c for c in found if c.counted == Counted(1, "laureate", "country", ">=", 2))
    countries = defaultdict(set)
    for row in store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate)-[:rel_institution]->(i:institution) "
                           "WHERE p.category = 'Physiology or Medicine' RETURN l.name AS n, i.country AS c"):
        if row["c"] is not None:
            countries[row["n"]].add(row["c"])
    expected = {n for n, c in countries.items() if len(c) >= 2}
    assert expected and set(_read(store, by_country)) == expected
    assert by_country.words().endswith("name of laureate with at least 2 different country")
    how_many = counted_readings(store.schema, index, plain, (">=", 2), count_asked=True)
    assert next(c for c in how_many if c.counted == by_country.counted).returns == COUNT
    assert _read(store, next(c for c in how_many if c.counted == by_country.counted)) == [len(expected)]


def test_a_named_start_counts_nothing_and_every_node_of_a_type_does(store, index):
    named = Start.named("laureate", "name", "Marie Curie", "x")
    prizes = (Hop("laureate", False, "prize"),)
    assert counted_readings(store.schema, index, readings_of(store.schema, named, [prizes]), (">", 1), False) == []
    twice = next(c for c in counted_readings(store.schema, index, readings_of(store.schema, LAUREATES, [prizes]),
                                             (">", 1), False) if c.counted.feature is None)
    expected = {r["n"] for r in store.query("MATCH (l:laureate)<-[:rel_laureate]-(p:prize) WITH l, count(p) AS k "
                                            "WHERE k > 1 RETURN l.name AS n")}
    assert "Marie Curie" in expected and set(_read(store, twice)) == expected


def test_what_a_path_does_not_reach_is_the_rest_of_its_end_type(store, index):
    economics = Start.anchored("prize", (Condition("category", "=", "Economic Sciences"),))
    to_country = (Hop("laureate", True, "laureate"), Hop("birth_city", True, "city"), Hop("city", False, "country"))
    found = absent_readings(store.schema, index, readings_of(store.schema, economics, [to_country]), False)
    reached = {r["c"] for r in store.query(
        "MATCH (p:prize)-[:rel_laureate]->(:laureate)-[:rel_birth_city]->(:city)<-[:rel_city]-(c:country) "
        "WHERE p.category = 'Economic Sciences' RETURN c.continent AS c")}
    every = {r["c"] for r in store.query("MATCH (c:country) WHERE c.continent IS NOT NULL RETURN c.continent AS c")}
    continents = next(c for c in found if c.absent.side == END and c.absent.feature == "continent")
    assert every - reached and set(_read(store, continents)) == every - reached
    countries = next(c for c in found if c.absent.feature is None)
    names = {r["n"] for r in store.query("MATCH (c:country) RETURN c.name AS n")}
    reached_names = {r["n"] for r in store.query(
        "MATCH (p:prize)-[:rel_laureate]->(:laureate)-[:rel_birth_city]->(:city)<-[:rel_city]-(c:country) "
        "WHERE p.category = 'Economic Sciences' RETURN c.name AS n")}
    assert set(_read(store, countries)) == names - reached_names


def test_of_every_node_of_a_type_the_absent_are_those_the_path_leaves_from_nothing(store, index):
    mentors = (Hop("mentor", True, "laureate"),)
    found = absent_readings(store.schema, index, readings_of(store.schema, LAUREATES, [mentors]), count_asked=True)
    without = next(c for c in found if c.absent.side == START)
    expected = store.query("MATCH (l:laureate) WHERE NOT EXISTS { MATCH (l)-[:rel_mentor]->(:laureate) } "
                           "RETURN count(l) AS n")[0]["n"]
    assert 0 < expected and _read(store, without) == [expected]


def test_values_of_one_feature_said_together_are_also_one_start_of_any_of_them(store, index):
    question = "Which women won the physics or the chemistry prize?"
    said = [Anchor("prize", Condition("category", "=", c), c.lower()) for c in ("Physics", "Chemistry")]
    said.append(Anchor("laureate", Condition("gender", "=", "female"), "women"))
    starts = starts_of(said, store, listed=partial(coordinated, read(question).words))
    union = next(c for t, c, words in starts if t == "prize" and len(c) == 1 and c[0].op == IN)
    assert union[0].values == ("Physics", "Chemistry") and union[0].words() == "category is one of Physics, Chemistry"
    bound = next(words for t, c, words in starts if c == union)
    assert bound == {"physics", "chemistry"}
    assert starts[0][1] == union  # it binds more of the question's values than either alone
    assert not any(c.op == IN for t, cs, _ in starts_of(said, store) for c in cs)
    apart = partial(coordinated, read("Which laureates born in physics were working in chemistry?").words)  # not one list
    assert not any(c.op == IN for t, cs, _ in starts_of(said, store, listed=apart) for c in cs)
    with pytest.raises(AssertionError):
        Condition("category", "=", ("Physics",))
    start = Start.anchored("prize", union)
    plain = readings_of(store.schema, start, [(Hop("laureate", True, "laureate"),)])
    names = {r["n"] for r in store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) "
                                         "WHERE p.category = 'Physics' OR p.category = 'Chemistry' RETURN l.name AS n")}
    assert set(_read(store, next(c for c in plain if c.returns == "name"))) == names


def test_the_things_asked_that_had_something_are_those_with_at_least_one(nobel_graph, store):
    """"Which laureates who shared a Nobel Prize with Roger B. Myerson also had a mentor?": the
    co-laureates counted by their mentors, kept where there is at least one (a filter no path
    holds: a path to the mentors reads the mentors). One of his two co-laureates has a mentor."""
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.runs.steps import StepLog

    shared = ("MATCH (a:laureate {name: 'Roger B. Myerson'})-[:rel_prize]->(:prize)-[:rel_laureate]->(o:laureate) "
              "WHERE o <> a ")
    everyone = {r["n"] for r in store.query(shared + "RETURN DISTINCT o.name AS n")}
    mentored = {r["n"] for r in store.query(shared + "AND EXISTS { MATCH (o)-[:rel_mentor]->() } RETURN DISTINCT o.name AS n")}
    assert mentored and mentored < everyone
    question = "Which laureates who shared a Nobel Prize with Roger B. Myerson also had a mentor?"
    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found and set(found[0].split(", ")) == mentored


def test_a_thing_had_in_a_role_is_counted_where_there_is_one_of_the_type_said(nobel_graph, store):
    """"How many chemistry laureates of the 1980s had a Nobel laureate as a mentor?": the
    laureates counted, those with at least one mentor (`count_bound`: had ... as a mentor), and
    that mentor a laureate (the type said twice: `fewer_types`), not every mentor of theirs."""
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.runs.steps import StepLog

    of_1980s = ("MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' "
                "AND p.year >= 1980 AND p.year < 1990 ")
    taught = store.query(of_1980s + "AND EXISTS { MATCH (l)-[:rel_mentor]->(:laureate) } "
                         "RETURN count(DISTINCT l) AS n")[0]["n"]
    mentored = store.query(of_1980s + "AND EXISTS { MATCH (l)-[:rel_mentor]->() } RETURN count(DISTINCT l) AS n")[0]["n"]
    assert 0 < taught < mentored
    question = "How many chemistry laureates of the 1980s had a Nobel laureate as a mentor?"
    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found and found[0] == str(taught)


def test_an_order_among_the_things_a_count_keeps(nobel_graph, store):
    """"Which chemistry laureate was the most recent to receive the prize alone?": of the
    chemistry prizes with exactly one laureate ("alone": `count_bound` ("=", 1)), the latest's
    laureate; not the last chemistry laureates (a later, shared prize), nor a prize."""
    from glm_dspy.modules.discriminate import Discriminate
    from glm_dspy.runs.steps import StepLog

    alone = store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' "
                        "WITH p, count(DISTINCT l) AS n WHERE n = 1 WITH max(p.year) AS last "
                        "MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' AND p.year = last "
                        "RETURN l.name AS name, p.year AS y")
    latest = store.query("MATCH (p:prize) WHERE p.category = 'Chemistry' RETURN max(p.year) AS y")[0]["y"]
    assert len(alone) == 1 and alone[0]["y"] < latest
    log = StepLog()
    question = "Which chemistry laureate was the most recent to receive the prize alone?"
    found = Discriminate(nobel_graph).answer(question, log)
    assert found and found[0] == alone[0]["name"]
    assert "collect(" in found[1] and " IN glm_kept" in found[1]  # the count keeps, then the order ranks
