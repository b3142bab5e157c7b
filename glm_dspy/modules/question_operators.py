"""What the question asks to do with the values it reads, from its words: the one end of an
order (`extreme`), the value most things share (`most`), arithmetic (`arithmetic`), a bound on
how many (`count_bound`), a complement (`negated`), a comparison with its own (`refers_back`,
`equates`, `compared`, `elided`), a time shared with another (`meets_in_time`), a relation said
after "same" (`same_words`), and things listed together (`coordinated`). Which values they apply
to is the reading's to say.
"""

from __future__ import annotations

import re

from glm_dspy.modules.question_amounts import NUMBER_WORDS
from glm_dspy.modules.question_facts import COUNT, asked, says_count, yes_no_form


_COMPARES = re.compile(r"\bsame\b", re.IGNORECASE)


def compares(question: str) -> bool:
    """Whether the question compares one thing's value with another's ("born on the same day
    as"): then readings of nodes that share a value are asked for."""
    return bool(_COMPARES.search(question))


_FIRST = re.compile(r"\b(?:first(?!\s+names?\b)|earliest|oldest|initial)\b", re.IGNORECASE)  # not "first name"
_LAST = re.compile(r"\b(?:last|latest|youngest|newest|final|most\s+recent(?:ly)?)\b", re.IGNORECASE)
_MOST = re.compile(r"\b(?:most|largest number|greatest number)\b(?!\s+recent)", re.IGNORECASE)
_FEWEST = re.compile(r"\b(?:fewest|least|smallest number)\b", re.IGNORECASE)


def extreme(question: str) -> bool | None:
    """Whether the question asks for the one at an end of an order: False for the first (the
    earliest, the oldest), True for the last (the latest, the most recent, the youngest); None
    where it asks for neither. Which value orders them is the reading's to say."""
    first, last = _FIRST.search(question), _LAST.search(question)
    if first and last:
        return None
    return True if last else False if first else None


_AVERAGE = re.compile(r"\b(?:average|median)\b|\b(?:the|a|its|their)\s+mean\b(?!\s+(?:by|that|to)\b)", re.IGNORECASE)
_SUM = re.compile(r"\b(?:sum|combined|altogether|total)\b(?!\s+(?:number|count)\b)", re.IGNORECASE)


def arithmetic(question: str) -> str | None:
    """The arithmetic the question asks of the values it reads: "avg" for an average, a mean or
    a median ("the average publication year of X's papers"), "sum" for a total or a sum ("the
    total prize money"; not a count: "how many ... in total", "the total number of"); else None."""
    if _AVERAGE.search(question):
        return "avg"
    return "sum" if _SUM.search(question) and asked(question) != COUNT and not says_count(question) else None


def most(question: str) -> bool | None:
    """Whether the question asks for the value shared by the most things ("in which month were
    the most ... born", "the most common first name"): True; by the fewest: False; else None."""
    if _FEWEST.search(question):
        return False
    return True if _MOST.search(question) else None


def operator_words(question: str) -> frozenset[str]:
    """The words that say what to do with the values the question reads, not a value: a first or
    a last, the most or the fewest, an average or a sum ("the first chemistry laureate" mentions
    no motivation's "first")."""
    patterns = (_FIRST, _LAST, _MOST, _FEWEST, _AVERAGE, _SUM)
    return frozenset(w.lower() for pattern in patterns for m in pattern.finditer(question)
                     for w in re.findall(r"[a-z]+", m.group(), re.IGNORECASE))


# a count's bound: a small number, not an amount ("more than 250,000", "over 2 million": `question_amounts`)
_N = r"(\d+(?![.,]\d)(?!\s+(?:thousand|million|billion)\b)|(?:one|two|three|four|five|six|seven|eight|nine|ten)" \
     r"(?!\s+(?:thousand|million|billion)\b))"
_COUNT_BOUNDS = (  # (words, op); the first that the question says is its bound
    (re.compile(r"\b(?:no|not)\s+more\s+than\s+" + _N + r"\b", re.IGNORECASE), "<="),
    (re.compile(r"\bat\s+most\s+" + _N + r"\b", re.IGNORECASE), "<="),
    (re.compile(r"\b(?:more|greater)\s+than\s+" + _N + r"\b", re.IGNORECASE), ">"),
    (re.compile(r"\b(?:fewer|less)\s+than\s+" + _N + r"\b", re.IGNORECASE), "<"),
    (re.compile(r"\bat\s+least\s+" + _N + r"\b", re.IGNORECASE), ">="),
    (re.compile(r"\b" + _N + r"\s+or\s+more\b", re.IGNORECASE), ">="),
    (re.compile(r"\bexactly\s+" + _N + r"\b", re.IGNORECASE), "="),
    (re.compile(r"\b" + _N + r"\s+(?:different|distinct|separate)\b", re.IGNORECASE), ">="),
)
_ALONE = re.compile(r"\b(?:alone|unshared|undivided|single-handedly|on\s+(?:his|her|their)\s+own)\b", re.IGNORECASE)
_SEVERAL = re.compile(r"\b(?:multiple|twice|more\s+than\s+once)\b", re.IGNORECASE)
# "... also had a mentor?", "... had a Nobel laureate as a mentor?": the question ends on something
# had (in the role "as" names), which is then at least one
_HAD_ONE = re.compile(r"\b(?:had|has|have)\s+(?:a|an|any)\s+(?:[a-z]+\s+)?[a-z]+"
                      r"(?:\s+as\s+(?:a|an|the|his|her|its|their)\s+[a-z]+)?\s*\?\s*$", re.IGNORECASE)


def count_bound(question: str) -> tuple[str, int] | None:
    """The bound the question puts on how many things something has ("in more than one field":
    (">", 1); "two different countries", "at least 2 prizes": (">=", 2); "multiple", "twice":
    (">=", 2); a question that ends on something had, "... also had a mentor?": (">=", 1));
    None where it says none. Which things are counted is the reading's to say."""
    for pattern, op in _COUNT_BOUNDS:
        found = pattern.search(question)
        if found:
            word = found.group(1).lower()
            return op, int(word) if word.isdigit() else NUMBER_WORDS[word]
    if _SEVERAL.search(question):
        return ">=", 2
    if _ALONE.search(question):
        return "=", 1
    return (">=", 1) if _HAD_ONE.search(question) else None


_NEGATED = re.compile(r"\b(?:no|not|never|none|nobody|without)\b|n[’']t\b", re.IGNORECASE)


def negated(question: str) -> bool:
    """Whether the question asks for what is not so ("where no ... was born", "which ... never
    won", "without a mentor"): then the readings of what a path does not reach. A yes/no
    question's "not" asks no complement ("Did X not ...?" is still yes or no)."""
    return bool(_NEGATED.search(question)) and not yes_no_form(question)


_LISTED = re.compile(r"^\s*,?\s*(?:(?:and|or|nor|&|as\s+well\s+as)\s+)?(?:(?:the|a|an)\s+)?$|^\s*/\s*$", re.IGNORECASE)


def coordinated(question: str, first: str, second: str) -> bool:
    """Whether two things the question says stand in one list, nothing but a comma, "and",
    "or" (and an article) between them: "physics, chemistry and medicine", "physics or the
    chemistry prize"; not "born in Belgium, working in France" (a list of many is a chain of
    such pairs)."""
    text = question.lower()
    at = [(text.find(first.lower()), first), (text.find(second.lower()), second)]
    if any(i < 0 for i, _ in at):
        return False
    (i, one), (j, _) = sorted(at)
    return j >= i + len(one) and bool(_LISTED.match(text[i + len(one):j]))


_REFERS_BACK = re.compile(r"\b(?:their|his|her|its)\b", re.IGNORECASE)


def refers_back(question: str) -> bool:
    """Whether the question speaks of what it asks about again ("working in their birth city",
    "born in the same city as their mentor"): then the readings whose ends reach one node by
    two paths of their own."""
    return bool(_REFERS_BACK.search(question))


_SAME = re.compile(r"\bsame\b", re.IGNORECASE)


def equates(question: str) -> bool:
    """Whether the question asks that what it asks about share something with its own ("born in
    the same city as their mentor", "at the same institution as his student"): it refers back
    (`refers_back`) and says "same". Then a reading must meet on a node (a loop) to answer it."""
    return refers_back(question) and bool(_SAME.search(question))


_BEFORE = re.compile(r"\b(?:before|earlier than|prior to|sooner than|ahead of)\b", re.IGNORECASE)
_AFTER = re.compile(r"\b(?:after|later than)\b", re.IGNORECASE)


def compared(question: str) -> str | None:
    """How the question orders what it asks about against its own ("before their mentor did":
    "<", "after their mentor died": ">"), where it refers back to it (`refers_back`); else None.
    ("The same city as their mentor" is a loop that meets on a node, graphs/cypher/loops.py.)"""
    if not refers_back(question):
        return None
    if _BEFORE.search(question):
        return "<"
    return ">" if _AFTER.search(question) else None


_ELIDED = re.compile(r"\b(?:before|after|earlier than|later than|prior to|sooner than|ahead of)\b[^.?!;,]*?"
                     r"\b(?:did|does|do|was|were|is|are|had|has|have)\s*[.?!]?\s*$", re.IGNORECASE)


def elided(question: str) -> bool:
    """Whether the question's comparison leaves out its verb, ending on "did", "was", "had"
    ("won their prize before their own mentor did"): the verb said first holds for both, so both
    sides compare one value; not "born after their mentor died", which says each."""
    return bool(_ELIDED.search(question.strip()))


_IN_TIME = re.compile(r"\b(?:(?:in|on|during|of)\s+the\s+(?:same\s+)?|same\s+)(?:year|day|date|month|decade)\b",
                      re.IGNORECASE)


def meets_in_time(question: str) -> bool:
    """Whether the question ties what it asks to a time another thing has ("born in the year X
    won", "on the same day as"): then readings whose start shares a time with a named node's."""
    return bool(_IN_TIME.search(question))


_SAME_WORD = re.compile(r"\bsame\s+([a-z]+)", re.IGNORECASE)


def same_words(question: str) -> list[str]:
    """The words the question says right after "same" ("studied under the same mentor as X" ->
    ["mentor"]): a relation said so is taken there and back (X -> mentor -> the mentor's
    students)."""
    return [word.lower() for word in _SAME_WORD.findall(question)]
