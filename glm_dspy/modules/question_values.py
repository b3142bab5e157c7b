"""The values a question states, from its words: its words and runs of words, whole numbers,
dates ("25 June 1864", "June 25, 1864", "1864-06-25"), years that bound values ("since 2020"),
ranges ("between 1901 and 2022", "from A to B", "A-B"), decades ("the 1990s") and amounts
(`question_amounts`). graphs/cypher/anchors.py binds them to stored values.
"""

from __future__ import annotations

import re

from glm_dspy.graphs.cypher.anchors import QuestionValues
from glm_dspy.modules.question_amounts import question_amounts


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
