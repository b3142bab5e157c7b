"""`read(question) -> Question`: what a question asks, read once from its words.

The class of questions served: every question, in any register a user writes ("What year was X
born?", "x birth year", "hey, do you know how old X was when ...", "Name a student of X"). What
it reads: the kind of value asked (a person, a place, a time and its unit, an age or a span of
time, a count, a number, yes or no, a thing a noun names), and whether the question offers two
things to compare ("Who was older, X or Y?"). Everything is read off the question's words and
lemmas (glm_dspy/readings/words.py) with the lexicon's English (glm_dspy/readings/lexicon.py);
no graph is needed, so one reading serves every graph. The schema's side (which type or relation
a noun names) is glm_dspy/readings/answer_type.py's.

The main question is the first clause (between commas) that opens as a question opens, after a
request ("Could you tell me ...", "I'd like to know ...") or greeting is left out: "In the year X
won, who won ...?" asks "who".
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from lemminflect import getAllLemmas

import glm_dspy.readings.lexicon as en
from glm_dspy.readings.operators import Operators, operators
from glm_dspy.readings.words import Word, english_lemmas, words_of

# the kinds of value a question asks for
PERSON, PLACE, TIME, YEAR, MONTH, DECADE, DATE = "person", "place", "time", "year", "month", "decade", "date"
AGE, SPAN, COUNT, NUMBER, YES_NO, CHOICE, THING = "age", "span", "count", "number", "yes/no", "choice", "thing"
NAME = "name"  # of `Question.kind`: a name, never a time or a number ("who", "where", "which country")
TIMES = frozenset({TIME, YEAR, MONTH, DECADE, DATE})  # a time, of a unit or any
DURATIONS = frozenset({AGE, SPAN})  # a difference of two times
EARLIER, LATER, LARGER, SMALLER = "earlier", "later", "larger", "smaller"  # which of two, by a value

_UNIT_KIND = {en.YEAR: YEAR, en.DATE: DATE, en.MONTH: MONTH, en.DECADE: DECADE}


@dataclass(frozen=True, slots=True)
class Ranked:
    """A superlative by a value the things have ("the most populous city", "the second-largest",
    "the three biggest", "the least populous"): the largest first where `larger`, the `nth` from
    that end and the `top` of them from there; `said` is the lemma of the adjective that says the
    value ("populous", "large"), `noun` that of the noun naming what is ranked, where it says one
    ("the biggest city": city; "the most employees": employee). Which value it is, is the readings' to say. A superlative of
    time ("the oldest", "the most recent") is an order in time, not this (`Operators.extreme`)."""
    larger: bool
    said: str
    nth: int = 1
    top: int = 1
    noun: str | None = None  # the lemma of the noun it ranks ("the biggest city": city), where one follows
    adjective: bool = True  # said by an adjective ("most populous"), not "most" before a noun ("most employees")


@dataclass(frozen=True, slots=True)
class Question:
    text: str
    words: tuple[Word, ...]
    asked: str | None  # one of the kinds above; None where the words do not say
    noun: str | None = None  # the lemma of the noun naming what is asked ("which currency": currency)
    unit: str | None = None  # of a SPAN: the unit of time it is counted in (lexicon.YEAR, ...)
    compare: str | None = None  # EARLIER, LATER, LARGER or SMALLER: which of the two things offered
    offered: tuple[str, str] | None = None  # the two things a question offers ("X or Y"), as written
    main: tuple[int, int] = (0, 0)  # the main question's words, words[main[0]:main[1]]
    ranked: "Ranked | None" = None  # a superlative of a value: "the most populous", "the three biggest"
    operators: Operators = field(default_factory=Operators)  # what to do with the values read (operators.py)
    chosen: bool = False  # the thing asked is named right after "which"/"what" ("which currency"), a kind of node

    @property
    def kind(self) -> str | None:
        """What a reading's values must be to answer, coarsely: COUNT, DATE (any time: a date or a
        year), YES_NO, NAME (a person, a place, a thing "which <noun>" chooses: a name, unless the
        noun names a feature, "which country code": glm_dspy/modules/readings.py), or
        None where that is not so plain (an age, a span, a number, a choice offered, "what is the
        <noun> of", which may be a number: the schema's nouns say, answer_type.py)."""
        if self.asked in TIMES:
            return DATE
        if self.asked in (PERSON, PLACE) or self.asked == THING and self.chosen:
            return NAME
        return self.asked if self.asked in (COUNT, YES_NO) else None

    @property
    def asks_time(self) -> bool:
        return self.asked in TIMES

    @property
    def asks_duration(self) -> bool:
        return self.asked in DURATIONS


@functools.lru_cache(maxsize=4096)
def read(question: str) -> Question:
    """What `question` asks (module doc); read once a text, kept for the text's next reader."""
    words = words_of(question)
    start, end = _main_clause(words)
    main = words[start:end]
    asked, noun, unit = _asked(main)
    offered = _offered(question, words, start, end)
    compare = _compare(main) if offered is not None else None
    if asked == YES_NO and offered is not None:
        asked = CHOICE
    ranked = _ranked(words) if offered is None else None  # of two offered, a comparison (`_compare`)
    return Question(question, words, asked, noun, unit, compare, offered, (start, end), ranked, operators(words),
                    _chooses(main))


def _chooses(main: tuple[Word, ...]) -> bool:
    """Whether "which"/"what" opens the clause with the noun of the thing asked right after it
    ("Which currency ...", "In what city ..."), not a verb ("What is ...")."""
    at = _past_prepositions(main, 0, len(main))
    return at + 1 < len(main) and main[at].text in en.CHOOSING_WH and main[at + 1].text.isalpha() \
        and main[at + 1].text not in en.AUXILIARIES and not main[at + 1].is_(en.POSSESSING)


def _main_clause(words: tuple[Word, ...]) -> tuple[int, int]:
    """(start, end) of the main question: past greetings and a request, the first clause that
    opens as a question does, else the first clause."""
    at = _past_request(words, 0)
    clauses, begin = [], at
    for i in range(at, len(words) + 1):
        if i == len(words) or words[i].text in en.CLAUSE_MARKS or words[i].text == "?":
            if i > begin:
                clauses.append((begin, i))
            begin = i + 1
    for n, (begin, end) in enumerate(clauses):
        first = _past_request(words, begin)
        if first < end and (first > begin or n == 0 and at > 0):  # what a request asks: "Can you tell me the ..."
            return first, end
        if first < end and _opens_question(words, first, end) \
                and not (_subordinate(words, first, end) and n + 1 < len(clauses)):
            return first, end
    # none opens as a question does: from the first question word on ("X collaborated with how many ...")
    # ("when", "where", "who" inside a clause are mostly relative: "affiliated with when receiving")
    return next(((begin if all(w.text in en.CLAUSE_MARKS for w in words[i + 1:end]) else i, end)  # "X is what?"
                 for begin, end in clauses for i in range(begin, end) if words[i].text in en.CHOOSING_WH | {en.HOW}),
                clauses[0] if clauses else (at, len(words)))


def _asking(word: Word) -> bool:
    return word.text in en.PERSON_WH | en.PLACE_WH | en.TIME_WH | en.CHOOSING_WH | {en.HOW}


def _subordinate(words: tuple[Word, ...], at: int, end: int) -> bool:
    """Whether the clause at `at` leads another ("When X won his prize, was his mentor alive?"):
    it opens with a subordinating word and no auxiliary follows ("When was X born, and where?"
    asks when)."""
    return words[at].text in en.SUBORDINATORS and at + 1 < end and words[at + 1].text not in en.AUXILIARIES


def _past_request(words: tuple[Word, ...], at: int) -> int:
    """The first word after greetings and a request at `at` ("hey, could you tell me ...")."""
    while at < len(words) and (words[at].text in en.GREETINGS or words[at].text in en.CLAUSE_MARKS):
        at += 1
    texts = [w.text for w in words[at:at + 6]]
    if len(texts) >= 3 and texts[0] in en.ASKING_AUX and texts[1] == "you":
        i = 2 + (texts[2] == "please")
        # a telling verb, or a word English does not know before "me" or "us" (a typo: "teell me")
        if i < len(texts) and (words[at + i].is_(en.TELLING_VERBS) or not english_lemmas(texts[i])
                               and texts[i + 1:i + 2] in (["me"], ["us"])):
            i += 1
            while i < len(texts) and texts[i] in en.PRONOUNS | {"about", "know"}:
                i += 1
            return at + i
    if len(texts) >= 3 and texts[0] in ("do", "does") and texts[1] == "you":
        i = 2 + (texts[2:4] == ["happen", "to"]) * 2
        if i < len(texts) and words[at + i].is_(en.KNOWING_VERBS):
            return at + i + 1
    if texts[:1] == ["i"]:  # "I wonder ...", "I'd like to know ...", "I want to know ..."
        i = 1
        while i < len(texts) and (texts[i] in ("would", "d", "'d", "really") or words[at + i].is_(en.WANTING_VERBS)
                                  or texts[i] == "to"):
            i += 1
        if i < len(texts) and words[at + i].is_(en.KNOWING_VERBS):
            return at + i + 1
    return at


def _opens_question(words: tuple[Word, ...], at: int, end: int) -> bool:
    past = _past_prepositions(words, at, end)
    if past >= end:
        return False
    if past > at:  # after a preposition only a question word asks: "In which year ...", not "To be ..."
        return _asking(words[past])
    text = words[at].text
    return _asking(words[at]) or text in en.AUXILIARIES or text in en.IMPERATIVES or text in ("if", "whether")


def _past_prepositions(words: tuple[Word, ...], at: int, end: int) -> int:
    while at < end and words[at].text in en.PREPOSITIONS:
        at += 1
    return at


def _asked(main: tuple[Word, ...]) -> tuple[str | None, str | None, str | None]:
    """(kind, noun, unit) the main clause asks for: as it opens (`_opening`); a thing that is a
    number of others ("What is the number of X?", "the count of X") asks how many of them; a
    clause that opens as no question does, but says "how many" ("X is divided into how many
    provinces?"), asks how many."""
    kind, noun, unit = _opening(main)
    at = next((i for i, w in enumerate(main[:-1]) if w.is_(en.COUNT_NOUNS) and main[i + 1].text == "of"), None)
    counted = kind == THING and (noun in en.COUNT_NOUNS or at and main[at - 1].is_({noun}))  # "the total count of"
    if at is not None and (kind is None or counted):
        return COUNT, _noun(main[at + 2:]), None  # "the number of X", "the total count of X"
    if kind in (None, YES_NO):  # "... has been judged in how many courts?"
        how = next((i for i, w in enumerate(main[:-1])
                    if w.text == en.HOW and main[i + 1].text in en.QUANTITY_AFTER_HOW), None)
        if how is not None:
            return _opening(main[how:])
    return kind, noun, unit


def _opening(main: tuple[Word, ...]) -> tuple[str | None, str | None, str | None]:
    """(kind, noun, unit) the words that open the clause ask for."""
    at = _past_prepositions(main, 0, len(main))
    if at >= len(main):
        return None, None, None
    first, rest = main[at], main[at + 1:]
    if first.text in ("if", "whether"):
        return YES_NO, None, None
    if first.text in en.PERSON_WH:
        return PERSON, None, None
    if first.text in en.PLACE_WH:
        return PLACE, None, None
    if first.text in en.TIME_WH:
        return TIME, None, None
    if first.text == en.HOW and rest:
        after = rest[0]
        if after.text in en.QUANTITY_AFTER_HOW:
            noun = _noun(rest[1:])
            if noun in en.TIME_UNITS:
                return SPAN, None, en.TIME_UNITS[noun]
            return (COUNT if after.text == "many" else NUMBER), noun, None
        if after.is_(en.AGE_AFTER_HOW):
            return AGE, None, None
        if after.is_(en.SPAN_AFTER_HOW):
            return SPAN, None, en.YEAR
        return NUMBER, None, None  # "how big", "how tall"
    if first.text in en.CHOOSING_WH:
        if rest and rest[0].is_(en.POSSESSING):  # "which has the largest population": the thing that has it
            return THING, None, None
        if rest and (rest[0].text in en.AUXILIARIES or rest[0].text == "'s"):  # "what is", "what's"
            tail = rest[1:]
            if tail and tail[0].text in en.DETERMINERS:  # "What is the capital of Peru?"
                return _of_noun(_noun(tail))
            return _of_noun(_last_noun(tail))  # "What was Marie Curie's birth date?": the noun that ends it
        return _of_noun(_noun(rest, adjacent=True, owner=True))  # "What year ...", "Which currency ..."
    if first.text in en.AUXILIARIES:
        return YES_NO, None, None
    if first.text in en.IMPERATIVES:
        return _of_noun(_noun(rest))
    if first.text in en.DETERMINERS:  # what a request asks for: "(I'd like to know) the capital of France"
        return _of_noun(_noun(main[at:]))
    for word in main:  # a terse question ("marie curie birth year"): a unit of time or an age it says
        if word.is_(set(en.TIME_UNITS)) or word.is_(en.AGE_NOUNS):
            return _of_noun(next(iter(word.lemmas & (set(en.TIME_UNITS) | en.AGE_NOUNS))))
    return None, None, None


def _of_noun(noun: str | None) -> tuple[str | None, str | None, str | None]:
    if noun is None:
        return THING, None, None
    if noun in en.AGE_NOUNS:
        return AGE, None, None
    if noun in en.TIME_UNITS:
        return _UNIT_KIND[en.TIME_UNITS[noun]], None, None
    return THING, noun, None


def _noun(words: tuple[Word, ...], adjacent: bool = False, owner: bool = False) -> str | None:
    """The lemma of the noun naming the thing, after determiners (and, unless `adjacent`,
    pronouns: "give me the ..."): of the nouns lemminflect knows before an auxiliary verb, the
    last (a compound's head); else the first. A possessive ("X's Y") names Y, but where `owner`
    (right after "which/what": "Which laureate's name is ...?") X, the thing asked."""
    if words and words[0].text == "one":  # "which one ...": the thing named before, no noun of its own
        return None
    i = 0
    while i < len(words) and (words[i].text in en.DETERMINERS or not adjacent and words[i].text in en.PRONOUNS):
        i += 1
    nouns = []  # the nouns of the phrase, in order
    for k, word in enumerate(words[i:i + 4], i):
        if k + 1 < len(words) and words[k + 1].text == "'s":
            if owner:  # "Which laureate's full name is X?": the owner is asked, its name states it
                return _noun_lemma(word)
            return _noun(words[k + 2:], adjacent=True)  # "What is that country's capital?": the capital
        if word.text in en.PRONOUNS:  # "which US state" (us): not the noun
            continue
        if k > i and word.text in en.RELATIVES:  # "compounds that are ...": a clause of its own
            break
        if word.text in en.AUXILIARIES:  # "Which country code do I dial?": a compound's head is its last noun
            return nouns[-1] if nouns else None
        if word.text in en.PREPOSITIONS or not word.text.isalpha():
            break
        heads = k + 1 < len(words) and words[k + 1].text == "of" \
            and word.text in english_lemmas(word.text).get("NOUN", ())
        if (word.degree or word.text in en.ORDINAL_DEGREE) and not heads \
                or word.text in en.NUMBER_WORDS or word.text.isdigit():
            continue  # "which came first", "the three biggest cities": not the noun; "the number of" is one
        noun = _noun_lemma(word)
        if noun is not None:
            nouns.append(noun)
    return nouns[0] if nouns else None  # no verb ends the phrase: its first noun ("Which films star X?")


def _last_noun(words: tuple[Word, ...]) -> str | None:
    tail = [w for w in words if w.text.isalpha() and w.text not in en.PREPOSITIONS]
    return _noun_lemma(tail[-1]) if tail else None


def _noun_lemma(word: Word) -> str | None:
    nouns = getAllLemmas(word.text).get("NOUN")
    if nouns:
        return nouns[0]
    return None


def _offered(question: str, words: tuple[Word, ...], start: int, end: int) -> tuple[str, str] | None:
    """The two things "X or Y" offers at the end of the question ("..., Marie Curie or Niels
    Bohr?"), as written: the words before "or" back to a clause mark, the main clause's verb, a
    comparative or an indefinite article ("a man or a woman": kinds; "the" begins a title) and
    those after it; None where the question offers none."""
    ors = [i for i, w in enumerate(words) if w.text == en.CHOICE]
    if len(ors) != 1:
        return None
    at = ors[0]
    left = at
    while left > 0 and words[left - 1].text not in en.CLAUSE_MARKS | en.AUXILIARIES | en.INDEFINITE \
            and not (words[left - 1].degree or words[left - 1].text in en.ORDINAL_DEGREE):
        left -= 1
    right = at + 1
    while right < len(words) and words[right].text not in en.CLAUSE_MARKS | {"?"}:
        right += 1
    if left == at or right == at + 1:
        return None
    first = question[words[left].start:words[at - 1].end].strip()
    second = question[words[at + 1].start:words[right - 1].end].strip()
    for article in en.INDEFINITE:  # "a physics or a chemistry prize": the kinds, not their articles
        if second.lower().startswith(article + " "):
            second = second[len(article) + 1:]
    return first, second


def _ranked(words: tuple[Word, ...]) -> Ranked | None:
    """The first superlative of a value: an adjective's superlative form ("largest", "biggest")
    or "most"/"least" before an adjective or a noun ("most populous", "the most employees"),
    but one of time or of how often ("the most common"); an ordinal before it counts
    from that end ("second-largest"), a number the top of them ("the three biggest", "top 5")."""
    for i, word in enumerate(words):
        if word.text in (en.MOST, en.LEAST) and i + 1 < len(words) and words[i + 1].text.isalpha() \
                and not words[i + 1].degree and words[i + 1].text not in en.CLOSED_CLASS:
            # "most populous"; "the most employees": a number the things have, or (the readings
            # say which) the value the most of them share
            adjective = _adjective(words[i + 1]) is not None and _noun_lemma(words[i + 1]) is None
            said = _adjective(words[i + 1]) if adjective else _noun_lemma(words[i + 1]) or words[i + 1].text
            larger = word.text == en.MOST
        elif word.degree == "superlative" and word.text not in (en.MOST, en.LEAST):
            said, adjective = _adjective(word), True
            larger = not word.is_(en.SMALLER_WORDS)
        else:
            continue
        if said is None or said in en.EARLIER_WORDS | en.LATER_WORDS | en.FREQUENCY_WORDS:
            continue  # a time: the first or the last; how often: the value the most share
        nth, top = 1, 1
        for before in words[max(0, i - 2):i]:
            if before.text in en.ORDINALS:
                nth = en.ORDINALS[before.text]
            elif before.text in en.CARDINALS:
                top = en.CARDINALS[before.text]
            elif before.text.isdigit() and 1 < int(before.text) <= 100:
                top = int(before.text)
        after = i + 2 if word.text in (en.MOST, en.LEAST) else i + 1
        noun = next((lemma for w in words[after - (word.text in (en.MOST, en.LEAST)):after + 2]
                     if w.text.isalpha() and w.text not in en.CLOSED_CLASS and (lemma := _noun_lemma(w))), None)
        return Ranked(larger, said, nth, top, noun, adjective)
    return None


def _adjective(word: Word) -> str | None:
    """The lemma of an adjective's word ("largest": large), None where it is no adjective."""
    lemmas = english_lemmas(word.text).get("ADJ")
    return lemmas[0] if lemmas else None


def _compare(main: tuple[Word, ...]) -> str | None:
    """Which of two offered things: by an earlier or later time, or a larger or smaller value,
    as a comparative ("older", "larger") or an ordinal ("first") in the main clause says."""
    for word in main:  # a comparative compares two; a superlative ("the most") ranks many
        if not (word.degree == "comparative" or word.text in en.ORDINAL_DEGREE):
            continue
        for words, direction in ((en.EARLIER_WORDS, EARLIER), (en.LATER_WORDS, LATER),
                                 (en.LARGER_WORDS, LARGER), (en.SMALLER_WORDS, SMALLER)):
            if word.is_(words):
                return direction
    return None


__all__ = ["Question", "Ranked", "read", "NAME", "PERSON", "PLACE", "TIME", "YEAR", "MONTH", "DECADE", "DATE", "AGE",
           "SPAN", "COUNT", "NUMBER", "YES_NO", "CHOICE", "THING", "TIMES", "DURATIONS", "EARLIER", "LATER", "LARGER",
           "SMALLER"]
