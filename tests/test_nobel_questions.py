"""The shipped Nobel questions: enough of them, every tier, and every answer re-derived by its Cypher."""

from collections import Counter

import pytest

from glm_dspy.graphs.nobel_questions import QUESTIONS_FILE, compute_questions, load_fresh_database
from glm_dspy.graphs.questions import TIERS, read_questions
from glm_dspy.graphs.synthetic_questions import answer_from_rows


@pytest.fixture(scope="module")
def questions():
    return read_questions(QUESTIONS_FILE)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from glm_dspy.graphs.store import GraphStore

    return GraphStore.open(load_fresh_database(tmp_path_factory.mktemp("nobel_questions") / "db"))


def test_shipped_questions_cover_every_tier(questions):
    counts = Counter(q.tier for q in questions)
    assert len(questions) >= 40
    assert set(counts) == set(TIERS) and min(counts.values()) >= 10, counts
    assert len({q.qid for q in questions}) == len(questions)


def test_every_answer_is_rederived_by_its_cypher(questions, store):
    wrong = [(q.qid, q.answer, answer) for q in questions
             if (answer := answer_from_rows(store.query(q.cypher))) != q.answer]
    assert not wrong, f"stale answers (rebuild with `python -m glm_dspy.graphs.nobel_questions`): {wrong}"


def test_shipped_file_is_what_the_builder_writes(questions, store):
    assert compute_questions(store) == questions
