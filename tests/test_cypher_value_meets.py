"""graphs/cypher/value_meets.py on the real Nobel graph (no LLM): a reading whose start shares a
year with a time a named node's path reads, checked against the same rows read in Python."""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.condition import Condition
from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
from glm_dspy.graphs.cypher.candidates import readings_of
from glm_dspy.graphs.cypher.value_meets import ValueMeet, value_meet_readings
from glm_dspy.graphs.store import GraphStore


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


@pytest.fixture(scope="module")
def curie(store):
    (row,) = store.query("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.id AS id")
    return Start.named("laureate", "name", "Marie Curie", row["id"])


def _read(store, candidate) -> list:
    assert gate(candidate.cypher).text == candidate.cypher
    return [next(iter(row.values())) for row in store.read(candidate.cypher).rows]


def test_the_laureates_born_in_a_year_a_named_laureate_won(store, curie):
    won = ValueMeet(curie, (Hop("laureate", False, "prize"),), "year", "birth_date", (False, True))
    reading = Candidate(Start("laureate", (), "laureate"), (), "name", meets=won)
    years = {str(r["y"]) for r in store.query(
        "MATCH (p:prize)-[:rel_laureate]->(l:laureate {name: 'Marie Curie'}) RETURN p.year AS y")}
    expected = {r["n"] for r in store.query("MATCH (l:laureate) RETURN l.name AS n, l.birth_date AS b")
                if r["b"] and r["b"][:4] in years}
    assert expected and set(_read(store, reading)) == expected
    assert "whose laureate birth date is in the year of Marie Curie -> prize" in reading.words()


def test_a_stated_start_meets_too_and_the_named_node_is_left_out(store, curie):
    (row,) = store.query("MATCH (l:laureate {name: 'Linus Pauling'}) RETURN l.id AS id, l.birth_date AS b")
    pauling = Start.named("laureate", "name", "Linus Pauling", row["id"])
    physics = Start.anchored("prize", (Condition("category", "=", "Physics"),))
    born = ValueMeet(pauling, (), "birth_date", "year", (True, False))
    to_laureates = Candidate(physics, (Hop("laureate", True, "laureate"),), "name", meets=born)
    expected = {r["n"] for r in store.query(
        "MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Physics' "
        f"AND p.year = {int(row['b'][:4])} RETURN l.name AS n")}
    assert expected and set(_read(store, to_laureates)) == expected
    same_year = Candidate(Start("laureate", (), "laureate"), (), "name",
                          meets=ValueMeet(curie, (), "birth_date", "birth_date"))
    assert "Marie Curie" not in _read(store, same_year)


def test_every_time_of_a_named_node_meets_every_time_of_a_target(store, curie):
    def timed(type_name, feature):
        return {"birth_date": "date", "death_date": "date", "date_awarded": "date", "year": "year"}.get(feature)

    laureates = Start("laureate", (), "laureate")
    found = value_meet_readings(store.schema, timed, [(curie, [(), (Hop("laureate", False, "prize"),)])],
                                [(laureates, [()])], readings_of)
    meets = {(c.meets.hops, c.meets.feature, c.meets.own) for c in found}
    assert ((), "birth_date", "death_date") in meets and ((Hop("laureate", False, "prize"),), "year", "birth_date") in meets
    assert all(c.returns in ("name", "count()") for c in found)
