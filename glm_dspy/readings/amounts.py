"""The quantities a question says values pass, read off its words: "reach one million" (">=",
1000000), "more than 250,000" (">", 250000), "under 2.5 million" ("<", 2500000). A bound word
(lexicon.AMOUNT_PHRASES, AMOUNT_VERBS by lemma), then a number written with thousands separators
or followed by thousand, million or billion. A small bare number ("more than one field") is a
count's bound (glm_dspy/readings/operators.py), not an amount.

The class of questions served: a bound on a number feature of any graph ("cities of more than a
million people", "prizes worth over 250,000 kronor").
"""

from __future__ import annotations

import glm_dspy.readings.lexicon as en
from glm_dspy.readings.words import Word

_SMALL = en.SMALL_NUMBERS  # those an amount is written with ("two million")


def amounts(words: list[Word] | tuple[Word, ...]) -> list[tuple[str, int]]:
    """(op, value) of each amount the words say (module doc)."""
    texts = [w.text for w in words]
    found = []
    for i, w in enumerate(words):
        op, at = _bound(words, texts, i)
        if op is None:
            continue
        if at < len(words) and texts[at] in en.INDEFINITE and at + 1 < len(words) \
                and (_number(texts[at + 1]) is not None or texts[at + 1] in _SMALL):
            at += 1  # "over a 1,000" reads the number; "reach a million" reads "a" as one, below
        if at >= len(words):
            continue
        scale = en.SCALE_VALUES.get(texts[at + 1], 0) if at + 1 < len(words) else 0
        number = _number(texts[at])
        if number is None and (texts[at] in _SMALL or texts[at] == "a") and scale:
            number = float(_SMALL.get(texts[at], 1))
        if number is None or not scale and "," not in texts[at]:
            continue
        found.append((op, int(number * (scale or 1))))
    return found


def _bound(words, texts, i: int) -> tuple[str | None, int]:
    """The op of a bound word at `i` and where its number stands."""
    for phrase, op in en.AMOUNT_PHRASES:
        if tuple(texts[i:i + len(phrase)]) == phrase:
            return op, i + len(phrase)
    for verb, op in en.AMOUNT_VERBS.items():
        if words[i].is_(verb):
            return op, i + 1
    return None, i


def _number(text: str) -> float | None:
    """A number written "250,000" (three digits a group), "2.5" or "12"; else None."""
    if "," in text:
        groups = text.split(",")
        ok = 1 <= len(groups[0]) <= 3 and all(len(g) == 3 and g.isdigit() for g in groups[1:]) and groups[0].isdigit()
        return float(text.replace(",", "")) if ok else None
    head, dot, tail = text.partition(".")
    return float(text) if head.isdigit() and (not dot or tail.isdigit()) else None


__all__ = ["amounts"]
