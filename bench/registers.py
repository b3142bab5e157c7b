"""Questions said in other registers, for measuring how the readings hold when people type as
they do: `lower` (all lower case, as typed in a search box), `typo` (one slip in one word of four
or more letters: a letter dropped, doubled, changed to its neighbour on the keyboard, or two
neighbours swapped; never a word's first letter). The slip is drawn from a generator seeded by
the question's text, so a register of a set is the same on every run.
"""

from __future__ import annotations

import hashlib
import random
import re

REGISTERS = ("plain", "lower", "typo")
KEYBOARD = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]


def _neighbour(letter: str, rng: random.Random) -> str:
    for row in KEYBOARD:
        if letter.lower() in row:
            at = row.index(letter.lower())
            near = [row[i] for i in (at - 1, at + 1) if 0 <= i < len(row)]
            chosen = rng.choice(near)
            return chosen.upper() if letter.isupper() else chosen
    return letter


def with_typo(question: str, rng: random.Random) -> str:
    """`question` with one slip in one of its words of four letters or more (module doc); as it is
    where it has none."""
    words = [m for m in re.finditer(r"[A-Za-z]{4,}", question)]
    while words:
        word = rng.choice(words)
        text = word.group(0)
        at = rng.randrange(1, len(text) - 1)  # never the first letter: people rarely slip there
        slip = rng.choice(("drop", "double", "neighbour", "swap"))
        if slip == "drop":
            text = text[:at] + text[at + 1:]
        elif slip == "double":
            text = text[:at] + text[at] + text[at:]
        elif slip == "neighbour":
            text = text[:at] + _neighbour(text[at], rng) + text[at + 1:]
        else:
            text = text[:at] + text[at + 1] + text[at] + text[at + 2:]
        if text != word.group(0):  # two equal letters swapped change nothing: slip again
            return question[:word.start()] + text + question[word.end():]
    return question


def in_register(question: str, register: str) -> str:
    if register not in REGISTERS:
        raise ValueError(f"register must be one of {', '.join(REGISTERS)}, got {register!r}")
    rng = random.Random(hashlib.sha256(question.encode("utf-8")).hexdigest())
    if register == "lower":
        return question.lower()
    if register == "typo":
        return with_typo(question, rng)
    return question


__all__ = ["REGISTERS", "in_register", "with_typo"]
