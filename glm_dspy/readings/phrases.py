"""The phrases of a question the readings weigh paths by, read off its words (glm_dspy/readings/
words.py) with the lexicon's English, never off the raw string:

- `asked_words`: where the thing asked is named ("Which Nobel laureate ...", "What is the city
  that ..."): the words a reading's answer type is matched to, and where in the question they
  stand;
- `passive_words`: a word said in the passive with its agent ("trained by the man who ..."),
  whose relation is then read from the agent's side;
- `referred_words`: a thing named again ("X's mentor ... the mentor"), the same thing, no
  further hop;
- `alternatives`: the answers a yes/no question offers ("a physics or a chemistry prize?");
- `asks_one`: a question that asks for one value by its number ("What year was P published?").
"""

from __future__ import annotations

import glm_dspy.readings.lexicon as en
from glm_dspy.readings.question import Question
from glm_dspy.readings.words import Word, word_stem

ASKED_WORDS = 3  # the words read after "which"/"what is the" for the thing asked ("which nobel laureate was")
AGENT_WORDS = 4  # the words read after a passive's "by" for its agent ("by the man who ...")


def _plain(word: Word) -> bool:
    return word.text.isascii() and word.text.isalpha()


def _asked_at(question: Question) -> tuple[int, int] | None:
    """(first, end) of the words naming the thing asked: after the first "which/what/how many"
    (not a verb: "what is"), or after "which/what/who is the" that a noun follows; up to
    ASKED_WORDS plain words, none past a possessive ("which laureate's mentor": laureate)."""
    words = question.words
    for i, w in enumerate(words):
        at = None
        if w.text in ("which", "what", "who") and i + 2 < len(words) and words[i + 1].text in en.COPULAS \
                and words[i + 2].text in en.ARTICLES:
            at = i + 3
        elif w.text in en.CHOOSING_WH and i + 1 < len(words) and words[i + 1].text not in en.ELIDED_VERBS:
            at = i + 1
        elif w.text == en.HOW and i + 2 < len(words) and words[i + 1].text == "many" \
                and words[i + 2].text not in en.ELIDED_VERBS:
            at = i + 2
        if at is None or at >= len(words) or not _plain(words[at]):
            continue
        end = at
        while end < len(words) and end - at < ASKED_WORDS and _plain(words[end]) \
                and (end == at or not words[end].before):
            end += 1
            if end < len(words) and words[end].text == "'s":  # the owner is the thing asked
                break
        return at, end
    return None


def asked_words(question: Question) -> list[str]:
    """The words naming the thing asked ("Which Nobel laureate was ..." -> nobel, laureate, was;
    "What is the city that ..." -> city, that, is); [] where none is named so."""
    at = _asked_at(question)
    words = question.words
    found = []
    for k in range(*at) if at is not None else ():
        if k + 1 < len(words) and words[k + 1].text == "'s":
            break  # a possessive names the owner of the thing asked: "which laureate's mentor"
        found.append(words[k].text)
    return found


def asked_span(question: Question) -> tuple[int, int] | None:
    """Where in the text `asked_words` stand (character offsets), or None."""
    at = _asked_at(question)
    return None if at is None else (question.words[at[0]].start, question.words[at[1] - 1].end)


def passive_words(question: Question, agent_words: int = AGENT_WORDS) -> list[tuple[str, tuple[str, ...]]]:
    """The words said in the passive with an agent after them ("trained by the man who ...",
    "cited by P"): a word right before "by" (not a copula) that some word follows, each with the
    (up to `agent_words`) words after "by". The agent is the relation's subject: a path that
    reaches the word's relation from the agent's side takes it backwards ("the laureate trained
    by the man": the man's student)."""
    words = [w.text for w in question.words if w.text.isalnum()]
    return [(w, tuple(words[i + 2:i + 2 + agent_words])) for i, w in enumerate(words[:-2])
            if words[i + 1] == en.AGENT and w not in en.COPULAS]


def referred_words(question: Question) -> list[tuple[int, str]]:
    """The words said again to refer back to a thing named already ("X's mentor also won a
    prize. Who did the mentor share it with?" -> mentor), each with its character offset: a
    word said before, said again right after "the", "that" or "this", with nothing of its own
    after it (no "of", no "'s": "the mentor of the mentor of X" says two mentors)."""
    words = [w for w in question.words if w.text.isalnum() or w.text == "'s"]
    seen, found = set(), []
    for i, w in enumerate(words):
        stem = word_stem(w.text)
        after = words[i + 1].text if i + 1 < len(words) else ""
        if stem in seen and i and words[i - 1].text in en.REFERRING and after not in ("of", "'s"):
            found.append((w.start, w.text))
        seen.add(stem)
    return found


def alternatives(question: Question) -> tuple[str, ...]:
    """The answers a yes/no question offers to choose from ("Is X a man or a woman?" -> (man,
    woman); "Was she born in Paris or in Warsaw?" -> (paris, warsaw)): the words on either side
    of an "or" near its end, past articles and prepositions, with at most one word after the
    second; () where it offers none."""
    if not question.operators.yes_no:
        return ()
    words = [w for w in question.words if w.text not in en.CLAUSE_MARKS | {"?"}]
    for i in range(len(words) - 2, 0, -1):
        if words[i].text != en.CHOICE:
            continue
        j = i + 1
        while j < len(words) - 1 and words[j].text in en.OFFER_PREFIXES:
            j += 1
        if len(words) - j <= 2 and words[i - 1].text.isalnum() and words[j].text.isalnum():
            return words[i - 1].text, words[j].text
        return ()
    return ()


def asks_one(question: Question) -> bool:
    """Whether the question asks for one value, by its number: a singular noun after
    "which/what" that a singular verb follows ("What year was P published?", "In which city is X
    based?"), or "what is the <singular noun> of". Not "who" (a prize has laureates), nor "did",
    which says no number ("Which prize did X win?")."""
    words = question.words[question.main[0]:question.main[1]]
    at = 1 if words and words[0].text in en.LEADING_PREPOSITIONS else 0
    if len(words) < at + 3 or words[at].text not in en.CHOOSING_WH:
        return False
    if _plain(words[at + 1]) and words[at + 2].text in en.SINGULAR_VERBS:
        noun = words[at + 1].text
    elif words[at + 1].text in ("is", "was") and words[at + 2].text == "the" and len(words) > at + 4 \
            and _plain(words[at + 3]) and words[at + 4].text == "of":
        noun = words[at + 3].text
    else:
        return False
    return not (noun.endswith("s") and not noun.endswith("ss"))


__all__ = ["alternatives", "asked_span", "asked_words", "asks_one", "passive_words", "referred_words"]
