"""Example queries written from a graph itself (graphs/schema_examples.py), for graphs without a
train split: each one runs on the real Kuzu graph and returns a value, names only a node its name
picks out, and the shapes the Cypher Act is asked most are all there."""

import json
import re
from pathlib import Path

import pytest

from glm_dspy.graphs.schema_examples import plural, schema_examples, words
from glm_dspy.graphs.store import GraphStore

NAME = re.compile(r"\{(?:name|title): '((?:[^'\\]|\\.)*)'\}")


@pytest.fixture(scope="module")
def family_store(tmp_path_factory, embedder):
    """A triples graph with inverse relations, and two nodes both named "sam lee"."""
    from glm_dspy.graphs.build import build_database

    folder = tmp_path_factory.mktemp("family_schema")
    (folder / "kb.tsv").write_text(
        "isabella\tparents\tphilip\nphilip\tspouse\tjoan\nphilip\tgender\tmale\njoan\tgender\tfemale\n"
        "isabella\tgender\tfemale\nisabella\tspouse\tsam_lee\njoan\tparents\tsam lee\n"
        "joan\treligion\tanglicanism\n")
    build_database(f"triples:{folder / 'kb.tsv'}", folder / "db", embedder=embedder)
    return GraphStore.open(folder / "db")


def test_every_example_runs_returns_a_value_and_says_the_name_it_queries(tiny_db):
    store = GraphStore.open(tiny_db)
    examples = schema_examples(store)
    assert examples
    for example in examples:
        rows = store.query(example["cypher"])
        assert any(value not in (None, "", []) for row in rows for value in row.values()), example
        for name in NAME.findall(example["cypher"]):
            assert name.replace("\\'", "'") in example["question"], example
    shapes = {example["family"].split("-")[0] for example in examples}
    assert {"feature", "hop", "count", "neighbour", "chain"} <= shapes
    # every relation here has its inverse (paper/author, cited_by/reference): a question about a
    # relation's target starts from the target, so no example leaves the start unnamed
    assert "reverse" not in shapes
    by_question = {e["question"]: e["cypher"] for e in examples}
    assert by_question["What is the year of Notes on the Analytical Engine?"] == \
        "MATCH (a:paper {title: 'Notes on the Analytical Engine'}) RETURN a.year"
    assert by_question["What is Ada Lovelace's paper's venue?"] == (
        "MATCH (a:author {name: 'Ada Lovelace'})-[:rel_paper]->(m:paper)-[:rel_venue]->(b:venue) RETURN DISTINCT b.name")
    # a chain back to the start's type leaves the start out: Ada's co-authors are not Ada
    assert by_question["What is Ada Lovelace's paper's author?"] == (
        "MATCH (a:author {name: 'Ada Lovelace'})-[:rel_paper]->(m:paper)-[:rel_author]->(b:author) "
        "WHERE b <> a RETURN DISTINCT b.name")
    # Ada's two papers share their venue: it is the most common, and a tie would not be asked
    most = by_question["Which venue is most common among the papers of Ada Lovelace?"]
    assert most.endswith("RETURN b.name, count(DISTINCT m) AS n ORDER BY n DESC LIMIT 1")
    assert store.query(most) == [{"b.name": "Scientific Memoirs", "n": 2}]
    assert "Which author is most common among the papers of Ada Lovelace?" not in by_question  # 1 each
    assert store.query(by_question["What is the average year of the papers of Ada Lovelace?"]) == \
        [{"AVG(b.year)": 1843.5}]
    # a name with a quote in it is escaped in the query, as it is stored
    assert any("'O\\'Brien, Pat'" in e["cypher"] for e in examples)


def test_a_relation_without_an_inverse_is_asked_from_its_target_too(tmp_path, embedder):
    from glm_dspy.graphs.build import build_database

    graph = {"author_nodes": {"a1": {"features": {"name": "Ada Lovelace"}, "neighbors": {"paper": ["p1"]}},
                              "a2": {"features": {"name": "Charles Babbage"}, "neighbors": {"paper": ["p1"]}}},
             "paper_nodes": {"p1": {"features": {"title": "Notes on the Engine"}, "neighbors": {}}}}
    (tmp_path / "graph.json").write_text(json.dumps(graph))
    build_database(f"grbench:{tmp_path / 'graph.json'}", tmp_path / "db", embedder=embedder, schema_examples=False)
    by_question = {e["question"]: e["cypher"] for e in schema_examples(GraphStore.open(tmp_path / "db"))}
    assert by_question["Which author has Notes on the Engine as paper?"] == (
        "MATCH (a:author)-[:rel_paper]->(b:paper {title: 'Notes on the Engine'}) RETURN DISTINCT a.name")
    assert by_question["How many authors have Notes on the Engine as paper?"].endswith("RETURN count(DISTINCT a)")


def test_the_same_graph_and_seed_give_the_same_bank(tiny_db):
    store = GraphStore.open(tiny_db)
    assert schema_examples(store, seed=3) == schema_examples(store, seed=3)
    assert len(schema_examples(store, max_examples=5)) == 5


def test_a_shared_name_is_never_a_start_and_inverse_relations_do_not_chain(family_store):
    examples = schema_examples(family_store)
    questions = [e["question"] for e in examples]
    assert "What is the spouse of isabella?" in questions
    assert "Whose spouse is joan?" in questions  # inv_spouse, asked as English asks it
    assert "What is the religion of the spouse of philip?" in questions
    assert not any("'sam lee'" in e["cypher"] for e in examples)  # which of the two would it be?
    for example in examples:
        if example["family"].startswith("chain"):
            assert "inv_" not in example["cypher"], example


def test_schema_names_in_words():
    assert words("place_of_birth") == "place of birth" and words("inv_spouse") == "spouse"
    assert plural("city") == "cities" and plural("day") == "days" and plural("paper") == "papers"
    assert plural("parents") == "parents" and plural("cited by") == "cited by"


def test_a_graph_without_train_questions_is_built_with_examples_and_glm_acts_in_cypher(tmp_path, embedder):
    """`glm-dspy build grbench:...` writes the schema's examples, so GLM's default Act is Cypher
    there; `--no-schema-examples` keeps the paper's Python Act."""
    import dspy
    from dspy.utils import DummyLM

    from glm_dspy import cli
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM
    from glm_dspy.graphs.cypher_examples import FILE_NAME, main
    from glm_dspy.graphs.build import build_database

    graph_file = str(Path(__file__).parent / "fixtures" / "grbench_tiny.json")
    build_database(f"grbench:{graph_file}", tmp_path / "db", embedder=embedder)
    assert (tmp_path / "db" / FILE_NAME).is_file()
    with open_graph(tmp_path / "db", embedder=embedder) as graph:
        glm = GLM(graph, readings=False, compiled=None)
        assert glm.act_language == "cypher" and glm.cypher.examples
        venue = ("MATCH (a:paper {title: 'On Bernoulli Numbers'})-[:rel_venue]->(b:venue) RETURN DISTINCT b.name")
        lm = DummyLM([{"cypher": venue}])
        with dspy.context(lm=lm):
            prediction = glm(question="Which venue published On Bernoulli Numbers?")
        assert prediction.answer == "Scientific Memoirs" and prediction.num_calls == 1
        prompt = lm.history[0]["messages"][-1]["content"]
        assert "What is the venue of On Bernoulli Numbers?" in prompt  # its nearest example, from the schema
        # the schema's words spell its relations: a relation read as the paper's property is the hop,
        # and the query returns the name of the venue it reaches (a venue has no title)
        assert glm.cypher.post_process("MATCH (p:paper {title: 'On Bernoulli Numbers'}) RETURN DISTINCT p.venue",
                                       'Which venue published the paper "On Bernoulli Numbers"?') == (
            "MATCH (p:paper {title: 'On Bernoulli Numbers'})-[:rel_venue]->(glm_end:venue) RETURN DISTINCT glm_end.name")
        # a hop the question's words do not say, to a feature the named paper has itself: its own
        assert glm.cypher.post_process(
            "MATCH (a:paper {title: 'On Bernoulli Numbers'})-[:rel_reference]->(b:paper) WHERE b <> a RETURN b.keywords",
            "What are the keywords of the paper On Bernoulli Numbers?") == \
            "MATCH (a:paper {title: 'On Bernoulli Numbers'}) RETURN a.keywords"
        # a property the type lacks, one of whose words is a feature it has (a paper's `year`)
        assert glm.cypher.post_process(
            "MATCH (a:author {name: 'Charles Babbage'})-[:rel_paper]->(b:paper) RETURN avg(b.publication_year)",
            "What is the average publication year of the papers of Charles Babbage?") == \
            "MATCH (a:author {name: 'Charles Babbage'})-[:rel_paper]->(b:paper) RETURN avg(b.year)"

    assert cli.main(["build", f"grbench:{graph_file}", "--db", str(tmp_path / "plain"), "--no-schema-examples"]) == 0
    assert not (tmp_path / "plain" / FILE_NAME).exists()
    with open_graph(tmp_path / "plain", embedder=embedder) as graph:
        assert GLM(graph, readings=False, compiled=None).act_language == "python"
    assert main(["--from-schema", "--db", str(tmp_path / "plain")]) == 0  # an existing database gets them later
    assert (tmp_path / "plain" / FILE_NAME).read_text() == (tmp_path / "db" / FILE_NAME).read_text()


def test_a_whole_number_average_reads_as_a_whole_number():
    from glm_dspy.modules.text2cypher import _value_text

    assert _value_text(1843.0) == "1843" and _value_text(1843.5) == "1843.5" and _value_text([2.0, "x"]) == "2, x"
