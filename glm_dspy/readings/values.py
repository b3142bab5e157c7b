"""The values a question states, read off its words (glm_dspy/readings/words.py), never off the
raw string: its value words ("Joliot-Curie", "O'Brien", "U.S", "Jamal_Mirsadeghi": words joined
with no space between), their runs as written (a stored value is matched whole), whole numbers,
dates ("25 June 1864", "June 25, 1864", "1864-06-25"), years that bound values ("since 2020"),
ranges ("between 1901 and 2022", "from A to B", "A-B"), decades ("the 1990s") and amounts
(glm_dspy/readings/amounts.py). graphs/cypher/anchors.py binds them to stored values.

The class of questions served: every question that names a value the graph stores, in any
register ("born 25 june 1864", "since 2020", "in the 1990s").
"""

from __future__ import annotations

import glm_dspy.readings.lexicon as en
from glm_dspy.graphs.cypher.anchors import QuestionValues
from glm_dspy.readings.amounts import amounts
from glm_dspy.readings.question import Question
from glm_dspy.readings.words import Word

MAX_PHRASE_WORDS = 6  # the longest run of words read as one value ("Université Libre de Bruxelles" is 4)
_JOINERS = frozenset(".'’-_")  # signs inside one value word: "O'Brien", "Joliot-Curie", "chinese--english"
_DASHES = frozenset({"-", "–"})


def values(question: Question) -> QuestionValues:
    """What a stored value may equal in the question (module doc)."""
    words = question.words
    said = _value_words(words)
    phrases = [" ".join(said[i:j]) for i in range(len(said))
               for j in range(i + 1, min(len(said), i + MAX_PHRASE_WORDS) + 1)]
    dated, dates = _dates(words)
    ranges, ranged = _ranges(words, dated)
    in_range = {year for pair in ranges for year in pair}
    bounds = [(op, year) for op, year in _bounds(words, dated | ranged) if year not in in_range]
    decades, decade_at = _decades(words, dated)
    bound_years = {year for _, year in bounds}
    numbers = [int(w.text) for i, w in enumerate(words) if i not in dated | decade_at and _whole(words, i)
               and len(w.text) <= 9 and int(w.text) not in bound_years | in_range]
    lower = [w.lower() for w in said]
    return QuestionValues(tuple(dict.fromkeys(lower)), tuple(dict.fromkeys(phrases)), tuple(dict.fromkeys(numbers)),
                          tuple(dict.fromkeys(dates)), tuple(dict.fromkeys(bounds)), tuple(dict.fromkeys(decades)),
                          tuple(dict.fromkeys(amounts([w for i, w in enumerate(words) if i not in dated]))),
                          tuple(lower), tuple(dict.fromkeys(ranges)))


def _piece(word: Word) -> bool:
    return word.text[:1].isalnum()


def _value_words(words: tuple[Word, ...]) -> list[str]:
    """The words as written, those joined with no space between by a sign of `_JOINERS` one word
    ("Joliot-Curie", "U.S", "node_id"), a possessive's "'s" left off ("Curie's": Curie); a
    number's thousands separators part it ("1,000": 1, 000)."""
    found: list[str] = []
    run, pending = "", ""  # the word so far; a "." mark after it, kept only where a piece follows

    for w in words:
        joined = bool(run) and not w.spaced and set(w.before) <= _JOINERS
        if w.text == "." and joined and not pending:
            pending = w.written
            continue
        if _piece(w) and joined:
            run, pending = run + pending + w.before + w.written, ""
            continue
        possessive = w.text == "'s" and joined and not pending
        if run:
            found.append(run)
        run, pending = (w.written, "") if _piece(w) else ("", "")
        if w.text == "'s" and not possessive:  # "X 's", ")'s": not one's own, its "s" is a word of its own
            found.append(w.written[-1])
    if run:
        found.append(run)
    return [part for word in found for part in word.split(",") if part]


def _digits(word: Word, n: int | None = None) -> bool:
    return word.text.isdigit() and (n is None or len(word.text) == n)


def _month(word: Word) -> int | None:
    text = word.text
    for i, name in enumerate(en.MONTHS, 1):
        if text == name or len(text) == 3 and name.startswith(text):
            return i
    return None


def _day(word: Word) -> int | None:
    text = word.text
    digits = text[:-2] if text[-2:] in ("st", "nd", "rd", "th") else text
    return int(digits) if digits.isdigit() and 1 <= len(digits) <= 2 else None


def _dates(words: tuple[Word, ...]) -> tuple[set[int], list[str]]:
    """The indices of the words that write a date, and the dates as ISO text: "1864-06-25",
    "25 June 1864", "25th of June, 1864", "June 25, 1864", "Jun. 25 1864"."""
    used: set[int] = set()
    iso, spoken = [], []
    n = len(words)
    for i, w in enumerate(words):
        if _digits(w, 4) and i + 2 < n and all(_digits(words[i + k], 2) and not words[i + k].spaced
                                              and words[i + k].before == "-" for k in (1, 2)):
            iso.append(f"{w.text}-{words[i + 1].text}-{words[i + 2].text}")
            used.update(range(i, i + 3))
    for reader in (_day_month_year, _month_day_year):  # every "25 June 1864", then every "June 25, 1864"
        for i in range(n):
            found = None if i in used else reader(words, i)
            if found is not None:
                day, month, k = found
                spoken.append(f"{words[k].text}-{month:02d}-{day:02d}")
                used.update(range(i, k + 1))
    return used, list(dict.fromkeys(iso + spoken))


def _day_month_year(words: tuple[Word, ...], i: int) -> tuple[int, int, int] | None:
    """(day, month, where the year stands) of "25 June 1864", "25th of June, 1864" at `i`."""
    n, day = len(words), _day(words[i])
    j = i + 1 + (i + 1 < n and words[i + 1].text == "of")
    month = _month(words[j]) if day is not None and j < n else None
    k = _skip(words, _skip(words, j + 1, (".",)), (",",))
    return (day, month, k) if month is not None and k < n and _digits(words[k], 4) and _plain(words, i, k) else None


def _month_day_year(words: tuple[Word, ...], i: int) -> tuple[int, int, int] | None:
    """(day, month, where the year stands) of "June 25, 1864", "Jun. 25 1864" at `i`."""
    n, month = len(words), _month(words[i])
    j = _skip(words, i + 1, (".",))
    day = _day(words[j]) if month is not None and j < n else None
    k = _skip(words, j + 1, (",",))
    return (day, month, k) if day is not None and k < n and _digits(words[k], 4) and _plain(words, i, k) else None


def _plain(words: tuple[Word, ...], i: int, k: int) -> bool:
    """Nothing but spaces and the words' own marks between words i and k ("25 June, 1864"; not
    "1 (Jul 1897")."""
    return all(not words[m].before for m in range(i + 1, k + 1))


def _skip(words: tuple[Word, ...], at: int, marks: tuple[str, ...]) -> int:
    """Past one of `marks` at `at`, where one stands there."""
    return at + 1 if at < len(words) and words[at].text in marks else at


def _clung_before(words: tuple[Word, ...], i: int) -> bool:
    """A word, a dash, a point or a comma clings to it ("mid-2020", ".15", ",1901")."""
    w = words[i]
    return i > 0 and (w.clings and w.gap[-1] in "-–.," or not w.gap and (_piece(words[i - 1])
                                                                          or words[i - 1].text in (".", ",")))


def _clung_after(words: tuple[Word, ...], i: int) -> bool:
    """A word or a dash clings to the word after it ("2020-21")."""
    after = words[i + 1] if i + 1 < len(words) else None
    return after is not None and (after.gap[:1] in _DASHES or not after.gap and _piece(after))


def _year_alone(words: tuple[Word, ...], i: int) -> bool:
    """A year of four digits nothing clings to after ("2020", not "2020-21")."""
    return _digits(words[i], 4) and not _clung_after(words, i)


def _the_years(words: tuple[Word, ...], at: int) -> int:
    """Past "the year" or "the years" at `at`."""
    if at + 1 < len(words) and words[at].text == "the" and words[at + 1].text in ("year", "years"):
        return at + 2
    return at


def _ranges(words: tuple[Word, ...], dated: set[int]) -> tuple[list[tuple[int, int]], set[int]]:
    """The years values lie between, both said ("between 1901 and 2022", "from the year 1901
    to 2022", "1901-2022", "1901 – 2022"), low first; and the indices of their years."""
    found, used = [], set()
    n = len(words)
    for i, w in enumerate(words):
        pair = None
        if w.text in ("between", "from"):
            a = _the_years(words, i + 1)
            link = ("and",) if w.text == "between" else ("to", "until", "till", "through", "thru")
            if a + 2 < n and _digits(words[a], 4) and words[a + 1].text in link and _year_alone(words, a + 2):
                pair = (a, a + 2)
        elif _digits(w, 4) and i + 1 < n and _digits(words[i + 1], 4) and words[i + 1].before in _DASHES \
                and not (i > 0 and (w.clings and w.gap[-1] in _DASHES or not w.gap and _piece(words[i - 1]))) \
                and not _clung_after(words, i + 1):
            pair = (i, i + 1)
        if pair is None or any(p in dated for p in pair):
            continue
        low, high = int(words[pair[0]].text), int(words[pair[1]].text)
        if low <= high:
            found.append((low, high))
            used.update(pair)
    return found, used


def _bounds(words: tuple[Word, ...], skipped: set[int]) -> list[tuple[str, int]]:
    """A year the values lie on one side of: "since 2020" (>=), "after 1950" (>), "before 1900"
    (<), "until 1930" (<=), "prior to the year 1900" (<)."""
    found = []
    for i, w in enumerate(words):
        op, at = en.YEAR_BOUNDS.get(w.text), i + 1
        if w.text == "prior" and i + 1 < len(words) and words[i + 1].text == "to":
            op, at = "<", i + 2
        if op is None:
            continue
        at = _the_years(words, at) if at + 1 < len(words) and words[at + 1].text == "year" else at
        if at < len(words) and at not in skipped and _year_alone(words, at):
            found.append((op, int(words[at].text)))
    return found


def _decades(words: tuple[Word, ...], dated: set[int]) -> tuple[list[int], set[int]]:
    """The decades said ("the 1990s", "the 1920's"; not "mid-1990s"), and their words' indices."""
    found, used = [], set()
    for i, w in enumerate(words):
        if i in dated or i > 0 and (w.clings and w.gap[-1] in _DASHES or not w.gap and _piece(words[i - 1])):
            continue
        text = w.text
        if len(text) == 5 and text[:4].isdigit() and text[3] == "0" and text[4] == "s":
            found.append(int(text[:4]))
            used.add(i)
        elif _digits(w, 4) and text[3] == "0" and i + 1 < len(words) and words[i + 1].text == "'s" \
                and not words[i + 1].spaced:
            found.append(int(text))
            used.update((i, i + 1))
    return found, used


def _whole(words: tuple[Word, ...], i: int) -> bool:
    """A whole number written alone: not "1990s", "2nd", "1,000" or "2.5" (one word each, no
    digits alone), nor one a sign clings to ("COVID-19", "1901-2022": a range)."""
    if not words[i].text.isdigit() or _clung_before(words, i):
        return False
    after = words[i + 1] if i + 1 < len(words) else None
    return after is None or not (not after.gap and _piece(after)
                                 or after.gap in (".", ",", "-") and after.text[:1].isdigit())


__all__ = ["MAX_PHRASE_WORDS", "values"]
