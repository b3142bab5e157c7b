"""The roles two named things play in the relation a question says joins them ("Did Lev Landau
mentor Alexei Abrikosov?", "Was Paul Karrer a student of Alfred Werner?"). A reading that joins
them reads the relation's edge one way; the question's grammar says which way:

- a relation named by a noun is owned by the thing after "of" or before "'s": "the mentor of
  Y", "Y's mentor" put Y at the edge's source (Y -mentor-> the other);
- that noun said as a verb between the two names ("X mentored Y", "Did X mentor Y?") makes the
  first the second's <noun>: Y -mentor-> X;
- said in the passive with an agent ("Y was trained by X", where "trained" means mentor),
  the agent is the <noun>: Y -mentor-> X;
- the name the graph stores the relation under the other way (`inverse`: mentor -> student)
  says it with the roles turned: "a student of Y" puts Y at the mentor edge's target.

A relation named by a verb in the active (`FOLLOWS`, `DIRECTED`; glm_dspy/readings/relation_grammar.py)
has its subject at the source: each role these rules read turns (`_as_named`). Relations named by
a verb and its preposition (`born_in`, `cited_by`) read "subject <relation> object" and are
glm_dspy/readings/relation_voice.py's. Where the words say no role, none is
asked. Only the roles of named things are read: an asked thing's place ("Who did X mentor?")
moves in a question and is not read here.
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.candidate import PREPOSITIONS, Candidate, prepositional
from glm_dspy.readings.words import word_stem
from glm_dspy.readings.relation_voice import GAP, said_as_owner
from glm_dspy.readings import lexicon
from glm_dspy.readings.relation_grammar import VERB, grammar

ARTICLES = lexicon.ARTICLES
NOUN_BEFORE = lexicon.ARTICLES | lexicon.POSSESSIVES  # "the mentor", "his mentor"
OWNED_AFTER = frozenset({"of", "to", "for"})  # "the mentor of Y", "a mentor to Y"


def owner(words: list[str], start: frozenset[str], relation: str) -> bool:
    """A noun's owner only (relation_voice's rules for a noun): a verb's roles are turned by
    `_as_named` from the rules read as for a noun."""
    return said_as_owner(words, start, relation, verbs=False)


def said_as_verb(words: list[str], subject: frozenset[str], object_: frozenset[str], relation: str,
                 meant: dict[str, set[str]] | None = None) -> bool:
    """Whether the question (lower-case words) says a one-word relation named by a noun as a
    verb between two names: the relation's word, or a word that means it (`meant`: word -> the
    stems of the names it means, "study" -> student), with `subject`'s words within GAP words
    before it and `object_`'s right after it (an article, and a preposition other than "of",
    "to", "for" and "by", aside: "studied under Y"), and neither an article nor a possessive
    before it nor "of" after it (then it is a noun: "the mentor of Y")."""
    if "_" in relation or prepositional(relation):
        return False
    stem_ = word_stem(relation)
    meant = meant or {}
    own = {w for w in subject if w not in FUNCTION_WORDS}
    other = {w for w in object_ if w not in FUNCTION_WORDS}
    if not own or not other:
        return False
    for i, word in enumerate(words):
        if (word_stem(word) != stem_ and stem_ not in meant.get(word, ())) or not i or words[i - 1] in NOUN_BEFORE:
            continue
        after = words[i + 1:i + 4]
        if after[:1] and after[0] in OWNED_AFTER | {"by"}:
            continue
        after = [w for w in after if w not in ARTICLES and w not in PREPOSITIONS]
        if any(w in own for w in words[max(0, i - GAP):i]) and after[:1] and after[0] in other:
            return True
    return False


def source_role(words: list[str], own: frozenset[str], other: frozenset[str], relation: str,
                passive: dict[str, frozenset[str]], inverse: str | None,
                meant: dict[str, set[str]] | None = None) -> bool | None:
    """Whether the question puts the named thing bound from `own` at the source of `relation`'s
    edge (True), at its target (False), or says neither (None), the other named thing bound
    from `other`; `inverse`: the relation's name the other way; `meant`: words that mean a
    name (word -> its stems). Only the words that tell the two apart are read ("Niels Bohr",
    "Aage N. Bohr": niels, aage, n)."""
    own, other = own - other, other - own
    if owner(words, own, relation) or inverse and owner(words, other, inverse):
        return True
    if owner(words, other, relation) or inverse and owner(words, own, inverse):
        return False
    if said_as_verb(words, own, other, relation, meant) or inverse and said_as_verb(words, other, own, inverse, meant):
        return False
    if said_as_verb(words, other, own, relation, meant) or inverse and said_as_verb(words, own, other, inverse, meant):
        return True
    stems = {word_stem(w) for w in relation.split("_")}
    if stems and stems <= passive.keys():
        if all(own & passive[s] for s in stems):
            return False
        if all(other & passive[s] for s in stems):
            return True
    return None


WH = frozenset({"who", "whom", "what", "which"})
DO_SUPPORT = frozenset({"did", "does", "do", "will", "would", "can", "could"})  # "Who did X mentor?": X acts
AUXILIARIES = DO_SUPPORT | {"has", "have", "had", "was", "were", "is", "are"}


def fronted(words: list[str]) -> bool:
    """Whether the question fronts the thing it asks before an auxiliary ("Who did X mentor?",
    "Which laureates did X train?", "Who was X a student of?"): the asked thing is then the
    object of what follows, not its subject ("Who mentored X?")."""
    return bool(words) and words[0] in WH and any(w in AUXILIARIES for w in words[1:3])


def asked_role(words: list[str], own: frozenset[str], relation: str, inverse: str | None,
               meant: dict[str, set[str]] | None = None) -> bool | None:
    """Of a question that fronts the thing it asks (`fronted`), whether the named thing bound
    from `own` is at the source of a one-word relation named by a noun (True), at its target
    (False), or neither is said (None). The noun (or a word that means it) said right after the
    name either stranded before a last "of" ("Who was X the mentor of?") or as a verb with
    nothing after it but a preposition ("Who did X mentor?") makes X the asked thing's <noun>:
    X at the target; the inverse's name so said ("Who was X a student of?", "Who did X study
    under?") puts X at the source; a last "by" is a passive ("Who was X mentored by?"), which
    turns it. A verb needs "did", "does" or a modal before X: "What is the family name of the
    1935 physics laureate?" ends on a noun, not a verb."""
    if not fronted(words) or "_" in relation or prepositional(relation):
        return None
    own = {w for w in own if w not in FUNCTION_WORDS}
    meant = meant or {}
    for name, source in ((relation, False), (inverse, True)):
        if not own or not name or "_" in name:
            continue
        stem_ = word_stem(name)
        for i, word in enumerate(words):
            if word_stem(word) != stem_ and stem_ not in meant.get(word, ()) \
                    or not any(w in own for w in words[max(0, i - GAP - 1):i]):
                continue
            rest = words[i + 1:]
            if rest == ["of"]:
                return source
            if rest == ["by"]:
                return not source
            if words[i - 1] not in NOUN_BEFORE and all(w in PREPOSITIONS for w in rest) \
                    and any(w in DO_SUPPORT for w in words[1:3]):  # not "What is the 1935 physics laureate?"
                return source
    return None


def roles_against(c: Candidate, words: list[str] | None, passive: dict[str, frozenset[str]] | None = None,
                  inverse: dict[str, str] | None = None, meant: dict[str, set[str]] | None = None) -> bool:
    """Whether a reading that joins two starts leaves one of them over a relation named by a noun
    in the role the question does not give it (`source_role`): its path's first hop goes
    forwards (it is the edge's source) where the question puts it at the target, or backwards
    where it puts it at the source; of a reading of one start, the role against the thing the
    question asks, where it fronts it (`asked_role`: "Who did X mentor?" reads X's students)."""
    if words is None or not c.hops and c.join is None:
        return False
    if c.join is None:  # one start: its role against the thing asked
        first = c.hops[0]
        wanted = _as_named(first.relation, asked_role(words, c.start.bound, first.relation,
                                                      (inverse or {}).get(first.relation), meant))
        return wanted is not None and wanted != first.outgoing
    paths = ((c.start, c.hops, c.join[0]), (c.join[0], c.join[1], c.start))
    for start, hops, other in paths:
        if not hops or prepositional(hops[0].relation):
            continue
        relation = hops[0].relation
        wanted = _as_named(relation, source_role(words, start.bound, other.bound, relation, passive or {},
                                                 (inverse or {}).get(relation), meant))
        if wanted is not None and wanted != hops[0].outgoing:
            return True
    return False


def _as_named(relation: str, role: bool | None) -> bool | None:
    """The role a noun's rules read (`source_role`, `asked_role`), for the relation as its name
    is said (glm_dspy/readings/relation_grammar.py): a relation named by a verb in the active
    ("FOLLOWS", "DIRECTED") has its subject at the source, where a noun's ("X mentored Y": Y's
    mentor X) has it at the target, so each role turns ("Who does X follow?": X follows them;
    "Was Y directed by X?": X directed Y)."""
    said = grammar(relation)
    if role is None or said.kind != VERB or said.passive:
        return role
    return not role


__all__ = ["said_as_verb", "source_role", "fronted", "asked_role", "roles_against"]
