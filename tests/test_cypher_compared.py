"""graphs/cypher/compared.py on the real Nobel graph (no LLM): the ends whose two values of their
own compare read what the same rows, compared in Python, say; a question that compares what it
asks about with its own ("before their mentor did") brings them into Discriminate's readings."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

import pytest

from glm_dspy.modules.discriminate import LEVERS, Discriminate
from glm_dspy.readings.words import word_stem
from glm_dspy.readings.question import read
from glm_dspy.modules.reading_fit import compared_unsaid
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.candidate import Hop, Start
from glm_dspy.graphs.cypher.candidates import readings_of
from glm_dspy.graphs.cypher.walk import inverse_relations
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


def test_a_question_that_compares_reads_its_ends_values(nobel_graph):
    question = "Which chemistry laureates were born after their mentor won a Nobel Prize?"
    on = Discriminate(nobel_graph).candidates(question)
    off = Discriminate(nobel_graph, levers=LEVERS - {"compared"}).candidates(question)
    assert any(isinstance(c.loop, Compared) and c.loop.op == ">" for c in on)
    assert not any(isinstance(c.loop, Compared) for c in off)


def _said(question):
    return Counter(word_stem(w) for w in re.findall(r"[a-z]+", question.lower()))


def test_each_compared_time_must_be_said_and_a_left_out_verb_compares_one_value(store):
    every = _every_laureate(store)
    prize_years = replace(every, loop=Compared(PRIZE, "year", "<", MENTORS_PRIZE, "year", (False, False)))
    births = replace(every, loop=Compared((), "birth_date", "<", (MENTORS_PRIZE[0],), "birth_date"))
    birth_prize = replace(every, loop=Compared((), "birth_date", "<", MENTORS_PRIZE, "year", (True, False)))
    won = "Which laureates won their prize before their mentor did?"
    # "their prize" holds both years; nothing says a birth date, and the verb left out is one value
    assert compared_unsaid(prize_years, _said(won), set(), read(won).operators.elided) == 0
    assert compared_unsaid(births, _said(won), set(), read(won).operators.elided) == 1
    assert compared_unsaid(birth_prize, _said(won), set(), read(won).operators.elided) == 2
    born = "Which laureates were born before their mentor won a prize?"
    # "born" says a birth date only in meaning (`near`); each side says its own verb
    assert compared_unsaid(birth_prize, _said(born), {"birth date"}, read(born).operators.elided) == 0
    assert compared_unsaid(birth_prize, _said(born), set(), read(born).operators.elided) == 1
    assert compared_unsaid(every, _said(born), set(), read(born).operators.elided) == 0  # no comparison, nothing to say


def test_a_word_and_its_plural_or_past_meet_the_same_name():
    assert word_stem("laureates") == word_stem("laureate") and word_stem("prizes") == word_stem("prize")
    assert word_stem("shared") == word_stem("share") and word_stem("cities") == word_stem("city")
    assert word_stem("mentored") == word_stem("mentors") == "mentor" and word_stem("employees") == word_stem("employee")


def test_one_value_held_twice_is_the_ends_and_anothers(store):
    mentors = store.query("MATCH (l:laureate)-[:rel_mentor]->(m:laureate) RETURN l.name AS n, l.gender AS a, m.gender AS b")
    expected = {r["n"] for r in mentors if r["a"] is not None and r["a"] == r["b"]}
    same = Compared((), "gender", "=", (MENTORS_PRIZE[0],), "gender", (False, False), text=True)
    reading = replace(_every_laureate(store), loop=same)
    assert gate(reading.cypher).text == reading.cypher
    assert expected and {next(iter(r.values())) for r in store.read(reading.cypher).rows} == expected
    assert reading.words() == "laureate whose gender is the same as its mentor gender: name"
    # a co-laureate of the same given name: another laureate of the prize, never the laureate itself
    co_laureate = (Hop("laureate", False, "prize"), Hop("laureate", True, "laureate"))
    named = Compared((), "given_name", "=", co_laureate, "given_name", (False, False), text=True)
    rows = store.read(replace(_every_laureate(store), loop=named).cypher).rows
    every = store.query("MATCH (:prize)-[:rel_laureate]->(l:laureate) RETURN count(DISTINCT l) AS n")[0]["n"]
    assert 0 < len(rows) < every / 10


def test_same_brings_readings_of_one_value_held_twice(nobel_graph):
    question = "Which laureates have the same gender as their mentor?"
    on = Discriminate(nobel_graph).readings(question)
    assert isinstance(on[0].loop, Compared) and on[0].loop.op == "=" and on[0].loop.first_feature == "gender"
    off = Discriminate(nobel_graph, levers=LEVERS - {"compared"}).candidates(question)
    assert not any(isinstance(c.loop, Compared) for c in off)
