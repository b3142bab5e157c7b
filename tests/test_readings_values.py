"""The values a question states (glm_dspy/readings/values.py), read off the words of the one
reading of the question, in the registers users type. Pure: no graph."""

from __future__ import annotations

import pytest

from glm_dspy.readings.question import read
from glm_dspy.readings.values import values


def said(question):
    return values(read(question))


@pytest.mark.parametrize("question, dates", [
    ("Who was born on 25 June 1864?", ("1864-06-25",)), ("who was born on june 25, 1864", ("1864-06-25",)),
    ("Who was born on the 25th of June, 1864?", ("1864-06-25",)), ("Who was born 1864-06-25?", ("1864-06-25",)),
    ("Who was born on Jun. 25 1864?", ("1864-06-25",)),
    ("Which book covers Volume 1 (Jul 1897 - Apr 1898)?", ()),  # a sign between: no date
])
def test_a_date_is_read_in_the_forms_people_write_it(question, dates):
    assert said(question).dates == dates


def test_a_value_word_is_the_words_joined_with_no_space_between():
    found = said("Did Irène Joliot-Curie meet O'Brien in the U.S. or at Jamal_Mirsadeghi's?")
    assert {"joliot-curie", "o'brien", "u.s", "jamal_mirsadeghi"} <= set(found.words)
    assert "Irène Joliot-Curie" in found.phrases  # as written, for a whole stored value
    assert "s" not in found.words  # a possessive's "'s" is left off


@pytest.mark.parametrize("question, numbers, bounds, ranges, decades", [
    ("Which laureates won since 2020?", (), ((">=", 2020),), (), ()),
    ("which prizes were awarded between 1901 and 2022", (), (), ((1901, 2022),), ()),
    ("Who won from the year 1901 to 1910?", (), (), ((1901, 1910),), ()),
    ("Which prizes of 1901-1910 went to chemists?", (), (), ((1901, 1910),), ()),
    ("Who won in the 1990s?", (), (), (), (1990,)), ("Who won in the 1920's?", (), (), (), (1920,)),
    ("Who won in the mid-1990s?", (), (), (), ()),  # clung to: no decade alone
    ("Which cities have 3 museums and a 2.5 km beach?", (3,), (), (), ()),  # 2.5 is no whole number
    ("What does COVID-19 do to a 40 year old?", (40,), (), (), ()),
])
def test_numbers_years_ranges_and_decades(question, numbers, bounds, ranges, decades):
    found = said(question)
    assert (found.numbers, found.bounds, found.ranges, found.decades) == (numbers, bounds, ranges, decades)


def test_an_amount_is_read_in_lower_case_too():
    assert said("which prizes were worth more than 250,000 kronor").amounts == ((">", 250_000),)
    assert said("When did the money reach a million?").amounts == ((">=", 1_000_000),)
