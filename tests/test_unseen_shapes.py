"""graphs/unseen_shapes.py and `family`: dev questions of shapes the example bank does not hold."""

import json

import pytest

from glm_dspy.graphs.cypher_examples import FILE_NAME, family
from glm_dspy.graphs.questions import Question
from glm_dspy.graphs.unseen_shapes import held_out_families, main, write_unseen


def test_a_question_s_family_is_its_template_or_its_relation_path():
    assert family(Question("nobel-dev-birth_date-l189", "When was X born?", "1900")) == "birth_date"
    assert family(Question("syn-dev-single_hop-000-paper_year", "In what year ...?", "2001")) == "paper_year"
    path = Question("pq-1", "what is x 's wife 's gender ?", "male",
                    meta={"path": ["x", "spouse", "y", "gender", "male"]})
    assert family(path) == "spouse-gender"
    assert family(Question("grb-1", "Who wrote it?", "Ann")) == ""


def test_held_out_families_are_a_seeded_share_never_none_and_never_all():
    families = {f"f{i}" for i in range(10)}
    held = held_out_families(families, 0.5, seed=3)
    assert len(held) == 5 and held <= families
    assert held == held_out_families(set(sorted(families, reverse=True)), 0.5, seed=3)  # order-free
    assert held != held_out_families(families, 0.5, seed=4)
    assert len(held_out_families({"a", "b"}, 0.01, seed=0)) == 1
    assert len(held_out_families({"a", "b"}, 0.99, seed=0)) == 1


def test_the_bank_holds_no_example_of_a_held_out_family_and_the_questions_are_only_theirs(nobel_db, tmp_path):
    counts = write_unseen("nobel", nobel_db, tmp_path / "unseen", seed=0)
    held = set(counts["held_out"])
    bank = [json.loads(line) for line in (tmp_path / "unseen" / "db" / FILE_NAME).read_text().splitlines()]
    questions = [json.loads(line) for line in (tmp_path / "unseen" / "questions.jsonl").read_text().splitlines()]
    assert bank and questions and len(questions) == counts["questions"]
    assert not {example["family"] for example in bank} & held
    assert {q["qid"].split("-")[2] for q in questions} == held
    assert all(q["qid"].startswith("nobel-dev-") for q in questions)  # dev questions only
    shipped = (nobel_db / FILE_NAME).read_text().splitlines()
    assert len(bank) + counts["examples_held_out"] == len(shipped)  # the database's own bank is untouched
    assert (tmp_path / "unseen" / "db" / "graph.kuzu").resolve() == (nobel_db / "graph.kuzu").resolve()

    train_only = write_unseen("nobel", nobel_db, tmp_path / "train_only", seed=0, schema_examples=False)
    assert train_only["held_out"] == counts["held_out"] and train_only["examples"] < counts["examples"]


def test_the_held_out_database_opens_as_a_graph_whose_cypher_act_reads_the_smaller_bank(nobel_db, tmp_path, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.text2cypher import Text2Cypher

    counts = write_unseen("nobel", nobel_db, tmp_path / "unseen", seed=1)
    with open_graph(tmp_path / "unseen" / "db", embedder=embedder) as graph:
        assert len(Text2Cypher(graph).examples) == counts["examples"]


def test_a_graph_without_train_questions_or_a_database_not_built_is_refused(tiny_db, tmp_path, capsys):
    with pytest.raises(ValueError, match="has no dev split"):
        write_unseen("grbench:tests/fixtures/grbench_tiny.json", tiny_db, tmp_path / "out")
    with pytest.raises(SystemExit):
        main(["--dataset", "nobel", "--db", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")])
    assert "not a built database" in capsys.readouterr().err
