"""What a question asks for, read from its words. English is read only in the `question_*`
modules (and the name reader in text2cypher's facts); everything downstream works on their facts:
this one says what kind of answer is asked, `question_values` the values a stored value may equal,
`question_operators` what to do with the values read (order, count, compare, negate),
`question_absence` and `question_existential` what is said to be lacking or to exist.

`asked(question)` says which kind of value answers it: a count ("How many ...", "the number
of ..."), a date or year ("When ...", "In which year ...", "What year ..."), a yes or no ("Is
...", "Did ...", "Was ...", but for a choice between alternatives: "... a man or a woman?"), a
name ("Who ...", "Where ...", "Which <thing> ..."), or None where the words do not say.
`asked_thing(question)` gives the word of "which/what <word>" (the thing asked for).
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.value_index import DATE as VALUE_DATE
from glm_dspy.graphs.cypher.value_index import NUMBER as VALUE_NUMBER
from glm_dspy.graphs.cypher.value_index import TEXT as VALUE_TEXT

COUNT = "count"
DATE = "date"
YES_NO = "yes/no"
NAME = "name"  # who, where, which <thing>: a name, never a date or a number

_COUNT = re.compile(r"\b(?:how many|how often|number of|count of)\b", re.IGNORECASE)
_DATE = re.compile(r"^\W*(?:when\b|(?:in |on )?(?:which|what) (?:year|date|day|month|decade)s?\b)", re.IGNORECASE)
_YES_NO = re.compile(r"^\W*(?:is|was|were|are|did|does|do|has|have|had|can|could)\b", re.IGNORECASE)
_CHOICE = re.compile(r"\b(\w+)\s+or\s+(?:(?:a|an|the|in|on|at|by|for|from|of)\s+)*(\w+)(?:\s+\w+)?\W*$",
                     re.IGNORECASE)  # "... A or [in] B [thing]?"
_VERB = r"(?!(?:is|was|are|were|does|did|do|has|had|have)\b)"  # "what is ...": no thing named
_NAME = re.compile(r"^\W*(?:(?:in|at|from|for|by|with|of|under|to|on)\s+)?(?:who|whom|whose|where|"
                   r"(?:which|what)\s+" + _VERB + r"[a-z]+)\b",
                   re.IGNORECASE)


# "Could you tell me who ...", "Do you know when ...", "Can you name the ...": a request whose
# question is the clause after it, not a yes/no question
_REQUEST = re.compile(r"^\W*(?:(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:tell|let|show|give|inform|name|list|"
                      r"specify|identify|provide|say|share|find)|do\s+you\s+(?:happen\s+to\s+)?know)\b"
                      r"(?:\s+(?:me|us))?(?:\s+(?:know|about))?\s*", re.IGNORECASE)
_WHETHER = re.compile(r"^(?:if|whether)\b", re.IGNORECASE)


def says_count(question: str) -> bool:
    """Whether the question's words ask for a number of things ("how many", "the number of")."""
    return bool(_COUNT.search(question))


def yes_no_form(question: str) -> bool:
    """Whether the question opens as a yes/no question does ("Is ...", "Did ...", "Has ...")."""
    return bool(_YES_NO.search(question))


def requested(question: str) -> str:
    """The question a polite request asks ("Could you tell me who wrote X?" -> "who wrote X?",
    "Can you name the authors of X?" -> "the authors of X?"); the question itself where it is none."""
    match = _REQUEST.match(question)
    return question[match.end():] if match and question[match.end():].strip() else question


def main_clause(question: str) -> str:
    """The question after a subordinate clause that leads it ("When X won his prize, was his
    mentor still alive?" -> "was his mentor still alive?"); the question itself where none does."""
    match = _LEADING_CLAUSE.match(question)
    return question[match.end():] if match and question[match.end():].strip(" ?") else question


_LEADING_CLAUSE = re.compile(r"^\W*(?:when|after|before|once|while|by the time|at the time)\b"
                             r"(?!\s+(?:is|was|were|are|did|does|do|has|have|had|can|could|will|would)\b)[^,?]*,\s*",
                             re.IGNORECASE)  # not "When was X born, and where?": a question of its own


def asked(question: str) -> str | None:
    """COUNT, DATE, YES_NO, or None (module doc); of a polite request, what its question asks
    (`requested`: "Do you know if ..." asks yes or no); of a question a subordinate clause
    leads, what its main clause asks (`main_clause`: "When X won, was Y alive?" asks yes or no)."""
    inner = requested(question)
    if inner is not question:
        return YES_NO if _WHETHER.match(inner) else asked(inner) if inner.strip() else None
    inner = main_clause(question)
    if inner is not question:
        return asked(inner)
    if _COUNT.search(question):
        return COUNT
    if _DATE.search(question):
        return DATE
    if _YES_NO.search(question):
        # "Is X's darling a man or a woman?" offers answers to choose from: a value, not yes or no
        return None if _CHOICE.search(question) else YES_NO
    if _NAME.search(question):
        return NAME
    return None


_ASKED_THING = re.compile(r"\b(?:which|what|how many)\s+(?:other\s+|different\s+|of\s+the\s+)?" + _VERB + r"([a-z]+)",
                          re.IGNORECASE)


_ASKED_WORDS = re.compile(r"\b(?:(?:which|what|who)\s+(?:is|was|are|were)\s+(?:the|a|an)\s+|(?:which|what|how many)\s+"
                          + _VERB + r")((?:[a-z]+\s+){0,2}[a-z]+)", re.IGNORECASE)


def asked_words(question: str) -> list[str]:
    """The (up to three) words after the first "which/what/how many", or after a "what/which/
    who is the" that a noun follows: where the thing asked for is named ("Which Nobel laureate
    ..." -> ["nobel", "laureate", "was"]; "What is the city that ..." -> ["city", "that", "is"])."""
    found = _ASKED_WORDS.search(question)
    if found is None:
        return []
    words = []
    for word in re.finditer(r"[a-z]+", found.group(1), re.IGNORECASE):
        if question[found.start(1) + word.end():][:1] in ("'", "’"):
            break  # a possessive names the owner of the thing asked for: "which laureate's mentor"
        words.append(word.group(0).lower())
    return words


def asked_span(question: str) -> tuple[int, int] | None:
    """Where in the question the words `asked_words` reads stand (character offsets), or None."""
    found = _ASKED_WORDS.search(question)
    return None if found is None else found.span(1)


def passive_words(question: str, agent_words: int = 4) -> list[tuple[str, tuple[str, ...]]]:
    """The words the question says in the passive with an agent after them ("trained by the
    man who ...", "cited by P"): a word right before "by" that some word follows (lower case),
    each with the (up to `agent_words`) words after "by". The agent is the relation's subject: a
    path that reaches the word's relation from the agent's side takes it backwards ("the
    laureate trained by the man": the man's student; "who was trained by X": X's students)."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    return [(w, tuple(words[i + 2:i + 2 + agent_words])) for i, w in enumerate(words[:-2])
            if words[i + 1] == "by" and w not in ("is", "was", "are", "were")]


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


def asked_thing(question: str) -> str | None:
    """The word naming the thing asked for, singular: "Which institutions in Brussels ..." ->
    "institution", "How many laureates ..." -> "laureate"; None where the question has no
    "which/what/how many <word>"."""
    found = _ASKED_THING.search(question)
    if found is None:
        return None
    word = found.group(1).lower()
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def fits(kind: str | None, value_kind: str, is_count: bool) -> bool:
    """Whether a reading whose values are of `value_kind` (graphs/cypher/anchors.py: text, date,
    number, list; read from the graph), or a count, can answer a question asking for `kind`: a
    count for COUNT; a date or a number (a year) for DATE; text for NAME; no count where the
    question does not ask how many."""
    if kind == COUNT:
        return is_count
    if is_count:
        return False
    if kind == DATE:
        return value_kind in (VALUE_DATE, VALUE_NUMBER)
    if kind == NAME:
        return value_kind == VALUE_TEXT
    return True


_ASKS_PERSON = re.compile(r"(?:^|[.?!;:]\s*)\W*(?:(?:with|by|to|for|from|of)\s+)?(?:who|whom)\b", re.IGNORECASE)


def asks_person(question: str) -> bool:
    """Whether a sentence of the question asks "who" or "whom" ("Who won ...?", "Henrik Dam
    shared his prize. Who trained ...?", "With whom ...?", "Do you know who ...?"): it asks for a
    person. Not a relative "who" ("the laureates who won ...")."""
    return bool(_ASKS_PERSON.search(requested(question)))


def alternatives(question: str) -> tuple[str, ...]:
    """The answers a question offers to choose from ("... a physics or a chemistry prize?" ->
    ("physics", "chemistry")); () where it offers none."""
    found = _CHOICE.search(question) if _YES_NO.search(question) else None
    return tuple(word.lower() for word in found.groups()) if found else ()


_ONE = re.compile(r"^\W*(?:(?:in|on|at|from|for|of|by)\s+)?(?:which|what)\s+([a-z]+)\s+(?:was|is|has|does)\b"
                  r"|^\W*(?:what|which)\s+(?:is|was)\s+the\s+([a-z]+)\s+of\b", re.IGNORECASE)


def asks_one(question: str) -> bool:
    """Whether the question asks for one value, by its number: a singular noun after "which/what"
    that a singular verb follows ("What year was P published?", "In which city is X based?"),
    or "what is the <singular noun> of". Not "who" (a prize has laureates), nor "did", which
    says no number ("Which prize did X win?")."""
    found = _ONE.search(requested(question))
    if found is None:
        return False
    noun = (found.group(1) or found.group(2)).lower()
    return not (noun.endswith("s") and not noun.endswith("ss"))


_DEFINITE = frozenset({"the", "that", "this", "those", "these"})


def referred_words(question: str) -> list[tuple[int, str]]:
    """The words the question says again to refer back to a thing it has named already ("X's
    mentor also won a prize. Who did the mentor share it with?" -> "mentor"), each with its
    character offset: a word said before, said again right after "the", "that" or "this" and
    with nothing of its own after it (no "of", no "'s": "the mentor of the mentor of X" says
    two mentors). Such a mention is the same thing, not one more hop (lower case)."""
    matches = list(re.finditer(r"[a-z0-9]+|['’]s\b", question.lower()))
    words = [m.group() for m in matches]
    seen, found = set(), []
    for i, word in enumerate(words):
        stem_ = word_stem(word)
        after = words[i + 1] if i + 1 < len(words) else ""
        if stem_ in seen and i and words[i - 1] in _DEFINITE and after not in ("of", "'s", "’s"):
            found.append((matches[i].start(), word))
        seen.add(stem_)
    return found
