"""graphs/cypher/loops.py on the real Nobel graph (no LLM): the ends of a path whose own two paths
reach one node read what the same rows, compared in Python, say; and the question's reference
back to what it asks ("their") brings them into Discriminate's readings."""

from __future__ import annotations

import pytest

from glm_dspy.modules.discriminate import LEVERS, Discriminate
from glm_dspy.runs.steps import StepLog
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.candidate import Hop, Start
from glm_dspy.graphs.cypher.candidates import readings_of
from glm_dspy.graphs.cypher.walk import inverse_relations
from glm_dspy.graphs.cypher.loops import Loop, loops_of
from glm_dspy.graphs.store import GraphStore

MENTOR = (Hop("mentor", True, "laureate"),)
BIRTH_CITY = (Hop("birth_city", True, "city"),)
BORN_THERE = (Hop("birth_city", True, "city"), Hop("birth_city", False, "laureate"))


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


def _read(store, candidate) -> set:
    assert gate(candidate.cypher).text == candidate.cypher  # a reading is a query the gate passes
    return {next(iter(row.values())) for row in store.read(candidate.cypher).rows}


def test_a_loop_reads_the_ends_whose_two_paths_meet_at_one_node(store):
    born = {r["n"]: r["c"] for r in store.query(
        "MATCH (l:laureate)-[:rel_birth_city]->(c:city) RETURN l.name AS n, c.name AS c")}
    mentors = store.query("MATCH (l:laureate)-[:rel_mentor]->(m:laureate) RETURN l.name AS n, m.name AS m")
    expected = {r["n"] for r in mentors if r["n"] != r["m"] and born.get(r["n"]) and born.get(r["n"]) == born.get(r["m"])}
    every = Start("laureate", (), "laureate")
    plain = next(c for c in readings_of(store.schema, every, [()]) if c.returns == "name")
    from dataclasses import replace

    looped = replace(plain, loop=Loop(MENTOR, BORN_THERE))
    assert expected and _read(store, looped) == expected
    assert looped.words().startswith("laureate whose mentor is the same laureate as its birth city")


def test_the_loops_of_a_type_are_the_graphs_own(store):
    loops = loops_of(store, "laureate", inverse_relations(store, store.schema))
    assert Loop(MENTOR, BORN_THERE) in loops or Loop(BORN_THERE, MENTOR) in loops
    assert all(loop.first[-1].type_name == loop.second[-1].type_name for loop in loops)
    with pytest.raises(AssertionError):
        Loop(MENTOR, MENTOR)  # one path twice is no loop


def test_a_question_that_refers_back_reads_a_loop(nobel_graph):
    question = "Which physics laureates worked at the same institution as their mentor?"
    expected = {r["n"] for r in nobel_graph.store.query(
        "MATCH (p:prize)-[:rel_laureate]->(l:laureate)-[:rel_mentor]->(m:laureate), "
        "(l)-[:rel_institution]->(i:institution)<-[:rel_institution]-(m) "
        "WHERE p.category = 'Physics' AND l <> m RETURN l.name AS n")}
    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found is not None and set(found[0].split(", ")) == expected
    off = Discriminate(nobel_graph, levers=LEVERS - {"loops"}).answer(question, StepLog())
    assert off is None or set(off[0].split(", ")) != expected
