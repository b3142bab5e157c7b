"""Answer metrics: exact match over normalized (list) answers, ROUGE-L, and the GRBench judge prompt.

Answers are strings; a list answer joins its items with ", " (GRBench and our question files).
Some names contain commas themselves ("Earl W. Sutherland, Jr.", "Chicago, IL"), so a list
is split into items by `split_items`:

    1. cut the text at every comma into pieces ("A, B,C" -> "A", "B", "C");
    2. walk the pieces left to right; at each piece, if a known name (one that contains a
       comma) matches the next pieces, compared piece by piece after `normalize_answer`,
       take the longest such name as one item; else the piece alone is an item.

Known names are the caller's `known_names` (e.g. every name in the graph that contains a
comma) plus the gold items when the gold answer is given as a list. A name is only joined
when all of its pieces stand next to each other, so a name never absorbs a neighbouring
item, and an unknown comma name simply splits into its pieces, the same way on both sides.

The LLM judge call itself is made by the evaluation code through DSPy; this module only
holds the prompt (GRBench's, verbatim) and the parsing of the judge's reply.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Iterable, Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)
_COMMA = re.compile(r"\s*,\s*")

# GRBench / Graph-CoT `eval.py` (GPT4score), spacing kept as the original: "Question:{}" has no space.
JUDGE_SYSTEM = "You are a generative language model evaluator."
JUDGE_PROMPT = (
    "Question:{question} \nModel prediction: {prediction} \nGround truth: {gold}. \n"
    "Please help me judge if the model prediction is correct or not given the question and ground truth answer. "
    "Please use one word (Yes or No) to answer. Do not explain."
)
_JUDGE_LABELS = {"answer", "judgement", "judgment", "verdict"}  # "Answer: Yes" -> look at the next word


def normalize_answer(text: str) -> str:
    """SQuAD normalization: lowercase, drop punctuation, drop articles a/an/the, collapse whitespace.

    Underscores become spaces first: knowledge-base ids (PathQuestion's `united_kingdom`) are names."""
    text = str(text).lower().replace("_", " ").translate(_PUNCTUATION)
    return " ".join(_ARTICLES.sub(" ", text).split())


def _pieces(text: str) -> list[str]:
    return [normalize_answer(piece) for piece in _COMMA.split(str(text))]


def split_items(text: str, known_names: Iterable[str] = ()) -> list[str]:
    """The normalized items of a list answer, keeping known comma-containing names whole (module doc)."""
    names = {tuple(_pieces(name)) for name in known_names}
    names = sorted((n for n in names if len(n) > 1), key=len, reverse=True)  # longest first: greedy
    pieces, items, i = _pieces(text), [], 0
    while i < len(pieces):
        name = next((n for n in names if tuple(pieces[i:i + len(n)]) == n), (pieces[i],))
        items.append(" ".join(name))
        i += len(name)
    return [item for item in items if item]


def exact_match(prediction: str, gold: str | Sequence[str], *, known_names: Iterable[str] = ()) -> bool:
    """True if the prediction equals the gold answer after normalization, as a whole or as a set of items.

    `gold` is the answer text or the list of its items (then the items are known names too).
    Item sets must be equal: a partial or padded list is not a match; order and repeats do not matter.
    """
    gold_items = [] if isinstance(gold, str) else list(gold)
    gold_text = gold if isinstance(gold, str) else ", ".join(gold_items)
    if normalize_answer(prediction) == normalize_answer(gold_text):
        return True
    known = [*known_names, *gold_items]
    predicted = set(split_items(prediction, known))
    return bool(predicted) and predicted == set(split_items(gold_text, known))


@functools.cache
def _rouge_scorer():
    from rouge_score.rouge_scorer import RougeScorer

    return RougeScorer(["rougeL"])


def rouge_l(prediction: str, gold: str | Sequence[str]) -> float:
    """ROUGE-L F-measure in [0, 1] (rouge-score's default tokenizer: lowercase ASCII words, no stemming)."""
    gold_text = gold if isinstance(gold, str) else ", ".join(gold)
    return _rouge_scorer().score(gold_text, str(prediction))["rougeL"].fmeasure


def judge_prompt(question: str, prediction: str, gold: str | Sequence[str]) -> str:
    """GRBench's judge prompt for one answer (send with `JUDGE_SYSTEM` as the system message)."""
    gold_text = gold if isinstance(gold, str) else ", ".join(gold)
    return JUDGE_PROMPT.format(question=question, prediction=prediction, gold=gold_text)


def parse_judgement(text: str | None) -> bool | None:
    """The judge's verdict: True for Yes, False for No, None if the reply starts with neither.

    Case, punctuation, markup ("**Yes**"), a "<think>...</think>" block, a leading "Answer:"
    and any trailing text are ignored.
    """
    text = re.sub(r"<think>.*?</think>", " ", text or "", flags=re.DOTALL).lower()
    words = re.findall(r"[a-z]+", text)
    if words and words[0] in _JUDGE_LABELS:
        words = words[1:]
    if not words:
        return None
    return {"yes": True, "no": False}.get(words[0])
