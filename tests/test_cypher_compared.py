"""graphs/cypher/compared.py on the real Nobel graph (no LLM): the ends whose two values of their
own compare read what the same rows, compared in Python, say; a question that compares what it
asks about with its own ("before their mentor did") brings them into Discriminate's readings."""

from __future__ import annotations

from dataclasses import replace

import pytest

from glm_dspy.modules.discriminate import LEVERS, Discriminate
from glm_dspy.modules.question_facts import compared
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.candidates import Hop, Start, inverse_relations, readings_of
from glm_dspy.graphs.cypher.compared import Compared, compared_of
from glm_dspy.graphs.store import GraphStore

PRIZE = (Hop("laureate", False, "prize"),)
MENTORS_PRIZE = (Hop("mentor", True, "laureate"), Hop("laureate", False, "prize"))


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


def _every_laureate(store):
    every = Start("laureate", (), "laureate")
    return next(c for c in readings_of(store.schema, every, [()]) if c.returns == "name")


def test_the_ends_whose_own_values_compare(store):
    won = store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) RETURN l.name AS n, p.year AS y")
    mentors = store.query("MATCH (l:laureate)-[:rel_mentor]->(m:laureate) RETURN l.name AS n, m.name AS m")
    years = {}
    for row in won:
        years.setdefault(row["n"], set()).add(row["y"])
    expected = {r["n"] for r in mentors if any(a < b for a in years.get(r["n"], ()) for b in years.get(r["m"], ()))}
    reading = replace(_every_laureate(store), loop=Compared(PRIZE, "year", "<", MENTORS_PRIZE, "year", (False, False)))
    assert gate(reading.cypher).text == reading.cypher  # a reading is a query the gate passes
    assert expected and {next(iter(r.values())) for r in store.read(reading.cypher).rows} == expected
    assert reading.words() == "laureate whose prize year is before its mentor's prize year: name"


def test_a_date_and_a_year_compare_by_year(store):
    # born in the year of one's mentor's prize, or before: a date against a year number
    born = Compared((), "birth_date", "<", MENTORS_PRIZE, "year", (True, False))
    rows = store.read(replace(_every_laureate(store), loop=born).cypher).rows
    assert rows  # substring(birth_date, 1, 4) < CAST(year AS STRING) is a comparison Kuzu runs


def test_the_pairs_of_a_type_are_the_graphs_own(store):
    inverses = inverse_relations(store, store.schema)
    timed = lambda t, f: "date" if f.endswith("date") else "year" if (t, f) == ("prize", "year") else None
    found = compared_of(store, store.schema, "laureate", "<", inverses, timed)
    assert Compared(PRIZE, "year", "<", MENTORS_PRIZE, "year", (False, False)) in found
    for pair in found[:5]:
        assert store.read(replace(_every_laureate(store), loop=pair).cypher).rows  # each holds for some node
    with pytest.raises(AssertionError):
        Compared(PRIZE, "year", "<", PRIZE, "birth_date")  # one path's values are not its own against another's


@pytest.mark.parametrize("question, op", [
    ("Which laureates won their prize before their mentor did?", "<"),
    ("Which laureates were born after their mentor had died?", ">"),
    ("Who was born in the same city as her mentor?", None),  # a loop on a node (graphs/cypher/loops.py)
    ("Which laureates won before 1950?", None),  # a bound, not a comparison with their own
    ("Which laureates were working in their birth city?", None),
])
def test_a_comparison_with_its_own_is_read_from_the_words(question, op):
    assert compared(question) == op


def test_a_question_that_compares_reads_its_ends_values(nobel_graph):
    question = "Which chemistry laureates were born after their mentor won a Nobel Prize?"
    on = Discriminate(nobel_graph).candidates(question)
    off = Discriminate(nobel_graph, levers=LEVERS - {"compared"}).candidates(question)
    assert any(isinstance(c.loop, Compared) and c.loop.op == ">" for c in on)
    assert not any(isinstance(c.loop, Compared) for c in off)
