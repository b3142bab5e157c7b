"""A path is said outwards from the thing it starts at: the hop nearest the named thing in the
path is said nearest its name in the question. "Henrik Dam shared his prize with one other
scientist. Who trained that scientist?" is Dam -> prize -> co-laureate -> mentor, not Dam ->
mentor -> prize -> laureate; "the student of the man who shared Felix Bloch's prize" and
"Bloch's co-laureate's student" read the same path, though one says it backwards and one
forwards, since either way the prize is said next to Bloch and the student furthest from him.

The readings' ranking (glm_dspy/modules/discriminate.py) makes each hop said out of that order
cost. A hop is said by its relation's words (taken backwards over a relation that never joins a
type to itself, also by the words of the type it reaches: "his prize" from a laureate), as the question says them, in the
bank's words or in other words (glm_dspy/modules/meant_words.py); the words a start was bound
from say no hop.
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.readings.words import word_stem

ORDER_COST = 0.06  # of cosine, per hop said nearer the start than a hop before it
POSSESSIVE = "s"  # "'s", as the question's words are read


def said_at(question: str, meant: dict[str, set[str]], taught: dict[str, tuple[str, bool]],
            skipped: tuple[int, int] | None = None, referring: frozenset[int] = frozenset()) -> list[set]:
    """Per word of the question (lower case, in order): what it says, its stem, the stems of the
    schema name it means in other words (`meant`: word -> stems) and the (relation, outgoing)
    the bank teaches it for (`taught`); nothing for the words within `skipped` (character
    offsets): the words naming the type of the thing asked for ("Which Nobel laureate was
    trained by ...") say the path's end, which is last whatever the place they stand in, not a
    hop on the way (where they name a relation, "Who is the mentor of ...", they say its last
    hop where they stand, and are not skipped);
    nor for the words at `referring` (their offsets), which name again a thing said before ("X's
    mentor ... the mentor"): the hop is said where it was first named."""
    said = []
    for match in re.finditer(r"[a-z]+", question.lower()):
        w = match.group()
        inside = skipped is not None and skipped[0] <= match.start() < skipped[1] or match.start() in referring
        said.append(set() if inside else {word_stem(w), *meant.get(w, ()), *([taught[w]] if w in taught else [])})
    return said


def order_misses(start_words: frozenset[str], hops: tuple, said: list[set],
                 named_back: frozenset[str] = frozenset()) -> int:
    """How many of a path's `hops` (from a start bound from the question's `start_words`) are
    said nearer the start than a hop before them (`distances`): each hop is placed at the nearest
    distance that says it, no nearer than the hop before, else at the furthest that does (one
    miss); a hop nothing says is not placed."""
    distances = _distances(start_words, said)
    if distances is None or not hops:
        return 0
    own = {word_stem(w) for w in start_words}
    misses, last = 0, 0
    for hop in hops:
        marks = _marks(hop, named_back) - own
        placed = sorted({d for d, words in zip(distances, said) if d and marks & words})
        if not placed:
            continue
        onwards = [d for d in placed if d >= last]
        if onwards:
            last = onwards[0]
        else:
            misses += 1
            last = placed[-1]
    return misses


def _distances(start_words: frozenset[str], said: list[set]) -> list[int] | None:
    """Each word's distance from the start's name (0 within it; None where the question does not
    say it): counted outwards on either side, but a possessive binds first, so the words before
    the name lie beyond those its "'s" chain holds ("the spouse of X's father": X -> father ->
    spouse). The name is the longest run of its own words (function words only inside it)."""
    content = [i for i, words in enumerate(said)
               if any(word_stem(w) in words for w in start_words if w not in FUNCTION_WORDS)]
    if not content:
        return None
    runs = [[content[0]]]
    for i in content[1:]:
        if i - runs[-1][-1] <= 2:
            runs[-1].append(i)
        else:
            runs.append([i])
    run = max(runs, key=lambda r: r[-1] - r[0])
    first, last = run[0], run[-1]
    chain = last
    while chain + 2 < len(said) and POSSESSIVE in said[chain + 1]:  # X 's A 's B
        chain += 2
    return [first - i + chain - last if i < first else 0 if i <= last else i - last for i in range(len(said))]


def _marks(hop, named_back: frozenset[str]) -> set:
    """What says a hop: its relation's words and (relation, outgoing) as the bank teaches it;
    taken backwards over a relation of `named_back` (glm_dspy/modules/reading_fit.py), also the
    words of the type it reaches."""
    marks = {word_stem(w) for w in hop.relation.split("_")} | {(hop.relation, hop.outgoing)}
    if not hop.outgoing and hop.relation in named_back:
        marks |= {word_stem(w) for w in hop.type_name.split("_")}
    return marks


def name_end(start_words: frozenset[str], said: list[set]) -> int | None:
    """The place of the last word of a start's name in the question (`said`: `said_at`'s), or
    None where the question does not say it."""
    content = [i for i, words in enumerate(said)
               if any(word_stem(w) in words for w in start_words if w not in FUNCTION_WORDS)]
    return content[-1] if content else None


def said_after(start_words: frozenset[str], said: list[set]) -> set:
    """What the words after a start's name say (`said`: `said_at`'s), up to the end of the
    question: "born in the year Hershey won his prize" says prize and won after Hershey."""
    end = name_end(start_words, said)
    return set() if end is None else set().union(set(), *said[end + 1:])


__all__ = ["ORDER_COST", "name_end", "order_misses", "said_after", "said_at"]
