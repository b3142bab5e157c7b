"""What a question asks for, read from its words: the one place (with the name reader in
text2cypher's facts) where English is read; everything downstream works on these facts.

`asked_thing(question)` gives the word of "which/what <word>" (the thing asked for).
`question_values` also reads the years a question bounds values by ("since 2020") and its
decades ("the 1990s").
`asked(question)` says which kind of value answers it: a count ("How many ...", "the number
of ..."), a date or year ("When ...", "In which year ...", "What year ..."), a yes or no ("Is
...", "Did ...", "Was ...", but for a choice between alternatives: "... a man or a woman?"), a name ("Who ...", "Where ...", "Which <thing> ..."), or None where
the words do not say. `question_values(question)` gives the words, numbers and dates a stored
value may equal (graphs/cypher/anchors.py binds them to the graph).
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.anchors import DATE as VALUE_DATE
from glm_dspy.graphs.cypher.anchors import NUMBER as VALUE_NUMBER
from glm_dspy.graphs.cypher.anchors import TEXT as VALUE_TEXT
from glm_dspy.graphs.cypher.anchors import QuestionValues
from glm_dspy.modules.question_amounts import NUMBER_WORDS, question_amounts

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


MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
          "november", "december")
_MONTH = r"(" + "|".join(MONTHS) + r"|" + "|".join(m[:3] for m in MONTHS) + r")\.?"
_DAY_MONTH_YEAR = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH + r",?\s+(\d{4})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(r"\b" + _MONTH + r"\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b", re.IGNORECASE)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_WHOLE_NUMBER = re.compile(r"(?<![\w.,-])\d+(?!\w|[.,-]\d)")  # not "1990s", "2nd" or "1,000"
MAX_PHRASE_WORDS = 6


def _month(name: str) -> int:
    return next(i for i, month in enumerate(MONTHS, 1) if month.startswith(name.lower()[:3]))


def question_dates(question: str) -> list[str]:
    """The dates the question writes, as ISO text: "25 June 1864", "June 25, 1864", "1864-06-25"."""
    found = [f"{y}-{m}-{d}" for y, m, d in _ISO.findall(question)]
    found += [f"{y}-{_month(m):02d}-{int(d):02d}" for d, m, y in _DAY_MONTH_YEAR.findall(question)]
    found += [f"{y}-{_month(m):02d}-{int(d):02d}" for m, d, y in _MONTH_DAY_YEAR.findall(question)]
    return list(dict.fromkeys(found))


def question_values(question: str) -> QuestionValues:
    """What a stored value may equal in the question: its words, its runs of up to
    MAX_PHRASE_WORDS words, its whole numbers (not those inside a date) and its dates."""
    words = re.findall(r"[^\W_][\w.'’-]*[^\W_]|[^\W_]", question)
    words = [w.removesuffix("'s").removesuffix("’s") for w in words]
    phrases = [" ".join(words[i:j]) for i in range(len(words))
               for j in range(i + 1, min(len(words), i + MAX_PHRASE_WORDS) + 1)]
    dates = question_dates(question)
    without_dates = _ISO.sub(" ", _DAY_MONTH_YEAR.sub(" ", _MONTH_DAY_YEAR.sub(" ", question)))
    ranges = [(low, high) for *lows, high in _RANGE.findall(without_dates)
              for low, high in [(int("".join(lows)), int(high))] if low <= high]
    in_range = {year for pair in ranges for year in pair}
    bounds = [(_BOUND_OPS[word.lower()], int(year)) for word, year in _BOUND.findall(without_dates)
              if int(year) not in in_range]
    decades = [int(d) for d in _DECADE.findall(without_dates)]
    numbers = [int(n) for n in _WHOLE_NUMBER.findall(_DECADE.sub(" ", without_dates)) if len(n) <= 9
               and int(n) not in {year for _, year in bounds} | in_range]
    return QuestionValues(tuple(dict.fromkeys(w.lower() for w in words)), tuple(dict.fromkeys(phrases)),
                          tuple(dict.fromkeys(numbers)), tuple(dates), tuple(dict.fromkeys(bounds)),
                          tuple(dict.fromkeys(decades)), tuple(dict.fromkeys(question_amounts(without_dates))),
                          tuple(w.lower() for w in words), tuple(dict.fromkeys(ranges)))


# a year the values lie on one side of: "since 2020" (>=), "after 1950" (>), "before 1900" (<), "until 1930" (<=)
_BOUND_OPS = {"since": ">=", "after": ">", "before": "<", "until": "<=", "till": "<=", "prior to": "<"}
_BOUND = re.compile(r"\b(since|after|before|until|till|prior to)\s+(?:the\s+year\s+)?(\d{4})(?![\w-])", re.IGNORECASE)
# the years values lie between, both said: "between 1901 and 2022", "from 1901 to 2022", "1901-2022"
_RANGE = re.compile(r"(?<![\w-])(?:between\s+(?:the\s+years?\s+)?(\d{4})\s+and\s+|from\s+(?:the\s+years?\s+)?(\d{4})\s+"
                    r"(?:to|until|till|through|thru)\s+|(\d{4})\s*[-–]\s*)(\d{4})(?![\w-])", re.IGNORECASE)
_DECADE = re.compile(r"(?<![\w-])(\d{3}0)['’]?s\b")  # "the 1990s", "1920's"


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
    return "sum" if _SUM.search(question) and asked(question) != COUNT and not _COUNT.search(question) else None


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
    return bool(_NEGATED.search(question)) and not _YES_NO.search(question)


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


_ASKS_PERSON = re.compile(r"(?:^|[.?!;:]\s*)\W*(?:(?:with|by|to|for|from|of)\s+)?(?:who|whom)\b", re.IGNORECASE)


def asks_person(question: str) -> bool:
    """Whether a sentence of the question asks "who" or "whom" ("Who won ...?", "Henrik Dam
    shared his prize. Who trained ...?", "With whom ...?", "Do you know who ...?"): it asks for a
    person. Not a relative "who" ("the laureates who won ...")."""
    return bool(_ASKS_PERSON.search(requested(question)))


_IN_TIME = re.compile(r"\b(?:(?:in|on|during|of)\s+the\s+(?:same\s+)?|same\s+)(?:year|day|date|month|decade)\b",
                      re.IGNORECASE)


def meets_in_time(question: str) -> bool:
    """Whether the question ties what it asks to a time another thing has ("born in the year X
    won", "on the same day as"): then readings whose start shares a time with a named node's."""
    return bool(_IN_TIME.search(question))


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


_SAME_WORD = re.compile(r"\bsame\s+([a-z]+)", re.IGNORECASE)


def same_words(question: str) -> list[str]:
    """The words the question says right after "same" ("studied under the same mentor as X" ->
    ["mentor"]): a relation said so is taken there and back (X -> mentor -> the mentor's
    students)."""
    return [word.lower() for word in _SAME_WORD.findall(question)]


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
