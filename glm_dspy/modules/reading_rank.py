"""Ranking a question's readings, best first: the embedder's cosine of each reading's words and
the question, plus how the reading binds the question's words (glm_dspy/modules/reading_fit.py:
hops cost, relations and features the question says earn, in its words, in words it derives or
the bank teaches, or in other words by meaning; schema words, stated values, repeated relation
words and a rank the question asks for that the reading leaves unbound cost; hops said out of
order cost, glm_dspy/modules/word_order.py). The PATHS paths that fit best are kept first (by
their words up to the end's type), then every reading of those is scored, so a question's
hundreds of readings cost a few hundred short embeddings, most of them cached.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

import numpy as np

from glm_dspy.graphs.cypher.candidate import Candidate
from glm_dspy.modules.meant_words import meant_by_word, near_names, open_words
from glm_dspy.readings.absence import absences
from glm_dspy.modules.question_facts import asked_span, passive_words, referred_words, word_stem
from glm_dspy.modules.reading_fit import (RANK_COST, UNSAID_COST, bound_time_unsaid, compared_unsaid, fewer_types,
                                          is_stated, lacks, meets_unsaid, path_fit, repeated, returns_fit,
                                          starts_of_reading, unnamed_time, unsaid, unsaid_detour)
from glm_dspy.readings.relation_voice import object_words
from glm_dspy.modules.schema_words import SchemaWords
from glm_dspy.modules.taught_words import mentions
from glm_dspy.readings.question import read
from glm_dspy.modules.word_order import ORDER_COST, name_end, order_misses, said_after, said_at

PATHS = 24  # paths whose readings are ranked one by one


def rank(question: str, found: list[Candidate], *, embed, vocabulary: SchemaWords, taught: dict[str, tuple[str, bool]],
         levers: frozenset[str], thing: str | None, persons: frozenset[str],
         timed: Callable[[str, str], str | None], scores_out: list[float] | None = None) -> list[Candidate]:
    """`found` (readings of the question's starts), best first. `embed`: the readings'
    EmbeddingCache, texts -> unit vectors (glm_dspy/modules/embedding_cache.py);
    `vocabulary`: the graph's schema words (glm_dspy/modules/schema_words.py); `taught`: the
    words the bank teaches for relations (glm_dspy/modules/taught_words.py); `levers`: those on;
    `thing`: the node type the question asks for; `persons`: the types of people, where it asks
    "who"; `timed`: whether a feature holds a time; `scores_out`: where given, each returned
    reading's score is appended to it, in the same order (the confidence reads them)."""
    if not found:
        return []
    asked_vector = embed([question])[0]
    if vocabulary.names:  # the graph's own texts, which the question's words are compared with: stored
        embed.fixed(vocabulary.names)
    said = Counter(word_stem(w) for w in re.findall(r"[a-z]+", question.lower()))
    literal = said.copy()  # the question's own words, before those said in other words ("won": prize)
    bound = {w for c in found for w in c.bound} | set(taught)  # a word the bank teaches is bound
    words = open_words(question, vocabulary.names, bound)
    meant: dict[str, set[str]] = {}
    if "meant" in levers:  # schema names said in other words ("trained": mentor)
        meant = meant_by_word(words, vocabulary.names, embed, forms="forms" in levers)
        said += Counter(stem_ for stems in meant.values() for stem_ in stems)
    near = near_names(words, vocabulary.names, embed)
    times = vocabulary.time_names
    time_named = bool(near & times) or any(all(said[word_stem(w)] for w in name.split()) for name in times)
    placed = said_at(question, meant, taught,
                     asked_span(question) if "asked-end" in levers and thing else None,
                     frozenset(at for at, _ in referred_words(question)) if "referred" in levers else frozenset()) \
        if "order" in levers else None
    passive: dict[str, frozenset[str]] = {}  # the stem of a relation said in the passive -> its agent's words
    for w, agent in passive_words(question) if "passive" in levers else ():
        for stem_ in {word_stem(w), *meant.get(w, ())}:
            passive[stem_] = passive.get(stem_, frozenset()) | frozenset(agent)
    named = vocabulary.named_back
    inverse = vocabulary.inverse_names if "inverse" in levers else {}

    ops = read(question).operators
    ellipsis = ops.elided

    named_after = {}  # a named start's words -> (what the words after its name say, the names they may say)
    if "meet-order" in levers and ops.meets_in_time:
        every = said_at(question, meant, taught)
        lowered = re.findall(r"[a-z]+", question.lower())
        for c in found:
            if c.meets is not None and c.meets.other.bound not in named_after:
                end = name_end(c.meets.other.bound, every)
                tail = [] if end is None else lowered[end + 1:]
                named_after[c.meets.other.bound] = (said_after(c.meets.other.bound, every),
                                                    near_names(tail, vocabulary.names, embed))

    def misplaced(c: Candidate) -> float:
        """Hops said out of their order outwards from the start; compared times, and times a
        start is bound on, left unsaid."""
        return (ORDER_COST * order_misses(c.start.bound, c.hops, placed, named) if placed is not None else 0.0) \
            + UNSAID_COST * compared_unsaid(c, said, near, ellipsis) \
            + UNSAID_COST * ("time-said" in levers and bound_time_unsaid(c, said, near, timed)) \
            + UNSAID_COST * (c.meets is not None and c.meets.other.bound in named_after
                             and meets_unsaid(c, *named_after[c.meets.other.bound]))

    by_path: dict[str, Candidate] = {}
    for c in found:
        by_path.setdefault(c.path_words(), c)
    paths = list(by_path)
    mentioned = mentions(question, taught)
    voiced = object_words(question) if "voice" in levers else None
    verbs = "verb-voice" in levers  # the relation's grammar says the way of a verb's and a place's hop
    path_scores = embed(paths) @ asked_vector \
        + np.array([path_fit(by_path[p], said, thing, mentioned, persons, named, voiced, passive, inverse,
                                roles=meant if "roles" in levers else None, verbs=verbs)
                    - misplaced(by_path[p])
                    for p in paths])
    kept = {paths[i] for i in np.argsort(-path_scores, kind="stable")[:PATHS]}
    found = [c for c in found if c.path_words() in kept]
    schema_words = vocabulary.stems & set(said) - {word_stem(w) for w in taught}
    # a gap's years are those the start is not in: the words of the event denied ("not awarded") say it
    denied = schema_words & {word_stem(w) for a in absences(read(question)) for w in a.event} \
        if ops.negated else set()
    relation_said = Counter({w: n for w, n in said.items() if w in vocabulary.relation_only}
                            if "repeated" in levers else {})
    if "referred" in levers:  # "... Who did the mentor share it with?": the mentor named before
        relation_said -= Counter(word_stem(w) for _, w in referred_words(question))
    relation_same = Counter(word_stem(w) for w in ops.same_words)
    said_types = Counter({t: n for t in vocabulary.schema.node_types
                          if (n := min(literal[word_stem(w)] for w in t.split("_") if w)) > 1}
                         if "types" in levers else {})
    stated = frozenset().union(*(s.bound for c in found for s in starts_of_reading(c) if is_stated(s))) \
        if "stated" in levers else frozenset()
    superlative = "superlative" in levers and read(question).ranked is not None  # by a number, or the most shared
    ranks = (ops.extreme is not None, ops.most is not None or superlative,
             ops.count_bound is not None and "counted" in levers,
             ops.negated and "absent" in levers,
             ops.compared is not None and "compared" in levers
             or ops.equates and "loops" in levers)
    scores = embed([c.words() for c in found]) @ asked_vector \
        + np.array([path_fit(c, said, thing, mentioned, persons, named, voiced, passive, inverse,
                                roles=meant if "roles" in levers else None, verbs=verbs) + returns_fit(c, said)
                    - UNSAID_COST * (unsaid(c, schema_words - denied if c.gap is not None else schema_words,
                                            mentioned, voiced, inverse, verbs) + len(stated - c.bound)
                                     + repeated(c, relation_said, relation_same, inverse)
                                     + fewer_types(c, said_types))
                    - UNSAID_COST * ("detour" in levers and unsaid_detour(c, said, mentioned))
                    - RANK_COST * ((ranks[0] and c.order is None)
                                   + (ranks[1] and c.group is None and not (superlative and _by_number(c)))
                                   + (ranks[2] and c.counted is None)
                                   + (ranks[3] and c.absent is None and c.gap is None and not lacks(c))
                                   + (ranks[4] and c.loop is None))
                    - misplaced(c) - UNSAID_COST * (not time_named and unnamed_time(c, timed))
                    for c in found])
    order = np.argsort(-scores, kind="stable")
    if scores_out is not None:
        scores_out.extend(float(scores[i]) for i in order)
    return [found[i] for i in order]


def _by_number(c: Candidate) -> bool:
    """Whether the reading ranks by a number (a superlative: "the most populous")."""
    return c.order is not None and c.order.number


__all__ = ["rank", "PATHS"]
