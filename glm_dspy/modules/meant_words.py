"""The graph's schema names a question says in other words: "trained" says mentor, "won" says
prize, "woman" says gender, "money" says amount. The readings' ranking (glm_dspy/modules/
discriminate.py) counts them as said, as it counts a relation's or feature's own name.

A word of the question is read as the schema name nearest it in meaning (the embedder's cosine
of the word alone and the name's words) where that name is near (MEANT_MIN) and nearer than
every other name by MEANT_MARGIN; a word that two names are about as near says neither ("born":
birth city, birth date). Only the words that say no schema name themselves and are no part of a
name the question gives (bound by a start, or capitalised) are read: "Curie" says nothing.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.ranked import DECADE, MONTH, YEAR
from glm_dspy.graphs.triples import INVERSE_PREFIX
from glm_dspy.readings.words import word_stem

MEANT_MIN = 0.5  # cosine of a word and the schema name it says (MiniLM: "trained"-mentor 0.52, "worked"-prize 0.35)
MEANT_MARGIN = 0.08  # ... over the next nearest name ("born": birth city 0.58, birth date 0.56: neither)
NEAR_MIN = 0.4  # cosine of a word and a name it may say, where a reading must say a value ("died"-death date 0.46)
MIN_LETTERS = 3
TIME_PARTS = frozenset({YEAR, MONTH, DECADE, "day", "date"})  # parts of a value, which readings group by (ranked.py)


def schema_names(schema) -> list[str]:
    """The names a question may say: relations (but a triples graph's inverses, which readings
    never take), node types and features, in words ("birth_city" -> "birth city")."""
    names = [*schema.relations, *schema.node_types, *(f for t in schema.node_types.values() for f in t.features)]
    return list(dict.fromkeys(n.replace("_", " ") for n in names if not n.startswith(INVERSE_PREFIX)))


def open_words(question: str, names: list[str], bound: set[str]) -> list[str]:
    """The question's words that may say a schema name in other words: not function words,
    numbers or short words, not a part of a time (a month: readings group by it), not a word of a schema name (of `names`) already, singular or
    plural, not bound by a start (`bound`, lower case) and not capitalised past the question's
    first word (part of a name)."""
    own = {w for name in names for w in name.split()}
    own |= {word_stem(w) for w in own}
    words = []
    for i, match in enumerate(re.finditer(r"[A-Za-z]+", question)):
        word = match.group().lower()
        singular = (word[:-3] + "y" if word.endswith("ies") else "", word[:-2] if word.endswith("es") else "",
                    word[:-1] if word.endswith("s") else "")
        if (len(word) < MIN_LETTERS or word in FUNCTION_WORDS or word in bound or word in TIME_PARTS
                or {word, word_stem(word), *singular} & own or (i and match.group()[0].isupper())):
            continue
        words.append(word)
    return list(dict.fromkeys(words))


def meant_words(words: list[str], names: list[str], embed) -> Counter:
    """The stems of the words of each schema name (of `names`) that a word of `words` says, once
    per word; `embed` maps texts to unit vectors (one row each)."""
    found: Counter = Counter()
    for stems in meant_by_word(words, names, embed).values():
        found.update(stems)
    return found


def meant_by_word(words: list[str], names: list[str], embed, *, forms: bool = True) -> dict[str, set[str]]:
    """Each word of `words` that says a schema name (of `names`) in other words -> the stems of
    that name's words: by its form (`forms`: `derives`, where it derives one name only), else
    by the embedder."""
    if not words or len(names) < 2:
        return {}
    found: dict[str, set[str]] = {}
    for word in words if forms else ():
        derived = [name for name in names if any(derives(word, part) for part in name.split())]
        if len(derived) == 1:  # "founded" says founder, "home" hometown: by the word's form, not the embedder
            found[word] = {word_stem(w) for w in derived[0].split() if w not in FUNCTION_WORDS}
    words = [word for word in words if word not in found]
    if not words:
        return found
    similarity = embed(words) @ embed(names).T
    for word, row in zip(words, similarity):
        second, first = np.argsort(row)[-2:]
        if row[first] >= MEANT_MIN and row[first] - row[second] >= MEANT_MARGIN:
            found[word] = {word_stem(w) for w in names[first].split() if w not in FUNCTION_WORDS}
    return found


AGENT_ENDINGS = ("er", "r", "or")  # found -> founder, employ -> employer, govern -> governor
MIN_PART = 4  # letters of a word that begins a compound name ("home": hometown; not "man": manager)


def derives(word: str, part: str) -> bool:
    """Whether a name's word (`part`) is a word of the question by its form: the agent noun of
    its verb ("founded", "founds": founder; "employs": employer) or a compound it begins
    ("home": hometown, "birth": birthplace; its rest of MIN_PART - 1 letters or more)."""
    stem_ = word_stem(word)
    return any(part in (stem_ + ending, word + ending) for ending in AGENT_ENDINGS) \
        or (len(word) >= MIN_PART and part.startswith(word) and len(part) - len(word) >= MIN_PART - 1)


def near_names(words: list[str], names: list[str], embed) -> set[str]:
    """The names (of `names`) some word of `words` may say: those within MEANT_MARGIN of the
    word's nearest name, at cosine NEAR_MIN or more ("born": birth city and birth date; "died":
    death date). Looser than `meant_by_word`: it asks whether a reading's value is said at all,
    not which name a word says."""
    if not words or not names:
        return set()
    similarity = embed(words) @ embed(names).T
    return {names[i] for row in similarity for i in np.flatnonzero((row >= NEAR_MIN) & (row >= row.max() - MEANT_MARGIN))}
