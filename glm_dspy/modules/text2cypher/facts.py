"""What Text2Cypher reads off a question's English: the names it mentions, its form with them left
out, and the words that say whether it asks for a count and of which node type.

Only module-level functions and patterns; nothing here sees the graph or a query."""

from __future__ import annotations

import re

QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”|(?<!\w)'[^']{3,}'(?!\w)")  # not the ' of d'Abancour, I'm
NUMBER = re.compile(r"(?<![\w.,-])\d+(?![\w.,-])")  # "in 2024", not "1899-05-08", "2nd" or "v1.2"
# a question with none of these words asks for the things, not how many; one that starts with
# ASKS_COUNT asks how many
COUNT_WORDS = re.compile(r"\b(?:how many|number|count|counts|counted|total|how often|most|least|fewest)\b",
                         re.IGNORECASE)
# "Which Nobel Prizes ...", "In which cities ...", "How many laureates ...", "What is the country ...": the
# ASKED_WORDS words after them may name the type the question asks about; "Who received the Nobel Prize
# in Physics 1977?" names a prize, but asks for a person
ASKING = re.compile(r"^\W*(?:(?:in|at|for|from|on|to|of|by|with)\s+)?(?:which|what|how many)\b", re.IGNORECASE)
ASKED_WORDS = 3
ASKS_COUNT = re.compile(r"^\W*(?:how many|what is the number of|what was the number of)\b", re.IGNORECASE)
# the words a run of capitalised words may hold ("Nobel Prize in Physics", "Ludwig van Beethoven")
NAME_CONNECTORS = frozenset({"of", "in", "or", "de", "del", "della", "di", "da", "du", "des", "la", "le", "von", "van",
                             "der", "den", "ter", "y", "al", "el", "bin", "ibn", "the", "for", "on"})
INITIALS = re.compile(r"(?:[A-Z]\.)+|[JS]r\.")  # "R.", "J.G.", "C.T.R.", "Jr." of a name
NAME_WORD = re.compile(r"[^\W_][\w.'’&-]*", re.UNICODE)
QUESTION_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how", "in", "of",
                            "did", "does", "do", "is", "was", "were", "are", "has", "have", "had", "name", "list",
                            "give", "tell", "find", "show", "for", "on", "at", "to", "from", "by", "with", "among"})


def _word_stem(word: str) -> str:
    """A plural's singular, for matching a relation's name ("mentors" -> mentor, "cities" -> city)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def question_form(question: str) -> str:
    """The question with its names left out: quoted titles, words_with_underscores (PathQuestion's
    entities) and capitalised words after the first; what examples are matched on."""
    words = QUOTED.sub(" ", question).split()
    kept = [w for i, w in enumerate(words) if "_" not in w and not (i > 0 and w[:1].isupper())]
    return " ".join(kept) or question


def question_names(question: str) -> list[str]:
    """The names a question mentions, in order: quoted titles, words_with_underscores (PathQuestion's
    entities, underscores as spaces) and runs of capitalised words ("Marie Curie", "Nobel Prize in
    Physics"; a question word opening the question is not a name). What `ground_names` holds a
    query's name literals to."""
    names = [match.group(0)[1:-1].strip() for match in QUOTED.finditer(question)]
    rest = QUOTED.sub(" . ", question)
    for word in rest.split():
        if "_" in word:
            names.append(word.strip("?,.;:!()'\"").replace("_", " ").strip())
    run: list[str] = []

    def close() -> None:
        while run and run[-1].lower() in NAME_CONNECTORS:
            run.pop()
        if run:
            names.append(" ".join(run))
        run.clear()

    first = True
    for token in re.split(r"(\s+|[?,;:!()])", QUOTED.sub(" , ", rest)):
        if not token or token.isspace():
            continue
        word = token.removesuffix("'s").removesuffix("’s")
        word = word if INITIALS.fullmatch(word) else word.rstrip(".")  # "John R. Vane": R. is no sentence's end
        if not NAME_WORD.fullmatch(token) or "_" in token:
            close()
        elif (word[:1].isupper() and not (first and word.lower() in QUESTION_WORDS)
              or run and word.isdigit()):  # "Nobel Prize in Physics 1903"
            run.append(word)
            if token.rstrip(".").endswith(("'s", "’s")):  # a possessive ends the name
                close()
        elif run and word in NAME_CONNECTORS:
            run.append(word)
        else:
            close()
        first = False
    close()
    return [name for name in dict.fromkeys(names) if len(name) >= 2]


def _folded(text: str) -> str:
    return " ".join(re.sub(r"[\W_]+", " ", text.lower()).split())


def _likeness(a: str, b: str) -> tuple[int, float]:
    """(words shared, character similarity) of two names, case aside."""
    from difflib import SequenceMatcher

    a, b = _folded(a), _folded(b)
    return len(set(a.split()) & set(b.split())), SequenceMatcher(None, a, b).ratio()


def asked_type(question: str, type_names) -> str | None:
    """The node type the question asks about: the first of `type_names` (the graph's) that the
    ASKED_WORDS words right after its "which", "what" or "how many" (ASKING) say, singular or
    plural ("Which Nobel *Prizes* ...", "How many *laureates* ..."); None where they say none."""
    from glm_dspy.graphs.schema_examples import plural, words

    asking = ASKING.match(question)
    opening = [w.lower() for w in NAME_WORD.findall(question[asking.end():])[:ASKED_WORDS]] if asking else []
    said = {}
    for type_name in type_names:
        spoken = words(type_name).lower().split()
        for form in (spoken, plural(" ".join(spoken)).split()):
            for at in range(len(opening) - len(form) + 1):
                if opening[at: at + len(form)] == form:
                    said.setdefault(type_name, at)
    return min(said, key=said.get) if said else None
