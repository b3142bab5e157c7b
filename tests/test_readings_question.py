"""One reading of the question (glm_dspy/readings/): what it asks, in the registers users write,
and the values computed for it. Pure: no graph."""

import datetime as dt

import pytest

from glm_dspy.readings import answer_type as at
from glm_dspy.readings import question as q
from glm_dspy.readings.compute import parse_time, years_between
from glm_dspy.readings.confidence import FEATURES, Confidence, features, fit
from glm_dspy.readings.question import read


@pytest.mark.parametrize("text, asked, noun", [
    ("What year was Keffer Hartline born in?", q.YEAR, None),
    ("what year did joshua lederberg pass away", q.YEAR, None),  # lower case, no mark
    ("marie curie birth year", q.YEAR, None),  # terse
    ("hey, do you know when marie curie died", q.TIME, None),  # conversational
    ("Could you tell me who mentored Bohr?", q.PERSON, None),
    ("Under whom did Frederick G. Banting study?", q.PERSON, None),
    ("Where was the woman who won the 2015 medicine prize born?", q.PLACE, None),
    ("In the year Michael W. Young won the medicine prize, who won the Nobel in economics?", q.PERSON, None),
    ("How old was Andrea Ghez when she received her Nobel Prize?", q.AGE, None),
    ("At what age did Bohr win?", q.AGE, None),
    ("How long did Einstein live?", q.SPAN, None),
    ("How many years after Marie Curie did Irene win?", q.SPAN, None),
    ("How many countries border Peru?", q.COUNT, "country"),
    ("What is the capital of Peru?", q.THING, "capital"),
    ("What is Peru's capital?", q.THING, "capital"),
    ("Which laureate's full name is Charles Thomson Rees Wilson?", q.THING, "laureate"),  # the owner is asked
    ("what is the Jamal_Mirsadeghi 's nationality 's artist ?", q.THING, "artist"),  # a chain of possessives
    ("Lesotho has one neighbour. What is that country's capital?", q.THING, "capital"),
    ("The most populous country in Northern Africa: what's its capital?", q.THING, "capital"),
    ("Name a student of Jan Tinbergen who also won a Nobel Prize.", q.THING, "student"),
    ("Name the three biggest cities in Canada.", q.THING, "city"),
    ("On which continent was Ernest Rutherford based when he won?", q.THING, "continent"),
    ("Which US state is Boise in?", q.THING, "state"),
    ("I need to phone a friend in Mandalay. Which country code do I dial?", q.THING, "code"),  # a compound's head
    ("Which films star Keanu Reeves?", q.THING, "film"),
    ("What was Marie Curie's birth date?", q.DATE, None),
    ("What decade was Bohr born in?", q.DECADE, None),
    ("I'd like to know the capital of France", q.THING, "capital"),
    ("Did Bohr mentor Heisenberg?", q.YES_NO, None),
    ("Is Marie Curie a man or a woman?", q.CHOICE, None),
])
def test_what_a_question_asks(text, asked, noun):
    found = read(text)
    assert (found.asked, found.noun) == (asked, noun)


@pytest.mark.parametrize("text, compare, offered", [
    ("Who was older, Marie Curie or Niels Bohr?", q.EARLIER, ("Marie Curie", "Niels Bohr")),
    ("Which country is larger, Peru or Chile?", q.LARGER, ("Peru", "Chile")),
    ("who is younger: keanu reeves or carrie-anne moss", q.LATER, ("keanu reeves", "carrie-anne moss")),
    ("Which came first, The Matrix or Speed?", q.EARLIER, ("The Matrix", "Speed")),
    ("Which city has fewer people, Lima or Cusco?", q.SMALLER, ("Lima", "Cusco")),
])
def test_which_of_two_things_offered(text, compare, offered):
    found = read(text)
    assert (found.compare, found.offered) == (compare, offered)


def test_a_question_without_a_comparison_offers_nothing_to_compare():
    assert read("Who won the physics prize in 1903 or 1904?").compare is None
    assert read("What is the capital of Peru?").offered is None
    assert read("In which year did the most women win prizes in physics, chemistry or medicine?").compare is None


def test_full_years_between_two_times():
    born = parse_time("1965-06-16")
    assert years_between(born, parse_time("2020-12-10")) == 55
    assert years_between(born, parse_time("2020-06-15")) == 54  # the day before the birthday
    assert years_between(born, parse_time("2020")) == 55  # a year alone: the difference of the years
    assert parse_time("not a date") is None and parse_time("2021-02-30") is None
    assert parse_time("1879-03-14") == (dt.date(1879, 3, 14), True)


def test_a_dates_year_month_and_decade_are_computed_where_asked():
    date = at.Result(at.DATE, "laureate", "birth_date", None)
    assert at.project(read("What year was X born?"), date, ["1903-12-22"]) == ["1903"]
    assert at.project(read("In which month was X born?"), date, ["1903-12-22"]) == ["December"]
    assert at.project(read("What decade was X born in?"), date, ["1903-12-22"]) == ["1900s"]
    assert at.project(read("When was X born?"), date, ["1903-12-22"]) == ["1903-12-22"]  # a time: as stored


class Schema:  # the two graphs' shapes that matter here: node types with features, relations
    def __init__(self, node_types, relations):
        self.node_types, self.relations = node_types, relations


class NodeType:
    def __init__(self, *features):
        self.features = dict.fromkeys(features, "STRING")


WORLD = Schema({"Country": NodeType("name", "population"), "City": NodeType("name", "population"),
                "Currency": NodeType("name", "code")},
               {"HAS_CAPITAL": [("Country", "City")], "USES_CURRENCY": [("Country", "Currency")],
                "IN_COUNTRY": [("City", "Country")]})
NOBEL = Schema({"laureate": NodeType("name", "birth_date"), "prize": NodeType("name", "year"),
                "country": NodeType("name", "continent")},
               {"mentor": [("laureate", "laureate")], "prize": [("laureate", "prize")]})


def test_a_reading_of_another_kind_than_asked_is_no_answer():
    persons, nouns = frozenset({"laureate"}), at.SchemaNouns.of(NOBEL, {"mentor": "student"})
    names = lambda t: at.Result(at.NAMES, t, "name", None)  # noqa: E731
    year = at.Result(at.YEAR, "prize", "year", "prize")
    date = at.Result(at.DATE, "laureate", "birth_date", None)
    fits = lambda text, result: at.fits(read(text), result, persons=persons, nouns=nouns)  # noqa: E731
    assert fits("Who mentored X?", names("laureate")) and not fits("Who mentored X?", names("prize"))
    assert not fits("In the year X won, who won the economics prize?", year)
    assert not fits("Where was X born?", names("laureate")) and not fits("Where was X born?", date)
    assert fits("What year was X born in?", date) and fits("What year did X win?", year)
    assert not fits("What year was X born in?", names("prize"))
    assert not fits("How old was X when she won?", year)  # an age is computed, never read
    assert fits("Name a student of X.", at.Result(at.NAMES, "laureate", "name", "mentor"))
    assert not fits("Name a student of X.", at.Result(at.NAMES, "prize", "name", "prize"))
    assert fits("In which month were the most laureates born?", at.Result(at.MONTH_OF, "laureate", "birth_date", None))
    assert not fits("In which month were the most laureates born?", names("laureate"))
    assert fits("Which decade saw the most prizes?", at.Result(at.DECADE_OF, "prize", "year", None))
    assert fits("On which continent is X?", at.Result(at.TEXT, "country", "continent", None))
    assert not fits("On which continent is X?", names("prize"))


def test_a_noun_the_schema_has_names_the_type_feature_or_relation_it_asks_for():
    nouns = at.SchemaNouns.of(WORLD)
    fits = lambda text, result: at.fits(read(text), result, persons=frozenset(), nouns=nouns)  # noqa: E731
    capital = at.Result(at.NAMES, "City", "name", "HAS_CAPITAL")
    assert fits("What is the capital of Peru?", capital)
    assert not fits("What is the capital of Peru?", at.Result(at.NUMBER, "City", "population", "HAS_CAPITAL"))
    assert fits("What currency does Peru use?", at.Result(at.NAMES, "Currency", "name", "USES_CURRENCY"))
    assert not fits("What currency does Peru use?", at.Result(at.NAMES, "City", "name", "HAS_CAPITAL"))
    assert at.unknown_noun(read("Which top-level domain does Peru use?"), nouns)
    assert not at.unknown_noun(read("What is the capital of Peru?"), nouns)


def test_the_confidence_is_fitted_calibrated_and_saved(tmp_path):
    def answer(score, rival, right):
        return features(score=score, next_score=score - rival, best_score=score, tried=0, hops=1, values=1,
                        asks_one=True, kind_said=True, noun_unknown=False), right

    rows = [answer(0.9, 0.3, True)] * 40 + [answer(0.5, 0.01, False)] * 30 + [answer(0.7, 0.1, True)] * 5 \
        + [answer(0.7, 0.1, False)] * 5
    model, report = fit(rows, target=0.9)
    assert model.sure(answer(0.9, 0.3, True)[0]) and not model.sure(answer(0.5, 0.01, False)[0])
    assert report["precision"] >= 0.9 and 0.4 < report["answered"] < 1.0
    model.save(tmp_path / "c.json", fitted_on="a test")
    again = Confidence.load(tmp_path / "c.json")
    assert (again.weights, again.bias, again.threshold) == (model.weights, model.bias, model.threshold)
    assert set(again.weights) == set(FEATURES) and again.fitted_on == "a test"
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="bad.json: not a reading-confidence file"):
        Confidence.load(tmp_path / "bad.json")
    assert Confidence.load(tmp_path / "absent.json") is None
    with pytest.raises(ValueError, match="right and wrong"):
        fit(rows[:40])
