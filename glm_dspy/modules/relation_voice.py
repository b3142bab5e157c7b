"""Which way a relation named by a verb and its preposition is read: `cited_by`, `born_in`,
`works_for`, `located_in` say "subject <verb> <preposition> object" (a paper cited_by the papers
that cite it). Where the question puts a start right after that preposition ("the papers cited
by P", "who works for Acme"), the start is the relation's object: the path leaves it backwards,
and the relation's words say that hop, not the hop forwards. Elsewhere ("P is cited by", "how
many papers cite P") the words say nothing of the way.

A relation named by a noun (`mentor`, `birth_city`) is said the other way: "the mentors of X"
and "X's mentor" are X's own (`said_as_owner`), so the path leaves X forwards over it.
The readings' ranking (glm_dspy/modules/reading_fit.py's `path_fit`) credits a path's first hop
taken the way the question says it, and charges one taken against it.
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.candidate import prepositional
from glm_dspy.modules.question_facts import word_stem

GAP = 3  # words between the preposition and the start's name ("cited by the paper P": the, paper)


def object_words(question: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", question.lower())


def said_as_object(words: list[str], start_words: frozenset[str], relation: str) -> bool:
    """Whether the question (`words`, `object_words`) says `relation`'s verb and preposition
    ("cited by") with a start bound from `start_words` after it, within GAP words: the start
    is the relation's object."""
    if not prepositional(relation):
        return False
    parts = relation.lower().split("_")
    verb = {word_stem(w) for w in parts[:-1] if w not in FUNCTION_WORDS}
    own = {w for w in start_words if w not in FUNCTION_WORDS}
    if not verb or not own:
        return False
    for i, word in enumerate(words):
        if word == parts[-1] and i and word_stem(words[i - 1]) in verb \
                and any(w in own for w in words[i + 1:i + 2 + GAP]):
            return True
    return False


def said_as_owner(words: list[str], start_words: frozenset[str], relation: str) -> bool:
    """Whether the question (`words`, `object_words`) says a relation named by a noun (`mentor`,
    `birth_city`) as the start's: "<relation> of <start>" (within GAP words: "the mentors of
    Jack Steinberger") or "<start>'s <relation>": the path leaves the start forwards over it
    (Steinberger's mentor), not backwards (those whose mentor he is)."""
    if prepositional(relation):
        return False
    parts = [word_stem(w) for w in relation.lower().split("_") if w not in FUNCTION_WORDS]
    own = {w for w in start_words if w not in FUNCTION_WORDS}
    if not parts or not own:
        return False
    n = len(parts)
    for i in range(len(words) - n + 1):
        if [word_stem(w) for w in words[i:i + n]] != parts:
            continue
        after, before = words[i + n:i + n + 1 + GAP], words[max(0, i - 2):i]
        if after[:1] == ["of"] and any(w in own for w in after[1:]) \
                or before[-1:] == ["s"] and any(w in own for w in before[:-1]):
            return True
    return False


__all__ = ["object_words", "said_as_object", "said_as_owner"]
