"""glm_dspy.graphs.questions: the one Question type and its JSON Lines file, errors naming file and line."""

import json

import pytest

from glm_dspy.graphs.questions import Question, QuestionFormatError, read_questions, write_questions


def test_round_trip_keeps_every_field_and_extra_keys(tmp_path):
    questions = [
        Question("q1", "Who?", "Ada"),
        Question("q2", "Which nation?", "united_kingdom", ("united_kingdom", "england"),
                 meta={"path": ["a", "r", "b"], "topic_entity": "a"}),
        Question("q3", "How many?", "3", tier="aggregation", cypher="MATCH (n) RETURN count(n)"),
    ]
    write_questions(questions, tmp_path / "q.jsonl")
    lines = (tmp_path / "q.jsonl").read_text().splitlines()
    # optional keys are written only when set; meta's keys are top-level keys of their own
    assert json.loads(lines[0]) == {"qid": "q1", "question": "Who?", "answer": "Ada"}
    assert list(json.loads(lines[1])) == ["qid", "question", "answer", "alternatives", "path", "topic_entity"]
    assert read_questions(tmp_path / "q.jsonl") == questions


def test_golds_put_the_answer_first_without_repeats():
    question = Question("q", "Which nation?", "uk", ("uk", "england", "england", "britain"))
    assert question.golds == ("uk", "england", "britain")


def test_numbers_become_text_and_question_text_is_stripped(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"qid": 7, "question": " How many? ", "answer": 3}\n\n{"qid": "8", "question": "x", "answer": 1.5}\n')
    assert [(q.qid, q.question, q.answer) for q in read_questions(path)] == [("7", "How many?", "3"), ("8", "x", "1.5")]


@pytest.mark.parametrize("line, message", [
    ('{"qid": "2", "question": "q"', "q.jsonl:2: not JSON"),
    ('["2", "q", "a"]', "q.jsonl:2: not a question record: expected a JSON object, got list"),
    ('{"qid": "2"}', "q.jsonl:2: not a question record: missing 'question', 'answer'"),
    ('{"qid": "2", "question": "q", "answer": null}', "answer must be text or a number, got null"),
    ('{"qid": true, "question": "q", "answer": "a"}', "qid must be text or a number, got true"),
    ('{"qid": "2", "question": "  ", "answer": "a"}', "question must be non-empty text"),
    ('{"qid": "2", "question": "q", "answer": ""}', "qid and answer must not be empty"),
    ('{"qid": "2", "question": "q", "answer": "a", "alternatives": "b"}', "alternatives must be a list of strings"),
    ('{"qid": "2", "question": "q", "answer": "a", "tier": "hard"}', "tier 'hard' is not one of single_hop"),
    ('{"qid": "1", "question": "again", "answer": "a"}', "q.jsonl:2: qid '1' is already used on line 1"),
])
def test_malformed_lines_name_file_and_line(tmp_path, line, message):
    path = tmp_path / "q.jsonl"
    path.write_text('{"qid": "1", "question": "q", "answer": "a"}\n' + line + "\n")
    with pytest.raises(QuestionFormatError) as error:
        read_questions(path)
    assert message in str(error.value)


def test_bytes_that_are_not_utf8_name_the_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(b'{"qid": "1", "question": "q", "answer": "a"}\n{"qid": "2", "question": "\xff"}\n')
    with pytest.raises(QuestionFormatError, match="q.jsonl:2: not UTF-8 text"):
        read_questions(path)


def test_missing_file_says_what_a_question_file_is(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"nope.jsonl: no such question file \(JSON Lines of"):
        read_questions(tmp_path / "nope.jsonl")


def test_invariants_are_checked_at_construction():
    with pytest.raises(AssertionError, match="answer must be non-empty"):
        Question("q", "Who?", " ")
    with pytest.raises(AssertionError, match="alternatives must be a tuple"):
        Question("q", "Who?", "a", ["b"])
    with pytest.raises(AssertionError, match="meta keys \\['answer'\\] are record keys"):
        Question("q", "Who?", "a", meta={"answer": "b"})
