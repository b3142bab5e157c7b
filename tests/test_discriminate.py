"""Discriminate's control flow with a scripted model over the real Nobel graph: the graph
proposes readings, the model's number picks one, 0 or no reading gives way to the fallback.
(Whether the 0.5B model picks well is measured by `glm-dspy eval`, docs/benchmarks.md.)"""

from __future__ import annotations

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.modules.discriminate import LEVERS, Discriminate
from glm_dspy.modules.question_facts import COUNT, DATE, NAME, YES_NO, alternatives, asked
from glm_dspy.readings.question import read
from glm_dspy.runs.steps import StepLog
from glm_dspy.graphs.cypher.condition import Condition
from conftest import triples_db

QUESTION = "In which city was Marie Curie born?"


class Fallback(dspy.Module):
    def forward(self, question):
        from glm_dspy.runs.steps import Step, StepLog

        log = StepLog()
        log.add(Step("cypher", code="MATCH ... fallback"))
        return log.prediction("from the fallback", None, cypher="MATCH ... fallback")


@pytest.fixture(scope="module")
def program(nobel_graph):
    return Discriminate(nobel_graph, fallback=Fallback(), chooser="model")


def test_the_readings_are_the_graphs_own_and_the_asked_one_is_among_them(program):
    shown = program.shown(QUESTION)
    assert 1 <= len(shown) <= program.k and all(values for _, values, _ in shown)
    assert "Marie Curie -> birth city: name" in [r.words() for r, _, _ in shown]
    assert len({tuple(values) for _, values, _ in shown}) == len(shown)  # no two read the same values
    # "where" asks for a name: no date, number or other feature of the city is a reading of it
    assert all(r.returns == "name" for r, _, _ in shown)


def test_the_models_number_picks_the_reading_that_runs(program):
    readings = [r.words() for r, _, _ in program.shown(QUESTION)]
    pick = readings.index("Marie Curie -> birth city: name") + 1
    with dspy.context(lm=DummyLM([{"choice": str(pick)}])):
        prediction = program(question=QUESTION)
    assert prediction.answer == "Warsaw" and prediction.num_calls == 1
    assert [s["agent"] for s in prediction.steps] == ["choose", "graph"]
    assert "rel_birth_city" in prediction.cypher


@pytest.mark.parametrize("reply", ["0", "none"])
def test_none_of_them_or_no_number_gives_way(program, reply):
    with dspy.context(lm=DummyLM([{"choice": reply}])):
        prediction = program(question=QUESTION)
    if reply == "0":  # the model said none fits: the fallback answers
        assert prediction.answer == "from the fallback" and prediction.steps[-1]["agent"] == "cypher"
    else:  # no number: the nearest reading that reads rows answers
        assert prediction.answer and prediction.steps[1]["agent"] == "graph"


@pytest.mark.parametrize("question", ["How many prizes were awarded in total?",  # nothing to start from
                                      "Was Marie Curie a good teacher?"])  # one thing stated: readings cannot say yes or no
def test_a_question_no_reading_answers_goes_to_the_fallback_without_a_call(program, question):
    with dspy.context(lm=DummyLM([])):
        prediction = program(question=question)
    assert prediction.answer == "from the fallback" and prediction.num_calls == 0


def test_the_nearest_chooser_makes_no_call_and_records_the_readings(nobel_graph):
    program = Discriminate(nobel_graph, fallback=Fallback(), chooser="nearest")
    with dspy.context(lm=DummyLM([])):
        prediction = program(question=QUESTION)
    nearest, values, text = program.shown(QUESTION)[0]
    assert prediction.num_calls == 0 and prediction.answer == ", ".join(values) and prediction.cypher == text
    assert [s["agent"] for s in prediction.steps] == ["graph", "graph"]  # the readings, then the query
    assert nearest.words() in prediction.steps[0]["output"] and prediction.steps[0]["num_calls"] == 0


def test_a_question_naming_values_not_nodes_starts_from_them(program):
    shown = program.shown("Which laureate was born on 7 November 1867?")
    assert any("birth date is 1867-11-07" in r.words() and "Marie Curie" in values for r, values, _ in shown)


@pytest.mark.parametrize("question,kind,thing", [
    ("How many laureates were born in Oxford?", COUNT, "laureate"), ("When did Niels Bohr die?", DATE, None),
    ("In which year did X win?", DATE, None), ("Did Gregor Mendel ever win a Nobel Prize?", YES_NO, None),
    ("Which institutions in Brussels had a laureate?", NAME, "institution"), ("Who mentored X?", NAME, None),
    ("Which other laureate was born on the same day?", NAME, "laureate"), ("What is the motto of X?", None, "motto"),
    ("Is X's darling a man or a woman?", None, None),  # a choice between offered answers, not yes or no
    # a polite request asks what its clause asks, not yes or no
    ("Could you tell me who wrote the paper?", NAME, None), ("Do you know when X was born?", DATE, None),
    ("Can you tell me how many papers X wrote?", COUNT, "paper"), ("Can you name the authors of X?", None, "author"),
    ("Do you know if X won twice?", YES_NO, None), ("Can penguins fly?", YES_NO, None),
    ("What is the number of papers X wrote?", COUNT, "paper"), ("When X won his prize, was his mentor alive?", YES_NO, None),
])
def test_what_a_question_asks_for_is_read_from_its_words(question, kind, thing):
    assert asked(question) == kind and read(question).noun == thing


@pytest.mark.parametrize("question,answer", [
    ("Was Marie Curie born in Warsaw?", "yes"),
    ("Was Marie Curie born in Oxford?", "no"),  # two things stated, no short reading joins them
    ("Is Marie Curie still alive?", "no"),  # she and the laureates with no death date: no hop joins them
    ("Was Marie Curie a good teacher?", None),  # one thing: every path of hers exists, readings cannot say
])
def test_a_yes_no_question_is_whether_a_short_reading_joins_what_it_states(nobel_graph, question, answer):
    log = StepLog()
    found = Discriminate(nobel_graph).answer(question, log)
    assert (found[0] if found else None) == answer
    assert found is None or log.steps[-1].agent == "graph"


def test_a_category_said_in_other_words_binds_by_meaning(nobel_graph):
    starts = Discriminate(nobel_graph).starts("Which women won a prize in 1903?")
    assert any(s.type_name == "laureate" and Condition("gender", "=", "female") in s.conditions for s in starts)
    assert not any(c.feature == "gender" for s in Discriminate(nobel_graph).starts("Who won in 1903?")
                   for c in s.conditions)


def test_a_question_asking_for_a_first_reads_the_first(nobel_graph):
    found = Discriminate(nobel_graph).answer("Who was the first woman to win the chemistry prize?", StepLog())
    assert found is not None and found[0] == "Marie Curie" and "ORDER" not in found[1] and "min(" in found[1]


def test_a_choice_offers_its_answers_and_the_reading_that_reads_one_comes_first(nobel_graph):
    assert alternatives("Is X's darling a man or a woman ?") == ("man", "woman")
    assert alternatives("Was it a physics or a chemistry prize?") == ("physics", "chemistry")
    assert alternatives("Is Roald Hoffmann still alive?") == () == alternatives("Who won, X or Y?")
    assert alternatives("Was she born in Paris or in Warsaw?") == ("paris", "warsaw")
    for name, city in (("Marie Curie", "Warsaw"), ("Pierre Curie", "Paris")):
        shown = Discriminate(nobel_graph).shown(f"Was {name} born in Paris or in Warsaw?")
        assert shown[0][1] == [city], [(c.words(), v) for c, v, _ in shown[:3]]


def test_a_reading_kuzu_cannot_run_is_skipped_and_no_readable_graph_gives_way(nobel_graph, monkeypatch):
    """Kuzu fails a query whose working set outgrows its buffer pool ("Unable to allocate memory!
    The buffer pool is full") with a RuntimeError, and the process lives on: that reading reads
    nothing and the next answers; where none can be read, the fallback answers, never an empty
    answer or the error."""
    program = Discriminate(nobel_graph, fallback=Fallback(), chooser="nearest")
    store, read = nobel_graph.store, nobel_graph.store.read
    first = program.shown(QUESTION)[0]

    def failing_first(cypher, **kwargs):
        if cypher == first[0].cypher:
            raise RuntimeError("Buffer manager exception: Unable to allocate memory! The buffer pool is full")
        return read(cypher, **kwargs)

    monkeypatch.setattr(store, "read", failing_first)
    shown = program.shown(QUESTION)
    assert shown and first[0].cypher not in [c.cypher for c, _, _ in shown]

    def failing(cypher, **kwargs):
        raise RuntimeError("Buffer manager exception: Unable to allocate memory! The buffer pool is full")

    monkeypatch.setattr(store, "read", failing)
    with dspy.context(lm=DummyLM([])):
        prediction = program(question="Who won the physics prize in the year Marie Curie won hers?")
    assert prediction.answer == "from the fallback" and prediction.error_category is None


@pytest.mark.parametrize("question", ["What is the average birth year of the physics laureates of 1903?",
                                      "Which laureate of the 1903 physics prize was born first?"])
def test_a_reading_that_leaves_out_what_the_question_asks_gives_way(nobel_graph, question):
    """No reading averages; a reading that does not order does not read the first: the nearest
    reading reads another question's answer, so the fallback answers. Without the gate it does."""
    program = Discriminate(nobel_graph, fallback=Fallback(), chooser="nearest", levers=LEVERS - {"ranked"})
    with dspy.context(lm=DummyLM([])):
        prediction = program(question=question)
    assert prediction.answer == "from the fallback"
    assert any("not answered by a reading" in step["output"] for step in prediction.steps)
    ungated = Discriminate(nobel_graph, chooser="nearest", levers=LEVERS - {"ranked", "gate"})
    assert ungated.answer(question, StepLog()) is not None


def test_a_word_that_ranks_is_no_value_a_text_mentions(nobel_graph):
    """"the first chemistry laureate": "first" orders the laureates; it is not a motivation that
    mentions "first" (some do), which would start a reading of its own: an operator word is no
    mention, nor is a common English word (graphs/cypher/rare_words.py)."""
    from glm_dspy.graphs.cypher.anchors import anchors
    from glm_dspy.graphs.cypher.value_index import ValueIndex
    from glm_dspy.modules.question_values import question_values

    question = "Who was the first chemistry laureate?"
    index = ValueIndex.build(nobel_graph.store, nobel_graph.schema)
    said = question_values(question)
    mentioned = {a.condition.value for a in anchors(index, nobel_graph.store, said) if a.condition.op == "CONTAINS"}
    assert "first" not in mentioned
    assert "first" not in {a.condition.value for a in anchors(index, nobel_graph.store, said, operators={"first"})}
    (first,) = nobel_graph.store.query("MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE p.category = 'Chemistry' "
                                      "RETURN l.name AS n ORDER BY p.year LIMIT 1")
    assert Discriminate(nobel_graph).answer(question, StepLog())[0] == first["n"]


def test_a_join_that_holds_its_end_to_a_named_node_states_it(nobel_graph):
    """"Who are the co-authors of X on P?": the reading "P -> author and also X" reads X (or
    nothing), the question's own words, an echo; "P -> author" reads a node the graph holds."""
    from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
    from glm_dspy.modules.discriminate import _states

    schema = nobel_graph.schema
    prize = Start.named("prize", "name", "Nobel Prize in Physics 1903", "p1")
    curie = Start.named("laureate", "name", "Marie Curie", "l1")
    laureates = (Hop("laureate", True, "laureate"),)
    assert not _states(Candidate(prize, laureates, "name"), schema)
    assert _states(Candidate(prize, laureates, "name", join=(curie, ())), schema)
    assert not _states(Candidate(prize, laureates, "name", join=(curie, (Hop("mentor", True, "laureate"),))), schema)


def test_a_list_value_answers_as_its_items():
    """A reading of a list feature (a paper's keywords) answers with its items, as a reading of
    many rows does: "What are the keywords of P?" is right whatever order they are stored in."""
    from glm_dspy.evaluation.metrics import exact_match
    from glm_dspy.modules.discriminate import _text

    answer = _text(["transaction processing", "symbolic execution", "hardware"])
    assert exact_match(answer, "hardware, symbolic execution, transaction processing")
    assert _text(1903) == "1903"


@pytest.fixture(scope="module")
def triples_graph(tmp_path_factory, embedder):
    from glm_dspy.graph import open_graph

    db = triples_db(tmp_path_factory.mktemp("kb"),
                    "Jamal Mirsadeghi\tpeople_person_nationality\tIran\nIran\tmusic_recording_artist\tAzra\n"
                    "Iran\tlocation_location_contains\tTehran\nJamal Mirsadeghi\tpeople_person_place_of_birth\tTehran\n"
                    "Azra\tmusic_artist_genre\tRock\nRome\tmusic_recording_canonical_version\tRome\n"
                    "Rome\tmusic_recording_artist\tAzra\n")
    with open_graph(db, embedder=embedder) as graph:
        yield graph


@pytest.mark.parametrize("question, answer", [
    # every relation the question says is bound: the one-hop reading (Iran) leaves "artist" unsaid
    ("what is the artist of Jamal_Mirsadeghi 's nationality ?", "Azra"),
    ("what is the Jamal_Mirsadeghi 's nationality 's artist ?", "Azra"),
    # a node the graph reaches from itself is an answer, not an echo of the question
    ("what is the Rome 's canonical_version ?", "Rome"),
])
def test_the_reading_that_binds_every_said_relation_answers(triples_graph, question, answer):
    from glm_dspy.runs.steps import StepLog

    found = Discriminate(triples_graph).answer(question, StepLog())
    assert found is not None and found[0] == answer, found


def test_the_words_a_bank_teaches_for_relations_bind_a_reading_s_hops(tmp_path, embedder):
    """PathQuestion says "darling" for spouse and "dad" for parents: words no relation is named
    by. A bank that pairs them with those relations teaches them (RelationWords), and the
    reading that takes both hops binds the question; without them the one hop (philip) wins."""
    from glm_dspy import cli
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.relation_words import RelationWords
    from glm_dspy.runs.steps import StepLog

    (tmp_path / "kb.tsv").write_text("isabella\tparents\tphilip\nphilip\tspouse\tjoan\nphilip\tgender\tmale\n"
                                     "joan\tgender\tfemale\nisabella\tspouse\tedmund\n")
    assert cli.main(["build", f"triples:{tmp_path / 'kb.tsv'}", "--db", str(tmp_path / "db")]) == 0

    def chain(name, relation):
        return f"MATCH (a:entity {{name: '{name}'}})-[:rel_{relation}]->(b:entity) RETURN b.name"
    bank = [{"question": f"who is the darling of {n} ?", "cypher": chain(n, "spouse")} for n in "abcdef"] \
        + [{"question": f"who is {n} 's dad ?", "cypher": chain(n, "parents")} for n in "ghijkl"]
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        taught = RelationWords.learn(bank, graph.schema.relations)
        assert taught.usable and taught.words["darling"] == ("spouse", True)
        question = "the darling of isabella 's dad ?"
        found = Discriminate(graph, relation_words=taught).answer(question, StepLog())
        assert found is not None and found[0] == "joan", found
        untaught = Discriminate(graph, relation_words=RelationWords.learn([], graph.schema.relations))
        assert untaught.answer(question, StepLog())[0] != "joan"


def _names(store, query: str) -> set[str]:
    return {row["n"] for row in store.query(query)}


def test_a_bounded_count_reads_the_nodes_that_meet_it(nobel_graph):
    question = "Which laureates won the Nobel Prize more than once?"
    expected = _names(nobel_graph.store, "MATCH (l:laureate)<-[:rel_laureate]-(p:prize) WITH l, count(p) AS k "
                                         "WHERE k > 1 RETURN l.name AS n")
    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found is not None and set(found[0].split(", ")) == expected and "glm_n >= 2" in found[1]
    assert Discriminate(nobel_graph, levers=LEVERS - {"counted"}).answer(question, StepLog()) is None


def test_a_negated_question_reads_what_the_path_does_not_reach(nobel_graph):
    question = "On which continents was no economics laureate born?"
    reached = _names(nobel_graph.store, "MATCH (p:prize)-[:rel_laureate]->(:laureate)-[:rel_birth_city]->(:city)"
                                        "<-[:rel_city]-(c:country) WHERE p.category = 'Economic Sciences' "
                                        "RETURN c.continent AS n")
    every = _names(nobel_graph.store, "MATCH (c:country) WHERE c.continent IS NOT NULL RETURN c.continent AS n")
    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found is not None and set(found[0].split(", ")) == every - reached and "NOT EXISTS" in found[1]
    off = Discriminate(nobel_graph, levers=LEVERS - {"absent"}).answer(question, StepLog())
    assert off is None or set(off[0].split(", ")) != every - reached


def test_values_of_one_feature_said_together_are_read_as_any_of_them(nobel_graph):
    question = "Which female laureates won in physics or chemistry?"
    expected = _names(nobel_graph.store, "MATCH (p:prize)-[:rel_laureate]->(l:laureate) WHERE l.gender = 'female' AND "
                                         "(p.category = 'Physics' OR p.category = 'Chemistry') RETURN l.name AS n")
    found = Discriminate(nobel_graph).answer(question, StepLog())
    assert found is not None and set(found[0].split(", ")) == expected and " IN [" in found[1]
    off = Discriminate(nobel_graph, levers=LEVERS - {"union"}).answer(question, StepLog())
    assert off is None or set(off[0].split(", ")) != expected


def test_two_readings_of_the_same_things_in_another_row_order_are_one_answer():
    """Kuzu returns unordered rows in any order: the readings shown, and the margin to the next
    one, must not depend on it; an ordered reading's order is its answer."""
    from glm_dspy.graphs.cypher.candidate import Candidate, Hop, Start
    from glm_dspy.graphs.cypher.ranked import Key, Order
    from glm_dspy.modules.discriminate import _answer_of

    start = Start.named("country", "name", "Kenya", "c1")
    plain = Candidate(start, (Hop("BORDERS", True, "country"),), "name")
    first = Candidate(start, (Hop("BORDERS", True, "country"),), "name",
                      order=Order(Key("a", 0, "country", "population"), True, number=True))
    assert _answer_of(plain, ["Uganda", "Ethiopia"]) == _answer_of(plain, ["Ethiopia", "Uganda"])
    assert _answer_of(first, ["Uganda", "Ethiopia"]) != _answer_of(first, ["Ethiopia", "Uganda"])
