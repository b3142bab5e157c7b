"""A question's words, each with its lemmas and its place in the text, read once.

Why: every rule of the readings works on words (glm_dspy/readings/question.py), never on the raw
string, so "years", "Years" and "year" are one word, "older" is the comparative of "old", and
a typo's neighbours keep their places. Lemmas are lemminflect's (its data ships in the wheel).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from lemminflect import getAllLemmas, getInflection

# a possessive's "'s" and a negation's "n't" are words of their own ("didn't": did, n't); a number
# with its separators is one word ("250,000", "2.5"); a sentence's end (. ! ?) and , ; : are marks
_WORD = re.compile(r"['’]s\b|\d+(?:[.,]\d+)*(?![^\W_])|[^\W_]+(?=n['’]t\b)|n['’]t\b|[^\W_]+|[,;:?!]|\.(?!\d)",
                   re.UNICODE)


@dataclass(frozen=True, slots=True)
class Word:
    text: str  # as written, lower case (a possessive's "’s" as "'s")
    start: int  # character offsets in the question
    end: int
    lemmas: frozenset[str]  # every lemma lemminflect knows for it, and the word itself
    degree: str | None  # "comparative" ("older"), "superlative" ("oldest"), else None
    gap: str = ""  # what stands between it and the word before, as written: " ", "-", " (", "'" ...
    written: str = ""  # as written, its case kept ("Joliot"): a value is matched as the graph writes it

    @property
    def before(self) -> str:
        """The signs between it and the word before, but spaces: "-", '"', "&", "/", ..."""
        return "".join(self.gap.split())

    @property
    def spaced(self) -> bool:
        """Whether a space stands between it and the word before ("O'Brien", "Joliot-Curie": none)."""
        return self.gap != self.before

    @property
    def clings(self) -> bool:
        """Whether a sign stands right before it, no space between ("-19" of "COVID-19", ".15")."""
        return bool(self.gap) and not self.gap[-1].isspace()

    @property
    def joined(self) -> bool:
        """Joined to the word before by a hyphen: a compound's part ("buy-after-viewing")."""
        return self.gap == "-"

    def is_(self, words: frozenset[str] | set[str] | str) -> bool:
        """Whether one of its lemmas is `words` (one word or a set of them)."""
        return bool(self.lemmas & ({words} if isinstance(words, str) else words))


def words_of(text: str) -> tuple[Word, ...]:
    """The words (and the marks , ; : ? ! .) of `text`, in order."""
    found = []
    for match in _WORD.finditer(text):
        word = match.group(0).lower().replace("’", "'")
        lemmas, degree = _lemmas(word)
        gap = text[found[-1].end:match.start()] if found else " "  # the first word: as if after a space
        found.append(Word(word, match.start(), match.end(), lemmas, degree, gap, match.group(0)))
    return tuple(found)


@functools.lru_cache(maxsize=65536)
def _lemmas(word: str) -> tuple[frozenset[str], str | None]:
    if not word.isalpha():
        return frozenset({word}), None
    every = getAllLemmas(word)
    lemmas = {word} | {lemma for group in every.values() for lemma in group}
    degree = None
    for lemma in every.get("ADJ", ()) + every.get("ADV", ()):
        if lemma != word and word in getInflection(lemma, tag="JJR") + getInflection(lemma, tag="RBR"):
            degree = "comparative"
        elif lemma != word and word in getInflection(lemma, tag="JJS") + getInflection(lemma, tag="RBS"):
            degree = "superlative"
    return frozenset(lemmas), degree


def english_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    """What lemminflect knows of a lower-case word: its lemmas by part of speech ({} for a word it
    does not know: a name, a typo)."""
    return _all_lemmas(word)


@functools.lru_cache(maxsize=65536)
def _all_lemmas(word: str) -> dict[str, tuple[str, ...]]:
    return dict(getAllLemmas(word)) if word.isalpha() else {}


def word_stem(word: str) -> str:
    """A word without its plural or verb ending, to meet a relation's or feature's name
    ("mentored", "mentors" -> mentor; "cities" -> city; "born" stays), and without a last
    silent "e", so a word whose ending kept or swallowed it meets its own name ("laureates" and
    "laureate", "shared" and "share", "boxes" and "box" -> laureat, shar, box)."""
    word = word.lower()
    for ending, instead in (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("s", "")):
        if len(word) > len(ending) + 2 and word.endswith(ending) and not word.endswith("ss"):
            word = word[: -len(ending)] + instead
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") and not word.endswith("ee") else word


__all__ = ["Word", "english_lemmas", "word_stem", "words_of"]
