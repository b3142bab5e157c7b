"""Whether a yes/no question asks if something exists for the thing it names: "Did X share the
prize with anyone?", "Does X have any students?", "Was X ever mentored by someone?". Its answer
is whether the thing has the relation the rest of the question says (Discriminate's `_exists`):
read here, off the question's words, is what the existential word asks for: a person or any thing.
"""

from __future__ import annotations

import glm_dspy.readings.lexicon as en
from glm_dspy.readings.question import Question

PERSON, THING = "person", "thing"


def existential(question: Question) -> str | None:
    """PERSON for "anyone", "somebody", "any one" (a person); THING for "anything", "something"
    and "any <noun>" (the noun is the question's to say); None where no such word is said. The
    first such word decides."""
    texts = [w.text for w in question.words]
    for i, t in enumerate(texts):
        if t in en.SOMEONE or t == en.ANY and texts[i + 1:i + 2] == ["one"]:
            return PERSON
        if t in en.SOMETHING or t == en.ANY:
            return THING
    return None


__all__ = ["PERSON", "THING", "existential"]
