"""A range of years ("between 1901 and 2022", "from 1950 to 1960") bounds a value from both sides
(glm_dspy/modules/question_values.py, graphs/cypher/anchors.py RANGE), and the years of a range
that no node holds are read out of the range itself (graphs/cypher/gaps.py): on the real Nobel
graph, checked against what the graph's own rows say (no LLM)."""

from __future__ import annotations

import pytest

from glm_dspy.modules.discriminate import Discriminate
from glm_dspy.modules.question_facts import DATE, asked
from glm_dspy.modules.question_values import question_values
from glm_dspy.modules.readings import LEVERS
from glm_dspy.runs.steps import StepLog
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.condition import RANGE, Condition
from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Start
from glm_dspy.graphs.cypher.gaps import Gap
from glm_dspy.graphs.cypher.printer import print_expression


@pytest.mark.parametrize("question, ranges", [
    ("How many prizes between 1901 and 2022?", ((1901, 2022),)),
    ("Who won from 1950 to 1960?", ((1950, 1960),)),
    ("Who won from the year 1950 until 1960?", ((1950, 1960),)),
    ("The prizes of 1901–1910", ((1901, 1910),)),
    ("Was it 1901 or 1902?", ()),
    ("Between 2022 and 1901?", ()),  # backwards: no range
])
def test_a_range_is_two_years_said_as_its_ends(question, ranges):
    said = question_values(question)
    assert said.ranges == ranges
    assert not {year for pair in ranges for year in pair} & set(said.numbers)  # a range's ends are no values


def test_a_range_beside_a_bound_keeps_both():
    said = question_values("from 1950 until 1960 and since 1970")
    assert said.ranges == ((1950, 1960),) and said.bounds == ((">=", 1970),)


def test_which_years_asks_for_a_date_like_which_year():
    assert asked("In which years was no prize awarded?") == DATE == asked("In which year was it awarded?")


def test_a_range_is_both_ends_in_of_a_year_and_up_to_the_next_year_of_a_date():
    assert print_expression(Condition("year", RANGE, (1901, 1910)).expression("a")) == "a.year >= 1901 AND a.year <= 1910"
    dates = Condition("birth_date", RANGE, ("1950", "1956"))
    assert print_expression(dates.expression("a")) == "a.birth_date >= '1950' AND a.birth_date < '1956'"
    assert dates.words() == "birth date is from 1950 to 1955"


CHEMISTRY = Start.anchored("prize", (Condition("category", "=", "Chemistry"), Condition("year", RANGE, (1901, 1950))))


def _gaps(store, category: str, low: int, high: int) -> list[int]:
    held = {row["y"] for row in store.query(f"MATCH (p:prize) WHERE p.category = '{category}' RETURN p.year AS y")}
    return [year for year in range(low, high + 1) if year not in held]


def test_the_years_of_a_range_no_node_holds_are_read_from_the_range(nobel_graph):
    expected = _gaps(nobel_graph.store, "Chemistry", 1901, 1950)
    assert expected  # the graph has such years (the wars)
    reading = Candidate(CHEMISTRY, (), "year", gap=Gap(CHEMISTRY.conditions[1]))
    assert gate(reading.cypher).text == reading.cypher
    assert [row["year"] for row in nobel_graph.store.read(reading.cypher).rows] == expected
    counted = Candidate(CHEMISTRY, (), COUNT, gap=Gap(CHEMISTRY.conditions[1]))
    assert nobel_graph.store.read(counted.cypher).rows[0]["count"] == len(expected)
    assert reading.words().endswith("every year from 1901 to 1950 it does not hold")
    with pytest.raises(AssertionError):
        Gap(Condition("category", "=", "Chemistry"))


@pytest.mark.parametrize("category, low, high", [("Physics", 1901, 1950), ("Chemistry", 1910, 1945)])
def test_a_question_of_the_years_nothing_was_awarded_is_answered_by_the_gap(nobel_graph, category, low, high):
    expected = _gaps(nobel_graph.store, category, low, high)
    which = f"In which years between {low} and {high} was no {category.lower()} prize awarded?"
    answer = Discriminate(nobel_graph).answer(which, StepLog())
    assert answer[0] == ", ".join(map(str, expected))
    how_many = f"On how many occasions between {low} and {high} was the {category.lower()} prize not awarded?"
    assert Discriminate(nobel_graph).answer(how_many, StepLog())[0] == str(len(expected))
    off = Discriminate(nobel_graph, levers=LEVERS - {"gaps"}).answer(which, StepLog())
    assert off is None or off[0] != answer[0]
