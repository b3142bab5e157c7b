"""How a relation's name is said in English, read from the name's own words (lemminflect):
a noun ("mentor", "birth_city"), a verb with what follows it ("DIRECTED", "BORDERS",
"USES_CURRENCY", "ACTED_IN"), or a preposition and a noun ("IN_COUNTRY").

Why: a question says a relation as its name's part of speech does. "Who was X's mentor?" asks
along a noun; "Who directed X?", "Which countries border X?", "Which currency does X use?" along
verbs, and the subject of a verb is the relation's source. Wording every relation as a noun ("the
BORDERS of Mozambique", "country whose BORDERS it is") reads a verb-named graph wrong, in the
example bank `build` writes (graphs/schema_examples.py) and in the readings' words
(graphs/cypher/candidate.py `words_of`), which the embedder compares with the question.

The rules: the name's first word is a verb where it is an inflected form of a verb (a third
person's "-s", a past or a participle: "borders", "directed"), since a relation named by a noun
is named by its base form ("mentor", "prize"), but a participle before a noun is that noun's
adjective ("born_laureate"); "has" and a noun name that noun ("HAS_CAPITAL": the capital of X); a first word that is a preposition and a noun after it is the noun's place
("IN_COUNTRY": the country X is in). Anything else is a noun.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lemminflect import getAllLemmas, getInflection

from glm_dspy.readings import lexicon

NOUN, VERB, PLACE = "noun", "verb", "place"
PRESENT, PAST, PARTICIPLE = "present", "past", "participle"  # "borders"; "directed"; "born" (no past)
HAVING = "have"  # "has X": the relation is the noun X


@dataclass(frozen=True, slots=True)
class RelationGrammar:
    kind: str  # NOUN, VERB or PLACE
    words: tuple[str, ...]  # the name's words, as the name writes them
    verb: str | None = None  # a VERB's lemma ("direct", "border")
    tense: str | None = None  # a VERB's: PRESENT ("borders"), PAST ("directed") or PARTICIPLE ("born")
    rest: tuple[str, ...] = ()  # what follows a VERB ("currency" of USES_CURRENCY, "in" of ACTED_IN)

    @property
    def noun(self) -> str:
        """A NOUN's words, a PLACE's noun, a VERB's name as said ("mentor", "country", "borders")."""
        if self.kind == PLACE:
            return " ".join(self.words[1:])
        return " ".join(self.words)

    @property
    def preposition(self) -> str | None:
        """A VERB's closing preposition ("in" of ACTED_IN) or a PLACE's opening one."""
        if self.kind == PLACE:
            return self.words[0].lower()
        if self.kind == VERB and self.rest and self.rest[-1].lower() in lexicon.PREPOSITIONS:
            return self.rest[-1].lower()
        return None

    @property
    def passive(self) -> bool:
        """A VERB said of its object's side: a participle only ("born in") or an agent's "by"."""
        return self.kind == VERB and (self.tense == PARTICIPLE or self.preposition == "by")

    def base(self) -> str:
        """A VERB in its base form with what follows it ("border", "use currency", "act in")."""
        return " ".join((self.verb or "", *self.rest)).strip().lower()

    def of_object(self, labels: str) -> str:
        """The relation read backwards, from its target: "country whose capital it is", "person
        that directed it", "person that acted in it", "city in it"."""
        if self.kind == PLACE:
            return f"{labels} {self.words[0]} it"
        if self.kind == VERB:
            if self.passive:  # "person born in it"
                return f"{labels} {' '.join(self.words)} it"
            said = " ".join(self.words if self.preposition else self.words[:1])
            return f"{labels} that {said} it"
        if self.words[-1].lower() in lexicon.PREPOSITIONS:  # "part of": "region part of it"
            return f"{labels} {self.noun} it"
        return f"{labels} whose {self.noun} it is"


def grammar(relation: str) -> RelationGrammar:
    """The grammar of a relation's name (`mentor`, `BORDERS`, `USES_CURRENCY`, `IN_COUNTRY`)."""
    return _grammar(relation)


@functools.lru_cache(maxsize=4096)
def _grammar(name: str) -> RelationGrammar:
    words = tuple(w for w in re.split(r"[_\s-]+", name) if w)
    if not words:
        return RelationGrammar(NOUN, (name,))
    first, rest = words[0].lower(), words[1:]
    if first in lexicon.PREPOSITIONS and rest:
        return RelationGrammar(PLACE, words)
    tense = _inflected_verb(first)
    if tense is not None:
        lemma = getAllLemmas(first)["VERB"][0]
        if lemma == HAVING and rest:  # "has capital": the capital
            return RelationGrammar(NOUN, rest)
        if tense == PARTICIPLE and rest and rest[0].lower() not in lexicon.PREPOSITIONS:
            return RelationGrammar(NOUN, words)  # a participle before a noun is its adjective: "born laureate"
        return RelationGrammar(VERB, words, lemma, tense, rest)
    return RelationGrammar(NOUN, words)


def _inflected_verb(word: str) -> str | None:
    """PRESENT where `word` is a verb's third person ("borders"), PAST where its past (and maybe
    its participle: "directed"), PARTICIPLE where its participle only ("born"), None where it is
    no inflected verb ("mentor", "student")."""
    lemmas = getAllLemmas(word).get("VERB", ())
    for lemma in lemmas:
        if lemma == word:
            continue
        if word in getInflection(lemma, tag="VBZ"):
            return PRESENT
        if word in getInflection(lemma, tag="VBD"):
            return PAST
        if word in getInflection(lemma, tag="VBN"):
            return PARTICIPLE
    return None


__all__ = ["NOUN", "PARTICIPLE", "PAST", "PLACE", "PRESENT", "VERB", "RelationGrammar", "grammar"]
