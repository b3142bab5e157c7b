"""What a question says has not happened to the things it asks about, or has: "still alive" (no
death), "has no death date", "never married", "without a spouse"; "dead", "deceased" (a death).
Read off the question's words as the words that name the event and whether it happened; which
stored value records the event is the graph's to say (glm_dspy/modules/question_starts.py
`absent_values` binds the words to a feature some nodes of a type hold and others lack).

Two ways English says it:
- a state that an event ends or begins: "alive", "living", "surviving" (no death yet), "dead",
  "deceased" (a death); a closed class of words (lexicon.STATES);
- a negation before the event's words: "no death date", "without a spouse", "never married",
  "not yet published", "haven't been visited". A yes/no question's "not" asks no absence ("Did X
  not ...?" is still yes or no: `Operators.negated`), so a negation is read only outside those.
"""

from __future__ import annotations

from dataclasses import dataclass

import glm_dspy.readings.lexicon as en
from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.candidate import PREPOSITIONS
from glm_dspy.readings.question import Question
from glm_dspy.readings.words import Word

EVENT_WORDS = 4  # the words read after a negation for the event ("no death date")


@dataclass(frozen=True, slots=True)
class Absence:
    said: str  # the question's words it was read from ("still alive", "no death date")
    event: tuple[str, ...]  # the words that name what happened or not ("death", "died", "die")
    happened: bool  # "dead": True; "alive", "no death date": False


def absences(question: Question, negations: bool = True) -> list[Absence]:
    """The states the question says its things are in ("still alive", "deceased") and, where
    `negations` (a question that is not yes/no), the events it says did not happen ("with no
    death date", "never married"): each with the event's words, first to last as said."""
    words = question.words
    found = []
    for i, w in enumerate(words):
        if w.text in en.STATES and not (i + 1 < len(words) and words[i + 1].text in en.PLACING):
            still = i > 0 and words[i - 1].text == en.STILL
            event, happened = en.STATES[w.text]
            said = f"{words[i - 1].written} {w.written}" if still else w.written
            found.append((words[i - 1].start if still else w.start, Absence(said, event, happened)))
    i = 0
    while negations and i < len(words):
        at = _negation(words, i)
        if at is None:
            i += 1
            continue
        end, said = at
        event, consumed = _event(words, end)
        if event:
            kept, skipped = [], []
            for word in event:
                if not kept and word in en.NEGATION_FILLERS:  # "haven't been visited": the event is a visit
                    skipped.append(word)
                    continue
                if word in FUNCTION_WORDS or word in PREPOSITIONS or word in en.STATES or word in en.NEGATION_FILLERS:
                    break
                kept.append(word)
            if kept:
                found.append((words[i].start, Absence(" ".join([said, *skipped, *kept]), tuple(kept), False)))
            i = consumed
        else:
            i += 1
    return [absence for _, absence in sorted(found, key=lambda pair: pair[0])]


def _negation(words: tuple[Word, ...], i: int) -> tuple[int, str] | None:
    """(where its event starts, the negation as written) of a negation at `i`: "has no", "with
    no", "no", "without (a|an|any)", "never", "not (yet)", "n't (yet)"."""
    w, texts = words[i], [x.text for x in words[i:i + 3]]
    if texts[:1] == ["n't"] or texts[:1] == ["not"]:
        n = 2 if texts[1:2] == ["yet"] else 1
    elif texts[:1] and texts[0] in en.HAVING_NO and texts[1:2] == ["no"]:
        n = 2
    elif texts[:1] == ["without"]:
        n = 2 if texts[1:2] and texts[1] in ("a", "an", "any") else 1
    elif texts[:1] and texts[0] in ("no", "never"):
        n = 1
    else:
        return None
    return i + n, " ".join(x.written for x in words[i:i + n])


def _event(words: tuple[Word, ...], at: int) -> tuple[list[str], int]:
    """The (up to EVENT_WORDS) words after a negation, lower case, a hyphenated compound one word
    ("co-laureate"), only letters; and where they end."""
    found: list[str] = []
    i = at
    while i < len(words) and len(found) < EVENT_WORDS:
        w = words[i]
        if not (w.text.isascii() and w.text.isalpha()) or w.before:  # "no {category}": no word
            break
        word, i = w.text, i + 1
        while i < len(words) and words[i].joined and words[i].text.isascii() and words[i].text.isalpha():
            word, i = f"{word}-{words[i].text}", i + 1
        found.append(word)
    return found, i


__all__ = ["Absence", "absences"]
