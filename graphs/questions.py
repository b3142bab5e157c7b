"""`Question`, the one question type of every dataset, and its JSON Lines file format.

One object per line: `{"qid", "question", "answer"}`, optionally `"alternatives"` (other
accepted answers, a list of strings), `"tier"` (one of TIERS), `"cypher"` (a query that
re-derives the answer on the built graph); any other key is kept in `meta` and written
back as a key of its own (PathQuestion's `path`). Blank lines are skipped. A qid names
one question: a file that repeats one is refused, since eval records are keyed by qid.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TIERS = ("single_hop", "multi_hop", "aggregation")
REQUIRED_KEYS = ("qid", "question", "answer")
RECORD_KEYS = (*REQUIRED_KEYS, "alternatives", "tier", "cypher")  # the keys a record has besides `meta`'s


class QuestionFormatError(ValueError):
    """A question file is not JSON Lines of question records; the message names the file and line."""


@dataclass(slots=True)
class Question:
    """A question with its gold answer. Invariants: qid, question and answer are non-empty text;
    `alternatives` is a tuple of text; `tier` is "" or one of TIERS; `meta` holds no key of
    RECORD_KEYS (so a written record reads back as the same Question)."""

    qid: str
    question: str
    answer: str
    alternatives: tuple[str, ...] = ()
    tier: str = ""
    cypher: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        for name in REQUIRED_KEYS:
            value = getattr(self, name)
            assert isinstance(value, str) and value.strip(), f"question {self.qid!r}: {name} must be non-empty text"
        assert isinstance(self.alternatives, tuple) and all(isinstance(a, str) for a in self.alternatives), (
            f"question {self.qid!r}: alternatives must be a tuple of text")
        assert self.tier in ("", *TIERS), f"question {self.qid!r}: tier {self.tier!r} is not one of {TIERS}"
        clashes = set(self.meta) & set(RECORD_KEYS)
        assert not clashes, f"question {self.qid!r}: meta keys {sorted(clashes)} are record keys"

    @property
    def golds(self) -> tuple[str, ...]:
        """Every accepted answer, the main one first, without repeats."""
        return (self.answer, *dict.fromkeys(a for a in self.alternatives if a != self.answer))

    def to_json(self) -> dict[str, Any]:
        row: dict[str, Any] = {"qid": self.qid, "question": self.question, "answer": self.answer}
        if self.alternatives:
            row["alternatives"] = list(self.alternatives)
        if self.tier:
            row["tier"] = self.tier
        if self.cypher:
            row["cypher"] = self.cypher
        return row | self.meta


def question_from_json(row: Any) -> Question:
    """A Question from one parsed record; ValueError says which key is wrong."""
    if not isinstance(row, dict):
        raise ValueError(f"expected a JSON object, got {type(row).__name__}")
    missing = [k for k in REQUIRED_KEYS if k not in row]
    if missing:
        raise ValueError(f"missing {', '.join(map(repr, missing))} (a record needs {', '.join(REQUIRED_KEYS)})")
    row = dict(row)
    qid, answer = row.pop("qid"), row.pop("answer")
    for name, value in (("qid", qid), ("answer", answer)):  # numbers are accepted as their text
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ValueError(f"{name} must be text or a number, got {json.dumps(value)[:60]}")
    question = row.pop("question")
    alternatives = row.pop("alternatives", [])
    tier, cypher = row.pop("tier", ""), row.pop("cypher", "")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("question must be non-empty text")
    if not isinstance(alternatives, list) or not all(isinstance(a, str) for a in alternatives):
        raise ValueError("alternatives must be a list of strings")
    if tier not in ("", *TIERS):
        raise ValueError(f"tier {tier!r} is not one of {', '.join(TIERS)}")
    if not isinstance(cypher, str):
        raise ValueError("cypher must be text")
    if not str(qid).strip() or not str(answer).strip():
        raise ValueError("qid and answer must not be empty")
    return Question(str(qid), question.strip(), str(answer), tuple(alternatives), tier, cypher, row)


def read_questions(path: Path | str) -> list[Question]:
    """Every question in a JSON Lines file, in file order; QuestionFormatError names file and line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such question file (JSON Lines of {{\"qid\", \"question\", \"answer\"}})")
    questions, line_of = [], {}
    with path.open("rb") as f:
        for line_number, raw in enumerate(f, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                raise QuestionFormatError(f"{path}:{line_number}: not UTF-8 text ({error.reason})") from None
            if not line.strip():
                continue
            try:
                question = question_from_json(json.loads(line))
            except json.JSONDecodeError as error:
                raise QuestionFormatError(f"{path}:{line_number}: not JSON ({error.msg} at column {error.colno})") \
                    from None
            except ValueError as error:
                raise QuestionFormatError(f"{path}:{line_number}: not a question record: {error}") from None
            if question.qid in line_of:
                raise QuestionFormatError(f"{path}:{line_number}: qid {question.qid!r} is already used on line "
                                          f"{line_of[question.qid]}; qids must be unique")
            line_of[question.qid] = line_number
            questions.append(question)
    return questions


def write_questions(questions: list[Question], path: Path | str) -> None:
    """Write `questions` as JSON Lines; `read_questions` reads them back equal (question text stripped)."""
    with Path(path).open("w", encoding="utf-8") as f:
        for question in questions:
            f.write(json.dumps(question.to_json(), ensure_ascii=False) + "\n")
