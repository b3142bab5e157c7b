"""What a question asks to do with the values it reads (glm_dspy/readings/operators.py), read
once off its words by `read()`: an order's end, the most shared, arithmetic, a bound on a count,
a complement, a comparison with its own, a time shared, things listed together. Pure: no graph.
Each holds in the registers users type (lower case, no mark), since the words are read, not the
string."""

from __future__ import annotations

import pytest

from glm_dspy.readings.operators import coordinated
from glm_dspy.readings.question import read


def ops(question):
    return read(question).operators


def registers(question):
    """The question as written, in lower case, and without its closing mark."""
    return question, question.lower(), question.rstrip("?").rstrip()


@pytest.mark.parametrize("question,last", [
    ("Who was the earliest winner of X?", False), ("Which was the most recent prize?", True),
    ("Who is the youngest laureate?", True), ("Who was the last to die?", True), ("Who won in 1903?", None),
    ("First and last of them?", None), ("What is the most common first name?", None),  # a first name orders nothing
    ("Which is the oldest university?", False), ("Who won most recently?", True),
])
def test_a_first_or_a_last_is_read_from_the_words(question, last):
    for text in registers(question):
        assert ops(text).extreme is last, text


@pytest.mark.parametrize("question,bound", [
    ("Which institutions had laureates in more than one field?", (">", 1)),
    ("Who was affiliated with institutions in two different countries?", (">=", 2)),
    ("Which laureates won at least 3 prizes?", (">=", 3)), ("Who won twice?", (">=", 2)),
    ("Who won more than once?", (">=", 2)), ("Which prizes had exactly two laureates?", ("=", 2)),
    ("Which prizes had no more than two laureates?", ("<=", 2)), ("Which prizes had fewer than 3 winners?", ("<", 3)),
    ("Which countries have 3 or more languages?", (">=", 3)),
    ("Who won in 1903?", None), ("How many laureates were born in Oxford?", None),
    ("Which of her co-laureates also had a mentor?", (">=", 1)),  # ends on something had: at least one
    ("Which laureate had a mentor born in Ulm?", None),  # the mentor is said more of: a path, no count
    ("How many authors of 2019 had a Turing laureate as a supervisor?", (">=", 1)),  # had, in a role
    ("Which laureate had a mentor as a rival?", (">=", 1)),
    ("Which prizes did one laureate win alone?", ("=", 1)), ("Who won it on her own?", ("=", 1)),
    ("Who won it single-handedly?", ("=", 1)), ("Who had a mentor as old as Bohr?", None),
    # an amount is no count's bound (glm_dspy/readings/amounts.py)
    ("Which prizes were worth more than 250,000 kronor?", None),
    ("Which prizes were worth more than two million kronor?", None),
    ("Across Russia's cities of 100,000 or more, how many time zones appear?", None),
])
def test_a_bound_on_a_count_is_read_from_the_words(question, bound):
    assert ops(question).count_bound == bound and ops(question.lower()).count_bound == bound


@pytest.mark.parametrize("question,asks", [
    ("On which continents was no economics laureate born?", True), ("Which laureates never won alone?", True),
    ("Which laureates had no mentor?", True), ("Which laureates didn't have a mentor?", True),
    ("Which laureates didn’t have a mentor?", True),  # a typographer's apostrophe
    ("Which laureates had a mentor?", False), ("Did Louis Pasteur not win?", False),  # yes/no: no complement
    ("Didn't Louis Pasteur win?", False),
])
def test_a_negation_is_read_from_the_words(question, asks):
    for text in registers(question):
        assert ops(text).negated is asks, text


@pytest.mark.parametrize("first,second,listed", [
    ("physics", "chemistry", True), ("chemistry", "medicine", True), ("medicine", "economics", True),
    ("physics", "economics", False), ("Belgium", "France", False),
])
def test_things_in_one_list_are_read_from_the_words(first, second, listed):
    question = "Which laureates in physics, chemistry, medicine and economics, born in Belgium, worked in France?"
    for text in registers(question):
        assert coordinated(read(text).words, first, second) is listed


def test_a_list_is_of_words_said_apart_not_a_compounds_parts_nor_a_word_inside_another():
    assert coordinated(read("Which prizes went to physics & chemistry?").words, "physics", "chemistry")
    assert coordinated(read("Who won physics as well as the chemistry prize?").words, "physics", "chemistry")
    assert not coordinated(read("Who is Adam-Claus Eckert?").words, "Adam", "Claus")
    assert not coordinated(read("Who wrote Metaphysics and chemistry?").words, "physics", "chemistry")
    assert not coordinated(read("Who won physics?").words, "physics", "chemistry")  # one not said


@pytest.mark.parametrize("question,asks", [
    ("In which month were the most X born?", True), ("What is the most common name?", True),
    ("Which country had the fewest prizes?", False), ("Who won most recently?", None), ("Who won?", None),
    ("Which year saw the largest number of prizes?", True),
    ("Which laureates won at least 2 prizes?", None), ("Which prizes had at most 3 winners?", None),  # bounds
])
def test_the_most_or_the_fewest_is_read_from_the_words(question, asks):
    for text in registers(question):
        assert ops(text).most is asks, text


@pytest.mark.parametrize("question, asks", [
    ("What is the average publication year of the papers by Ann Lee, rounded to the nearest year?", "avg"),
    ("What is the mean age of the physics laureates?", "avg"),
    ("What was the total prize money of the 1903 prizes?", "sum"),
    ("How many prizes were awarded in total?", None),  # a count
    ("What is the total number of chemistry prizes?", None),
    ("What does 'laureate' mean?", None),  # the verb
])
def test_an_average_or_a_sum_is_read_from_the_words(question, asks):
    for text in registers(question):
        assert ops(text).arithmetic == asks, text


def test_the_words_that_say_an_operator_are_known_so_no_value_is_read_from_them():
    assert ops("Who was the first chemistry laureate?").words == {"first"}
    assert ops("Who has the same first name?").words == frozenset()
    assert ops("Who won most recently?").words == {"most", "recently"}


@pytest.mark.parametrize("question,refers", [
    ("Which laureates were working in their birth city?", True), ("Who mentored his own son?", True),
    ("Which laureates were born in Oxford?", False),
])
def test_a_reference_back_is_read_from_the_words(question, refers):
    assert ops(question).refers_back is refers


@pytest.mark.parametrize("question,same", [
    ("Which authors publish with the same house as their editor?", True),
    ("Who studied at the same school as his brother?", True),
    ("Which films were released in the same year as Alien?", False),  # names its other end: no loop
    ("Which laureates were working in their birth city?", False),  # a loop, but not one it demands
])
def test_sharing_with_its_own_is_read_from_the_words(question, same):
    assert ops(question).equates is same


@pytest.mark.parametrize("question, op", [
    ("Which laureates won their prize before their mentor did?", "<"),
    ("Which laureates were born after their mentor had died?", ">"),
    ("Which physicists got the award earlier than their students?", "<"),
    ("Who was born in the same city as her mentor?", None),  # a loop on a node (graphs/cypher/loops.py)
    ("Which laureates won before 1950?", None),  # a bound, not a comparison with their own
    ("Which laureates were working in their birth city?", None),
    ("How many buy-after-viewing items does their shop have?", None),  # a compound's part is no comparison
])
def test_a_comparison_with_its_own_is_read_from_the_words(question, op):
    assert ops(question).compared == op and ops(question.lower()).compared == op


@pytest.mark.parametrize("question, leaves_out", [
    ("Which laureates won their prize before their own mentor did?", True),
    ("Which physicists got the award earlier than their students were?", True),
    ("Which laureates won their prize before their own mentor did", True),  # no mark
    ("Which laureates were born after their mentor died?", False),  # each side says its verb
    ("Which laureates won before 1950?", False),
    ("Which laureates won before 1950, and where was it?", False),  # a clause between
    ("How many buy-after-viewing items does item 8.5 oz have?", False),
])
def test_a_comparison_that_leaves_out_its_verb_is_read_from_the_words(question, leaves_out):
    assert ops(question).elided is leaves_out


@pytest.mark.parametrize("question, meets, same", [
    ("Who won the physics prize in the year Marie Curie won hers?", True, ()),
    ("Who was born on the same day as Bohr?", True, ("day",)),
    ("Who studied under the same mentor as Bohr?", False, ("mentor",)),
    ("Who won in 1903?", False, ()),
    ("Which sports are same-sex?", False, ()),  # a compound's part
])
def test_a_shared_time_and_what_is_said_the_same_are_read_from_the_words(question, meets, same):
    found = ops(question)
    assert (found.meets_in_time, found.same_words) == (meets, same)
    assert found.says_same is ("same" in question.split())  # "same-sex" says no "same"


def test_operators_are_read_once_a_text():
    assert read("Who won twice?") is read("Who won twice?")
