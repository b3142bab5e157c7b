"""Whether a yes/no question asks if something exists for the thing it names: "Did X share the
prize with anyone?", "Does X have any students?", "Was X ever mentored by someone?". Its answer
is whether the thing has the relation the rest of the question says (Discriminate's `_exists`):
read here is what the existential word asks for, a person or any thing."""

from __future__ import annotations

import re

PERSON, THING = "person", "thing"
_SOME = re.compile(r"\b(?:(anyone|anybody|someone|somebody|any\s+one)|(anything|something)|any)\b", re.IGNORECASE)


def existential(question: str) -> str | None:
    """PERSON for "anyone", "somebody" (a person); THING for "anything", "something" and "any
    <noun>" (the noun is the question's to say); None where no such word is said."""
    found = _SOME.search(question)
    if found is None:
        return None
    return PERSON if found.group(1) else THING


__all__ = ["PERSON", "THING", "existential"]
