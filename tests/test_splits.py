"""The fixed dev/train splits of PathQuestion and synthetic, and `load_questions(..., split=)` for every dataset."""

import json
from collections import Counter

import pytest

from glm_dspy.graphs.datasets import data_dir, load_questions
from glm_dspy.graphs.pathquestion import read_pathquestions
from glm_dspy.graphs.questions import TIERS, Question
from glm_dspy.graphs.splits import PATHQUESTION_DEV, choose_pathquestion_split, named_ids, split_file, synthetic_splits


@pytest.mark.parametrize("variant", ["pq", "pql"])
def test_pathquestion_split_files_are_the_seeded_choice_and_disjoint(variant):
    questions = read_pathquestions(data_dir() / "pathquestion", variant)
    shipped = json.loads(split_file(f"pathquestion-{variant}").read_text())
    assert shipped == choose_pathquestion_split(questions), "stale split: rewrite with `python -m glm_dspy.graphs.splits`"
    dev = load_questions(f"pathquestion:{variant}", split="dev")
    train = load_questions(f"pathquestion:{variant}", split="train")
    assert len(dev) == PATHQUESTION_DEV and len(train) >= 900
    assert {q.tier for q in dev + train} == {"multi_hop"}
    assert not {q.qid for q in dev} & {q.qid for q in train}
    assert not {q.question for q in dev} & {q.question for q in train}
    assert len({q.question for q in dev}) == len(dev)
    # no rewording of a dev question is in train: no train question names a dev question's entity
    assert not {q.meta["topic_entity"] for q in dev} & {q.meta["topic_entity"] for q in train}


def test_choose_pathquestion_split_is_a_seeded_shuffle_of_topic_entities():
    # 100 entities, each asked 4 ways about 2 texts (a text repeated, as PQL repeats some)
    questions = [Question(f"pq-{i}", f"q{i % 200}?", "a", tier="multi_hop", meta={"topic_entity": f"e{i % 100}"})
                 for i in range(400)]
    content = choose_pathquestion_split(questions, seed=5)
    assert content == choose_pathquestion_split(list(reversed(questions)), seed=5)  # input order does not matter
    assert content["dev"] != choose_pathquestion_split(questions, seed=6)["dev"]
    by_qid = {q.qid: q for q in questions}
    dev_texts = {by_qid[qid].question for qid in content["dev"]}
    dev_entities = {by_qid[qid].meta["topic_entity"] for qid in content["dev"]}
    assert len(content["dev"]) == len(dev_texts) == PATHQUESTION_DEV
    assert len(dev_entities) == PATHQUESTION_DEV // 2  # whole entities: both texts (paths) of each
    assert set(content["train"]) == {q.qid for q in questions if q.meta["topic_entity"] not in dev_entities}
    # 300 entities, each with one path worded two ways: dev takes one wording of a path
    worded = [Question(f"pq-{i}", f"q{i}?", "a", tier="multi_hop",
                       meta={"topic_entity": f"e{i % 300}", "path": [f"e{i % 300}", "spouse", "x", "gender", "y"]})
              for i in range(600)]
    content = choose_pathquestion_split(worded, seed=5)
    dev_entities = {f"e{int(qid[3:]) % 300}" for qid in content["dev"]}
    assert len(content["dev"]) == len(dev_entities) == PATHQUESTION_DEV
    assert len(content["train"]) == 2 * (300 - PATHQUESTION_DEV)


def test_synthetic_splits_cover_every_tier_and_share_no_question():
    from glm_dspy.graphs.synthetic import generate

    splits = synthetic_splits(generate(10_000, seed=0))  # the README's `glm-dspy build synthetic`
    dev, train = splits["dev"], splits["train"]
    assert Counter(q.tier for q in dev) == {t: 50 for t in TIERS}
    assert min(Counter(q.tier for q in train).values()) >= 150 and len(train) >= 500
    assert all(q.qid.startswith("syn-dev-") for q in dev) and all(q.qid.startswith("syn-train-") for q in train)
    assert not {q.question for q in dev} & {q.question for q in train}
    assert not {i for q in dev for i in named_ids(q)} & {i for q in train for i in named_ids(q)}
    assert all(q.cypher and named_ids(q) for q in dev + train)


def test_synthetic_build_writes_the_splits_and_eval_reads_them(tmp_path, monkeypatch):
    import glm_dspy.graphs.datasets as datasets
    from glm_dspy.graphs.questions import write_questions

    graph, name, stored = datasets.load_dataset("synthetic:3000")
    assert sorted(stored) == ["dev.jsonl", "questions.jsonl", "train.jsonl"]
    for file_name, questions in stored.items():
        write_questions(questions, tmp_path / file_name)
    assert [q.qid for q in load_questions("synthetic", tmp_path, split="dev")] == [q.qid for q in stored["dev.jsonl"]]
    assert load_questions("synthetic", tmp_path, split="train")[0].qid.startswith("syn-train-")
    (tmp_path / "dev.jsonl").unlink()
    with pytest.raises(ValueError, match="no synthetic dev split in .*rebuild the database"):
        load_questions("synthetic", tmp_path, split="dev")


def test_nobel_split_and_the_errors():
    dev = load_questions("nobel", split="dev")
    assert len(dev) >= 300 and dev[0].qid.startswith("nobel-dev-")
    assert len(load_questions("nobel")) == 49  # no split: the hand-written questions, as before
    with pytest.raises(ValueError, match=r"dataset 'grbench' has no dev split \(dev, train exist for synthetic, "
                                         r"nobel, pathquestion\); leave out the split"):
        load_questions("grbench:dblp", split="dev")
    with pytest.raises(ValueError, match="unknown split 'test'; use one of: dev, train"):
        load_questions("nobel", split="test")


NATURAL = [{"qid": "nat-1", "kind": "lookup", "shape": "s1", "question": "Is Ada still alive?", "answer": "no",
            "alternatives": []},
           {"qid": "nat-2", "kind": "set", "shape": "s2", "question": "Who wrote both?", "answer": "Ada Lovelace",
            "alternatives": ["Augusta Ada King"]}]


def test_nobel_natural_split_is_read_from_the_data_folder(tmp_path, monkeypatch):
    # a stand-in for nobel/natural_dev.jsonl (its questions stay out of the repository)
    (tmp_path / "nobel").mkdir()
    (tmp_path / "nobel" / "natural_dev.jsonl").write_text("".join(json.dumps(q) + "\n" for q in NATURAL))
    monkeypatch.setenv("GLM_DATA_DIR", str(tmp_path))
    natural = load_questions("nobel", split="natural")
    assert [(q.qid, q.tier, q.meta["kind"], q.alternatives) for q in natural] == [
        ("nat-1", "", "lookup", ()), ("nat-2", "", "set", ("Augusta Ada King",))]
    with pytest.raises(ValueError, match=r"dataset 'pathquestion' has no natural split \(natural exists for nobel\)"):
        load_questions("pathquestion", split="natural")
    with pytest.raises(ValueError, match="unknown split 'test'; use one of: dev, train, natural"):
        load_questions("nobel", split="test")
    (tmp_path / "nobel" / "natural_dev.jsonl").unlink()
    with pytest.raises(FileNotFoundError, match=r"nobel/natural_dev.jsonl: no such file; .* set GLM_DATA_DIR"):
        load_questions("nobel", split="natural")
