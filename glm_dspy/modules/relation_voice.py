"""Which way a relation named by a verb and its preposition is read: `cited_by`, `born_in`,
`works_for`, `located_in` say "subject <verb> <preposition> object" (a paper cited_by the papers
that cite it). Where the question puts a start right after that preposition ("the papers cited
by P", "who works for Acme"), the start is the relation's object: the path leaves it backwards,
and the relation's words say that hop, not the hop forwards. Elsewhere ("P is cited by", "how
many papers cite P") the words say nothing of the way.

The readings' ranking (glm_dspy/modules/reading_fit.py's `path_fit`) credits a path's first hop
by this; a relation whose name ends in no preposition (`mentor`, `birth_city`) is not read here.
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.candidates import prepositional
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


__all__ = ["object_words", "said_as_object"]
