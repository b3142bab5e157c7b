"""What a question asks to do with the values it reads, from its words (glm_dspy/readings/words.py)
and the lexicon's English (glm_dspy/readings/lexicon.py); `read()` (glm_dspy/readings/question.py)
builds them once a question, as `Question.operators`.

The classes of questions served, each an operator of the readings: the one end of an order
("the first", "the most recent": `extreme`), the value most things share ("in which month were
the most ... born": `most`), arithmetic ("the average", "the total prize money": `arithmetic`),
a bound on how many ("more than one", "at least two", "alone": `count_bound`), a complement
("never won", "without a mentor": `negated`), a comparison of a thing with its own ("born in
the same city as their mentor", "before their mentor did": `refers_back`, `equates`,
`compared`, `elided`), a time shared with another ("in the year X won": `meets_in_time`), a
relation said after "same" (`same_words`), and things listed together (`coordinated`). Which
values they apply to is the readings' to say; nothing here knows a graph.
"""

from __future__ import annotations

from dataclasses import dataclass

import glm_dspy.readings.lexicon as en
from glm_dspy.readings.words import Word, words_of

MARKS = en.CLAUSE_MARKS | {"?"}


@dataclass(frozen=True, slots=True)
class Operators:
    extreme: bool | None = None  # False: the first of an order; True: the last; None: neither (or both)
    most: bool | None = None  # True: the value the most things share; False: the fewest
    arithmetic: str | None = None  # "avg" or "sum"
    count_bound: tuple[str, int] | None = None  # ("op", n): how many things something has
    negated: bool = False  # asks for what is not so (a yes/no question's "not" asks no complement)
    refers_back: bool = False  # speaks of what it asks about again ("their", "his")
    says_same: bool = False  # "same": one thing's value is compared with another's
    compared: str | None = None  # "<" or ">": ordered against its own ("before their mentor did")
    elided: bool = False  # the comparison leaves out its verb ("... before their mentor did")
    meets_in_time: bool = False  # tied to a time another thing has ("in the year X won")
    same_words: tuple[str, ...] = ()  # the words right after "same" ("the same mentor": mentor)
    words: frozenset[str] = frozenset()  # the words that say an operator, not a value ("the first")
    counts: bool = False  # says "how many", "the number of"
    yes_no: bool = False  # opens as a yes/no question does ("Is ...", "Did ...")

    @property
    def equates(self) -> bool:
        """Asks that what it asks about share something with its own ("born in the same city as
        their mentor"): a reading must meet on a node (a loop) to answer it."""
        return self.refers_back and self.says_same


def operators(words: tuple[Word, ...]) -> Operators:
    texts = tuple(w.text for w in words)
    said: set[str] = set()
    counts = any(_at(texts, phrase) is not None for phrase in en.COUNTING_PHRASES)
    opening = next((t for t in texts if t not in MARKS), None)
    yes_no = opening in en.YES_NO_OPENINGS
    refers_back = any(t in en.REFERRING_BACK for t in texts)
    before = any(_free(words, _at(texts, p), len(p)) for p in en.BEFORE_PHRASES)
    after = any(_free(words, _at(texts, p), len(p)) for p in en.AFTER_PHRASES)
    return Operators(
        extreme=_extreme(words, said), most=_most(words, said), arithmetic=_arithmetic(words, said, counts),
        count_bound=_count_bound(words), negated=any(t in en.NEGATIONS for t in texts) and not yes_no,
        refers_back=refers_back, says_same=any(_free(words, i, 1) for i, t in enumerate(texts) if t == en.SAME),
        compared=("<" if before else ">" if after else None) if refers_back else None,
        elided=_elided(words), meets_in_time=_meets_in_time(words),
        same_words=tuple(texts[i + 1] for i, t in enumerate(texts[:-1])
                         if t == en.SAME and texts[i + 1].isalpha() and not words[i + 1].joined),
        words=frozenset(said), counts=counts, yes_no=yes_no)


def _at(texts: tuple[str, ...], phrase: tuple[str, ...], start: int = 0) -> int | None:
    """Where the words `phrase` first stand in `texts` from `start`, or None."""
    n = len(phrase)
    return next((i for i in range(start, len(texts) - n + 1) if texts[i:i + n] == phrase), None)


def _free(words: tuple[Word, ...], at: int | None, n: int) -> bool:
    """Whether the `n` words at `at` stand on their own, no part of a hyphenated compound
    ("buy-after-viewing" says no "after")."""
    return at is not None and not words[at].joined and not (at + n < len(words) and words[at + n].joined)


def _extreme(words: tuple[Word, ...], said: set[str]) -> bool | None:
    """The first (False) or the last (True) of an order: "first" (not "first name"), "initial", a
    superlative of an earlier time ("earliest", "oldest"); "last", "final", a superlative of a
    later time ("latest", "youngest", "newest"), "most recent(ly)"."""
    first = last = False
    for i, w in enumerate(words):
        after = words[i + 1] if i + 1 < len(words) else None
        if w.text in en.FIRST_WORDS and not (after and after.is_(en.NAME_NOUNS)) \
                or w.degree == "superlative" and w.is_(en.EARLIER_WORDS):
            first = True
            said.add(w.text)
        elif w.text in en.LAST_WORDS or w.degree == "superlative" and w.is_(en.LATER_WORDS):
            last = True
            said.add(w.text)
        elif w.text == en.MOST and after and (after.is_(en.LATER_WORDS) or after.text in en.RECENTLY):
            last = True
            said.update((w.text, after.text))
    if first and last:
        return None
    return True if last else False if first else None


def _most(words: tuple[Word, ...], said: set[str]) -> bool | None:
    """The value the most things share (True: "the most", "the largest number of") or the fewest
    (False: "the fewest", "the least", "the smallest number of"); not a bound ("at least two")
    nor a time ("the most recent")."""
    most = fewest = False
    for i, w in enumerate(words):
        before = words[i - 1].text if i else None
        after = words[i + 1] if i + 1 < len(words) else None
        if before == en.AT and w.text in (en.MOST, en.LEAST):
            said.add(w.text)  # a bound: `_count_bound`
            continue
        if w.text in en.FEWEST_WORDS or w.degree == "superlative" and w.is_(en.SMALL) \
                and after and after.is_(en.COUNT_NOUNS):
            fewest = True
            said.update((w.text,) + ((after.text,) if w.text not in en.FEWEST_WORDS else ()))
        elif w.text == en.MOST and not (after and (after.is_(en.LATER_WORDS) or after.text in en.RECENTLY)) \
                or w.degree == "superlative" and w.is_(en.SHARED_COUNT_WORDS) and after and after.is_(en.COUNT_NOUNS):
            most = True
            said.update((w.text,) + ((after.text,) if w.text != en.MOST else ()))
    return False if fewest else True if most else None


def _arithmetic(words: tuple[Word, ...], said: set[str], counts: bool) -> str | None:
    """"avg" for an average, a median or "the mean" (not "what does X mean"); "sum" for a sum or a
    total, where the question counts nothing ("how many ... in total", "the total number of")."""
    found = None
    for i, w in enumerate(words):
        before = words[i - 1].text if i else None
        after = words[i + 1].text if i + 1 < len(words) else None
        if w.text in en.AVERAGE_WORDS or w.text == en.MEAN and (before in en.ARTICLES | en.REFERRING_BACK)\
                and after not in ("by", "that", "to"):
            found = "avg"
            said.update((w.text,) + ((before,) if w.text == en.MEAN else ()))
        elif w.text in en.SUM_WORDS and not (after and words[i + 1].is_(en.COUNT_NOUNS)):
            found = found or ("sum" if not counts else None)
            said.add(w.text)
    return found


# a count's bound, in the order they are tried: (words before the number, words after it, op)
_BOUNDS = (((("no", "not"), ("more",), ("than",)), (), "<="),
           (((en.AT,), (en.MOST,)), (), "<="),
           ((("more", "greater"), ("than",)), (), ">"),
           ((("fewer", "less"), ("than",)), (), "<"),
           (((en.AT,), (en.LEAST,)), (), ">="),
           ((), (("or",), ("more",)), ">="),
           (((("exactly",),)), (), "="),
           ((), (tuple(en.DISTINCT_WORDS),), ">="))


def _count_bound(words: tuple[Word, ...]) -> tuple[str, int] | None:
    """The bound on how many: "more than one" (">", 1), "two different countries", "at least 2"
    (">=", 2), "multiple", "twice", "more than once" (">=", 2), "alone", "on her own" ("=", 1), a
    question that ends on something had ("... also had a mentor?": (">=", 1)); None. A number
    before "thousand", "million" is an amount, not a bound (glm_dspy/readings/amounts.py)."""
    texts = tuple(w.text for w in words)
    for before, after, op in _BOUNDS:
        for i, t in enumerate(texts):
            n = _small_number(texts, i)
            if n is None or i < len(before) or len(texts) - i - 1 < len(after):
                continue
            if all(texts[i - len(before) + k] in options for k, options in enumerate(before)) \
                    and all(texts[i + 1 + k] in options for k, options in enumerate(after)):
                return op, n
    if any(t in en.SEVERAL_WORDS for t in texts) or _at(texts, ("more", "than", "once")) is not None:
        return ">=", 2
    if any(t in en.ALONE_WORDS for t in texts) or _at(texts, ("single", "handedly")) is not None \
            or any(_at(texts, ("on", p, "own")) is not None for p in ("his", "her", "their")):
        return "=", 1
    return (">=", 1) if _ends_on_had(texts) else None


def _small_number(texts: tuple[str, ...], i: int) -> int | None:
    t = texts[i]
    if not (t.isdigit() or t in en.SMALL_NUMBERS) or i + 1 < len(texts) and texts[i + 1] in en.SCALES:
        return None
    return int(t) if t.isdigit() else en.SMALL_NUMBERS[t]


def _ends_on_had(texts: tuple[str, ...]) -> bool:
    """ "... had a mentor?", "... has any Nobel laureate as a mentor?": had, "a"/"an"/"any", one
    or two words, and "as" with a determiner and a word, then "?" ends the question."""
    if len(texts) < 4 or texts[-1] != "?":
        return False
    for i in range(len(texts) - 4, -1, -1):
        if texts[i] in ("had", "has", "have") and texts[i + 1] in ("a", "an", "any"):
            rest = texts[i + 2:-1]
            if not all(t.isalpha() for t in rest):
                return False
            if len(rest) > 3 and rest[-3] == "as" and rest[-2] in en.ARTICLES | en.REFERRING_BACK:
                rest = rest[:-3]
            return 1 <= len(rest) <= 2
    return False


def _elided(words: tuple[Word, ...]) -> bool:
    """The comparison ends on its verb ("won before their own mentor did"), no clause between."""
    texts = tuple(w.text for w in words)
    end = len(texts) - (bool(texts) and texts[-1] in (".", "?", "!"))
    if end < 2 or texts[end - 1] not in en.ELIDED_VERBS:
        return False
    for phrase in en.BEFORE_PHRASES + en.AFTER_PHRASES:
        at = _at(texts, phrase)
        while at is not None:
            gap = texts[at + len(phrase):end - 1]
            if at + len(phrase) <= end - 1 and _free(words, at, len(phrase)) \
                    and not any(t in {".", "?", "!", ";", ","} for t in gap):
                return True
            at = _at(texts, phrase, at + 1)
    return False


def _meets_in_time(words: tuple[Word, ...]) -> bool:
    texts = tuple(w.text for w in words)
    for i, t in enumerate(texts):
        if t not in en.TIME_UNITS or i == 0:  # a unit said in the singular
            continue
        if texts[i - 1] == en.SAME or i >= 2 and texts[i - 1] == "the" and texts[i - 2] in en.TIME_PREPOSITIONS:
            return True  # "the same year", "in the year"
    return False


def coordinated(words: tuple[Word, ...], first: str, second: str) -> bool:
    """Whether two things the question says stand in one list, nothing but a comma, "and", "or",
    "as well as" (and an article) between them: "physics, chemistry and medicine", "physics or
    the chemistry prize"; not "born in Belgium, working in France" (a list of many is a chain of
    such pairs)."""
    texts = tuple(w.text for w in words)
    spans = []
    for said in (first, second):
        phrase = tuple(w.text for w in words_of(said))
        at = _at(texts, phrase) if phrase else None
        if at is None:
            return False
        spans.append((at, at + len(phrase)))
    (_, i), (j, _) = sorted(spans)
    if j < i:
        return False
    gap = list(texts[i:j])
    if gap[:1] == [","]:
        gap = gap[1:]
    if gap[:1] and gap[0] in en.LISTING:
        gap = gap[1:]
    elif gap[:3] == ["as", "well", "as"]:
        gap = gap[3:]
    if gap[:1] and gap[0] in en.ARTICLES:
        gap = gap[1:]
    return not gap and all(words[k].before in _LISTING_SIGNS for k in range(i, j + 1) if k < len(words))


_LISTING_SIGNS = frozenset({"", "&", "/"})  # "physics & chemistry", "physics/chemistry"; not "Adam-Claus"


__all__ = ["Operators", "coordinated", "operators"]
