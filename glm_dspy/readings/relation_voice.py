"""Which way the question says a relation, from where it puts a start around the relation's
words, read with the relation's grammar (glm_dspy/readings/relation_grammar.py): the start is at
the relation's source (`said_as_owner`) or at its target (`said_as_object`), or the words say
nothing of the way.

The class of questions served: a single hop said with a named start, on any graph, whatever part
of speech names the relation.
- A noun (`mentor`, `birth_city`, `HAS_CAPITAL`: capital): "the mentors of X", "X's mentor",
  "the capital of X" are X's own: X is the source.
- A verb in the active (`DIRECTED`, `FOLLOWS`, `BORDERS`, `USES_CURRENCY`): its subject is the
  source. "Who does X follow?", "What currency does X use?" put X before the verb: the source;
  "Who directed X?", "Which countries use X?" put X after it: the target; "directed by X" (the
  passive of an active name) makes X the agent: the source.
- A verb and its preposition (`cited_by`, `born_in`, `works_for`) read "subject <relation>
  object": "the papers cited by P", "who works for Acme" put P, Acme after the preposition: the
  target; "Is P cited by ...", "Where was X born?" put X before the verb: the source.
- A preposition and a noun (`IN_COUNTRY`): "the cities in X" put X after the preposition: the
  target; "the country of X": the source.
The readings' ranking (glm_dspy/modules/reading_fit.py's `path_fit`) credits a path's first hop
taken the way the question says it, and charges one taken against it. `verbs=False` reads only a
noun's owner and a verb's preposition (the rules before the grammar was read), to measure the
verbs' rules off (lever "verb-voice").
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.candidate import prepositional
from glm_dspy.readings.words import word_stem
from glm_dspy.readings import lexicon
from glm_dspy.readings.relation_grammar import PLACE, VERB, RelationGrammar, grammar
from glm_dspy.readings.words import english_lemmas

GAP = 3  # words between the relation's words and the start's name ("cited by the paper P": the, paper)
OBJECT_WORDS = 2  # an object's name, or a type's noun and the name, right after the verb
NOUN_BEFORE = lexicon.ARTICLES | lexicon.POSSESSIVES  # "the borders", "its borders": a noun


def object_words(question: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", question.lower())


def said_as_object(words: list[str], start_words: frozenset[str], relation: str, verbs: bool = True) -> bool:
    """Whether the question (`words`, `object_words`) puts a start bound from `start_words` at
    `relation`'s target: within GAP words after the relation's verb and preposition ("cited by
    P"), right after an active verb ("directed X", not "speak in X") or before its passive ("X was
    directed by"), or right after a place's preposition ("the cities in X")."""
    own = _own(start_words)
    if not own:
        return False
    if prepositional(relation):
        return _after_preposition(words, own, relation)
    if not verbs:
        return False
    said = grammar(relation)
    if said.kind == VERB and not said.passive:
        return any(_near(own, before) if by else _near(own, _object(after)) for before, after, by in _verbs(words, said))
    if said.kind == PLACE:
        return any(word == said.preposition and _near(own, words[i + 1:i + 1 + OBJECT_WORDS])
                   for i, word in enumerate(words))
    return False


def said_as_owner(words: list[str], start_words: frozenset[str], relation: str, verbs: bool = True) -> bool:
    """Whether the question (`words`, `object_words`) puts a start bound from `start_words` at
    `relation`'s source: a noun's owner ("<noun> of <start>", within GAP words: "the mentors of
    Jack Steinberger"; "<start>'s <noun>"), or a verb's subject (the start within GAP words before
    it: "What currency does Japan use?", "Where was X born?"), or an active verb's agent ("directed
    by X")."""
    own = _own(start_words)
    if not own:
        return False
    said = grammar(relation)
    if verbs and said.kind == VERB:
        return any(_near(own, after) if by else _near(own, before) for before, after, by in _verbs(words, said))
    if prepositional(relation):
        return False
    parts = [word_stem(w) for w in (said.noun.split() if verbs else relation.lower().split("_"))
             if w.lower() not in FUNCTION_WORDS]
    if not parts:
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


def _own(start_words: frozenset[str]) -> set[str]:
    return {w for w in start_words if w not in FUNCTION_WORDS}


def _near(own: set[str], words: list[str]) -> bool:
    return any(w in own for w in words)


def _object(after: list[str]) -> list[str]:
    """The words that can be an active verb's object: the first two after it (a type's noun may
    come before the name: "directed the film X"), up to a preposition, which starts a phrase of
    its own ("speak in X": X is where, not what is spoken)."""
    taken = []
    for word in after[:OBJECT_WORDS]:
        if word in lexicon.PREPOSITIONS:
            break
        taken.append(word)
    return taken


def _after_preposition(words: list[str], own: set[str], relation: str) -> bool:
    """A verb and its preposition said together, the start within GAP words after: "cited by P"."""
    parts = relation.lower().split("_")
    verb = {word_stem(w) for w in parts[:-1] if w not in FUNCTION_WORDS}
    if not verb:
        return False
    return any(word == parts[-1] and i and word_stem(words[i - 1]) in verb and _near(own, words[i + 1:i + 2 + GAP])
               for i, word in enumerate(words))


def _verbs(words: list[str], said: RelationGrammar):
    """Each place the question says the relation's verb as a verb (a form of its lemma not after
    an article or possessive, which would make it a noun: "the borders of X"): (the GAP words
    before it; the GAP words after it, but for determiners and the words of the relation's name
    after its verb; whether an agent's "by" follows it, of an active verb)."""
    rest = {w.lower() for w in said.rest} | lexicon.DETERMINERS
    for i, word in enumerate(words):
        if word != said.verb and said.verb not in english_lemmas(word).get("VERB", ()):
            continue
        if i and words[i - 1] in NOUN_BEFORE:
            continue
        following = words[i + 1:i + 2 + GAP]
        by = not said.passive and following[:1] == [lexicon.AGENT]  # a passive's own "by" is its preposition
        after = [w for w in following[by:] if w not in rest]
        yield words[max(0, i - GAP):i], after, by


__all__ = ["GAP", "object_words", "said_as_object", "said_as_owner"]
