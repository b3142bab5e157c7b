"""The words a graph's example bank teaches for its relations, as the readings use them: which
relation (and which way) a question word says, and how often a question says each relation
(glm_dspy/modules/relation_words.py learns the words)."""

from __future__ import annotations

import re
from collections import Counter

from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.modules.text2cypher.examples import default_examples_path, read_examples
from glm_dspy.graphs.triples import INVERSE_PREFIX


def taught_words(graph, words: RelationWords | None = None) -> dict[str, tuple[str, bool]]:
    """word -> the (relation, outgoing) the graph's bank teaches it for ("darling" -> spouse),
    where the bank shows its questions spell their paths (`RelationWords.usable`); `words`: those
    already learned (Text2Cypher's), else learned from the graph's bank. A triples graph's
    inverse relation is read as its relation backwards, as readings take it."""
    if words is None:
        path = default_examples_path(graph)
        examples = read_examples(path) if path is not None else []
        words = RelationWords.learn(examples, graph.schema.relations) if examples else None
    if words is None or not words.usable:
        return {}
    return {word: _forwards(relation, outgoing, graph.schema.relations)
            for word, (relation, outgoing) in words.words.items()}


def mentions(question: str, taught: dict[str, tuple[str, bool]]) -> Counter:
    """How often the question says each relation in words the bank teaches for it (a run of
    words taught for one relation is one mention: "other half")."""
    found: Counter = Counter()
    previous = None
    for word in re.findall(r"[a-z]+", question.lower()):
        relation = taught.get(word)
        if relation is not None and relation != previous:
            found[relation] += 1
        previous = relation
    return found


def _forwards(relation: str, outgoing: bool, relations) -> tuple[str, bool]:
    """A triples graph's `inv_r` taken forwards is `r` taken backwards: readings never take the
    inverse (`glm_dspy.graphs.cypher.candidates.inverse_relations`)."""
    if relation.startswith(INVERSE_PREFIX) and relation[len(INVERSE_PREFIX):] in relations:
        return relation[len(INVERSE_PREFIX):], not outgoing
    return relation, outgoing
