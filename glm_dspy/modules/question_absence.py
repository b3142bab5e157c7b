"""What a question says has not happened to the things it asks about, or has: "still alive" (no
death), "has no death date", "never married", "without a spouse"; "dead", "deceased" (a death).
Read here as the words that name the event and whether it happened; which stored value records
the event is the graph's to say (question_starts.absent_values binds the words to a feature
that some nodes of a type hold and others lack, and the start is the nodes that lack it, or
hold it).

Two ways English says it:
- a state that an event ends or begins: "alive", "living", "surviving" (no death yet), "dead",
  "deceased" (a death); a closed class of words, listed in STATES;
- a negation before the event's words: "no death date", "without a spouse", "never married",
  "not yet published". A yes/no question's "not" asks no absence ("Did X not ...?" is still yes
  or no: `Operators.negated`, glm_dspy/readings/operators.py), so a negation is read only outside those.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.candidate import PREPOSITIONS

_DEATH = ("death", "died", "die")
# a state -> (the words of the event that ends or begins it, whether the event happened)
STATES = {"alive": (_DEATH, False), "living": (_DEATH, False), "surviving": (_DEATH, False),
          "dead": (_DEATH, True), "deceased": (_DEATH, True)}
_STATE = re.compile(r"\b(still\s+)?(" + "|".join(STATES) + r")\b(?!\s+(?:in|at|on|with|by|under|from|near)\b)",
                    re.IGNORECASE)  # "living in Paris" is where one lives, no state
_AUXILIARIES = frozenset({"been", "being", "be", "ever", "yet", "got", "gotten", "any", "a", "an", "the"})
_NEGATION = re.compile(r"((?<!\w)(?:(?:has|have|had|with)\s+no|no|without(?:\s+(?:a|an|any))?|never|not(?:\s+yet)?)"
                       r"|n[’']t(?:\s+yet)?)\s+((?:[a-z][a-z-]*\s*){1,4})", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Absence:
    said: str  # the question's words it was read from ("still alive", "no death date")
    event: tuple[str, ...]  # the words that name what happened or not ("death", "died", "die")
    happened: bool  # "dead": True; "alive", "no death date": False


def absences(question: str, negations: bool = True) -> list[Absence]:
    """The states the question says its things are in ("still alive", "deceased") and, where
    `negations` (a question that is not yes/no), the events it says did not happen ("with no
    death date", "never married"): each with the event's words, first to last as said."""
    found = []
    for match in _STATE.finditer(question):
        event, happened = STATES[match.group(2).lower()]
        found.append((match.start(), Absence(match.group(0).strip(), event, happened)))
    if negations:
        for match in _NEGATION.finditer(question):
            words, skipped = [], []
            for word in match.group(2).lower().split():
                if not words and word in _AUXILIARIES:  # "haven't been visited": the event is a visit
                    skipped.append(word)
                    continue
                if word in FUNCTION_WORDS or word in PREPOSITIONS or word in STATES or word in _AUXILIARIES:
                    break
                words.append(word)
            if words:
                said = " ".join([match.group(1), *skipped, *words])
                found.append((match.start(), Absence(said, tuple(words), False)))
    return [absence for _, absence in sorted(found, key=lambda pair: pair[0])]


__all__ = ["Absence", "STATES", "absences"]
