"""A value a question says its things lack or hold ("still alive": no death date; "deceased"):
read from the question's words (glm_dspy/readings/absence.py), bound to a feature some
nodes of a type lack (question_starts.absent_values), and answered by a start of the nodes that
lack it; on the real Nobel graph, checked against the rows the graph itself holds (no LLM)."""

from __future__ import annotations

import pytest

from glm_dspy.modules.discriminate import Discriminate
from glm_dspy.modules.embedding_cache import EmbeddingCache
from glm_dspy.readings import absence as _absence
from glm_dspy.readings import existential as _existential
from glm_dspy.readings.existential import PERSON, THING
from glm_dspy.modules.question_facts import asked
from glm_dspy.readings.question import read
from glm_dspy.modules.question_starts import absent_values
from glm_dspy.modules.readings import LEVERS
from glm_dspy.runs.steps import StepLog
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.condition import ABSENT, PRESENT, Condition
from glm_dspy.graphs.cypher.value_index import ValueIndex
from glm_dspy.graphs.cypher.candidate import Start
from glm_dspy.graphs.cypher.printer import print_expression


def absences(question, negations=True):
    return _absence.absences(read(question), negations)


def existential(question):
    return _existential.existential(read(question))


@pytest.mark.parametrize("question, said, event, happened", [
    ("Is Roald Hoffmann still alive?", "still alive", "death", False),
    ("Which living laureates were born in Oslo?", "living", "death", False),
    ("Which 1990 laureates are deceased?", "deceased", "death", True),
    ("Which laureates have no death date?", "have no death date", "death", False),
    ("Which authors never married?", "never married", "married", False),
    ("Which papers were not yet published?", "not yet published", "published", False),
    ("Which planets haven't been visited?", "n't been visited", "visited", False),
])
def test_a_state_or_a_negation_names_the_event_and_whether_it_happened(question, said, event, happened):
    found = absences(question)
    assert [(a.said, a.event[0], a.happened) for a in found] == [(said, event, happened)]


@pytest.mark.parametrize("question", [
    "Which laureates living in Paris won a prize?",  # where one lives, no state
    "Who won the prize in 1911?",
])
def test_no_state_and_no_negation_says_no_absence(question):
    assert absences(question) == []


def test_a_yes_no_question_reads_its_state_but_not_its_negation():
    assert [a.said for a in absences("Did Marie Curie not win a prize?", negations=False)] == []
    assert [a.said for a in absences("Is she still alive?", negations=False)] == ["still alive"]


def test_an_absence_is_a_null_test_the_gate_passes():
    lacking, holding = Condition("death_date", ABSENT, None), Condition("death_date", PRESENT, None)
    start = Start.anchored("laureate", (lacking,))
    assert start.said == "laureate whose death date is missing" and lacking.values == ()
    assert "death date is stated" == holding.words()
    assert print_expression(start.where("a")) == "a.death_date IS NULL"
    query = f"MATCH (a:laureate) WHERE {print_expression(start.where('a'))} RETURN a.name"
    assert gate(query).text  # parses and passes the read-only gate
    with pytest.raises(AssertionError):
        Condition("death_date", ABSENT, "1950")


@pytest.fixture(scope="module")
def index(nobel_graph):
    return ValueIndex.build(nobel_graph.store, nobel_graph.schema)


def test_the_partial_features_are_those_some_nodes_lack(nobel_graph, index):
    for type_name, feature in [("laureate", "death_date"), ("laureate", "name"), ("prize", "year")]:
        rows = nobel_graph.store.query(f"MATCH (n:{type_name}) RETURN count(n) AS n, count(n.{feature}) AS f")[0]
        assert ((type_name, feature) in index.partial) == (0 < rows["f"] < rows["n"])
    assert ("laureate", "death_date") in index.partial


def _embed(graph):
    return EmbeddingCache(lambda: graph.retriever.node_index.embedder)


@pytest.mark.parametrize("question, op", [
    ("Which of the 2016 physics laureates are still alive?", ABSENT),
    ("Which laureates have no death date?", ABSENT),
    ("Which 1990 laureates are deceased?", PRESENT),
])
def test_the_event_binds_the_feature_that_records_it(nobel_graph, index, question, op):
    found = absent_values(index, nobel_graph.schema, question, _embed(nobel_graph))
    assert [(a.type_name, a.condition) for a in found] == [("laureate", Condition("death_date", op, None))]


def test_an_event_no_partial_feature_records_binds_nothing(nobel_graph, index):
    assert absent_values(index, nobel_graph.schema, "Which laureates never married?", _embed(nobel_graph)) == []
    assert absent_values(index, nobel_graph.schema, "Who won the prize in 1911?", _embed(nobel_graph)) == []


def _names(graph, where: str) -> list[str]:
    return [row["n"] for row in graph.store.query(f"MATCH (l:laureate) WHERE {where} RETURN l.name AS n ORDER BY n LIMIT 2")]


def test_is_x_still_alive_is_whether_x_lacks_a_death_date(nobel_graph):
    readings = Discriminate(nobel_graph)
    for name in _names(nobel_graph, "l.death_date IS NULL AND l.name STARTS WITH 'R'"):
        assert readings.answer(f"Is {name} still alive?", StepLog())[0] == "yes", name
    for name in _names(nobel_graph, "l.death_date IS NOT NULL AND l.name STARTS WITH 'R'"):
        assert readings.answer(f"Is {name} still alive?", StepLog())[0] == "no", name


def test_which_of_a_prizes_laureates_are_alive_reads_those_with_no_death_date(nobel_graph):
    rows = nobel_graph.store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.year = 2016 AND "
                                   "p.category = 'Physics' RETURN l.name AS n, l.death_date IS NULL AS alive")
    alive = {row["n"] for row in rows if row["alive"]}
    assert alive and len(alive) < len(rows)  # the graph has both: the absence decides
    question = "Which of the 2016 physics laureates are still alive?"
    answer = Discriminate(nobel_graph).answer(question, StepLog())
    assert set(answer[0].split(", ")) == alive and "IS NULL" in answer[1]
    off = Discriminate(nobel_graph, levers=LEVERS - {"absence"}).answer(question, StepLog())
    assert off is None or set(off[0].split(", ")) != alive


@pytest.mark.parametrize("question, wanted", [
    ("Did X share the prize with anyone?", PERSON), ("Was X ever mentored by somebody?", PERSON),
    ("Does X have any students?", THING), ("Did X write anything?", THING), ("Did X win in 1903?", None),
])
def test_an_existential_word_asks_for_a_person_or_any_thing(question, wanted):
    assert existential(question) == wanted


def test_whether_x_has_anyone_is_whether_x_has_the_path_nodes_of_its_type_have(nobel_graph):
    """The named laureate's own paths are only those it has; the path is read off its type's."""
    rows = nobel_graph.store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) WITH p, count(l) AS n, "
                                   "collect(l.name) AS names RETURN n, names[1] AS name ORDER BY p.year, p.category")
    plain = [row for row in rows if row["name"].replace(" ", "").isalpha()]  # a name retrieval binds whole
    alone = next(row["name"] for row in plain if row["n"] == 1)
    shared = next(row["name"] for row in plain if row["n"] > 1)
    readings = Discriminate(nobel_graph)
    for name, answer in [(alone, "no"), (shared, "yes")]:
        log = StepLog()
        question = f"Did {name} have to share the Nobel Prize with anyone?"
        assert readings.answer(question, log)[0] == answer, name
        assert "<-[:rel_laureate]-(:prize)-[:rel_laureate]->" in log.steps[-1].code
    assert Discriminate(nobel_graph, levers=LEVERS - {"exists"}).answer(f"Did {alone} share a prize with anyone?",
                                                                        StepLog()) is None


@pytest.mark.parametrize("question, clause", [
    ("When X won his prize, was his mentor still alive?", "was his mentor still alive?"),
    ("After the war, how many prizes were awarded?", "how many prizes were awarded?"),
    ("When was X born, and where?", None),  # a question of its own: no clause leads it
    ("When did X win?", None),
])
def test_a_leading_clause_leaves_the_main_clause_to_say_what_is_asked(question, clause):
    found = read(question)
    main = [w.text for w in found.words[found.main[0]:found.main[1]]]
    if clause is None:  # the main question opens the question
        assert found.main[0] == 0
    else:
        assert main == [w.text for w in read(clause).words if w.text != "?"]
    assert asked(question) == asked(clause or question)


def test_a_yes_no_question_is_the_join_it_means_even_where_that_reads_nothing(nobel_graph):
    """"Was X born in D?" where D is not X's birth city but X's mentor's: the join of X's birth
    city and D reads nothing, so no; checked joins kept only the mentor's, which said yes."""
    rows = nobel_graph.store.query(
        "MATCH (c:city)<-[:rel_birth_city]-(l:laureate)-[:rel_mentor]->(m:laureate)-[:rel_birth_city]->(d:city) "
        "WHERE c <> d RETURN l.name AS n, d.name AS d ORDER BY n LIMIT 40")
    row = next(r for r in rows if r["n"].replace(" ", "").replace(".", "").isalpha() and r["d"].isalpha())
    question = f"Was {row['n']} born in {row['d']}?"
    assert Discriminate(nobel_graph).answer(question, StepLog())[0] == "no"
    checked = Discriminate(nobel_graph, levers=LEVERS - {"unprobed"}).answer(question, StepLog())
    assert checked is not None and checked[1] != Discriminate(nobel_graph).answer(question, StepLog())[1]
