"""The Nobel dev/train splits: what is shipped is what the families generate, and the split rules hold."""

import re
from collections import Counter
from pathlib import Path

import pytest

from glm_dspy.graphs.nobel_families import Family
from glm_dspy.graphs.nobel_questions import load_fresh_database
from glm_dspy.graphs.nobel_templates import (DEMO_NAMES, SAMPLE_FILE, SPLIT_FILES, _instances, entity_split, make_split,
                                             unique_names)
from glm_dspy.graphs.questions import TIERS, read_questions

FEWSHOT = Path(__file__).resolve().parent.parent / "glm_dspy" / "prompts" / "fewshot.py"
ID_LITERAL = re.compile(r"\{id: '([^']*)'\}")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    from glm_dspy.graphs.store import GraphStore

    return GraphStore.open(load_fresh_database(tmp_path_factory.mktemp("nobel_templates") / "db"))


@pytest.fixture(scope="module")
def shipped():
    return {split: read_questions(path) for split, path in SPLIT_FILES.items()}


def named_ids(question) -> set[str]:
    return set(ID_LITERAL.findall(question.cypher))


def test_shipped_splits_are_what_the_families_generate(shipped, store):
    for split, questions in shipped.items():
        assert make_split(store, split) == questions, f"stale {split} split: run `python -m glm_dspy.graphs.nobel_templates`"


def test_every_shipped_answer_is_rederived_by_its_cypher(shipped, store):
    from glm_dspy.graphs.synthetic_questions import answer_from_rows

    sample = shipped["dev"][::7] + shipped["train"][::13]
    assert [q.qid for q in sample if answer_from_rows(store.query(q.cypher)) != q.answer] == []


def test_sizes_per_tier(shipped):
    dev, train = (Counter(q.tier for q in shipped[s]) for s in ("dev", "train"))
    assert sum(dev.values()) >= 300 and all(dev[t] >= 90 for t in TIERS), dev
    assert sum(train.values()) >= 300 and all(train[t] >= 90 for t in TIERS), train


def test_dev_and_train_name_disjoint_entities(shipped):
    dev_ids = set().union(*map(named_ids, shipped["dev"]))
    train_ids = set().union(*map(named_ids, shipped["train"]))
    assert dev_ids and train_ids and not dev_ids & train_ids
    assert {entity_split(i) for i in dev_ids} == {"dev"} and {entity_split(i) for i in train_ids} == {"train"}
    assert not {q.question for q in shipped["dev"]} & {q.question for q in shipped["train"]}


def test_dev_names_no_demo_entity_and_no_sample_question(shipped, store):
    names = unique_names(store)
    dev_names = {names[i] for q in shipped["dev"] for i in named_ids(q)}
    assert not dev_names & DEMO_NAMES
    assert not {q.question for q in shipped["dev"]} & {q.question for q in read_questions(SAMPLE_FILE)}


def test_demo_names_cover_every_entity_the_fewshot_demos_name():
    text = FEWSHOT.read_text()
    named = set(re.findall(r'RetrieveNode\("([^"]+)"\)', text))
    assert named and named <= DEMO_NAMES, named - DEMO_NAMES


def test_entity_split_is_a_fixed_hash_of_the_id():
    assert [entity_split(i) for i in ("l6", "l26", "l27", "prize_physics_1903", "country_usa")] == \
        ["train", "dev", "train", "train", "train"]


def test_a_tie_or_an_overlong_answer_drops_the_candidate(store):
    prize = "prize_physics_1903"  # three laureates: Becquerel and the two Curies
    split = entity_split(prize)

    def instances(max_values: int):
        family = Family("probe", "single_hop", "Who received the {a}?", f"MATCH (n:prize {{id: '{prize}'}}) "
                        "RETURN n.id AS a", "MATCH (:prize {{id: {a}}})-[:rel_laureate]->(l) RETURN l.name",
                        max_values=max_values)
        return list(_instances(store, family, unique_names(store), split, set()))

    assert instances(max_values=2) == []
    [question] = instances(max_values=3)
    assert question.qid == f"nobel-{split}-probe-{prize}"
    assert question.answer == "Henri Becquerel, Marie Curie, Pierre Curie"
