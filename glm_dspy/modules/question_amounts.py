"""The quantities a question says its values pass: "reach one million" (>= 1,000,000), "more
than 250,000", "under 2.5 million"; read as a number feature's bound (graphs/cypher/anchors.py),
as "since 2020" bounds a year. A small bare number ("more than one field") is a count's bound
(glm_dspy/readings/operators.py `count_bound`), not an amount."""

from __future__ import annotations

import re

NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10}
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
_AMOUNT_OPS = (("at least", ">="), ("at most", "<="), ("more than", ">"), ("less than", "<"), ("fewer than", "<"),
               ("reach", ">="), ("reached", ">="), ("reaches", ">="), ("exceed", ">"), ("exceeded", ">"),
               ("exceeds", ">"), ("over", ">"), ("above", ">"), ("below", "<"), ("under", "<"))
_AMOUNT = re.compile(r"\b(" + "|".join(w for w, _ in _AMOUNT_OPS) + r")\s+(?:a\s+|an\s+)?"
                     r"(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|" + "|".join(NUMBER_WORDS) + r"|a)"
                     r"(?:\s+(" + "|".join(_SCALES) + r"))?\b", re.IGNORECASE)


def question_amounts(question: str) -> list[tuple[str, int]]:
    """The quantities the question says values pass ("reach one million": (">=", 1000000);
    "more than 250,000": (">", 250000); "under 2.5 million"): a bound word, then a number
    written with thousands separators or followed by thousand, million or billion. A small
    bare number ("more than one field") is a count's bound (`count_bound`), not an amount."""
    found = []
    for word, number, scale in _AMOUNT.findall(question):
        if not scale and "," not in number:
            continue
        value = float(number.replace(",", "")) if number[0].isdigit() else NUMBER_WORDS.get(number.lower(), 1)
        found.append((dict(_AMOUNT_OPS)[word.lower()], int(value * _SCALES.get(scale.lower(), 1))))
    return found


__all__ = ["NUMBER_WORDS", "question_amounts"]
