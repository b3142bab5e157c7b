"""Dates Kuzu 0.11.3 cannot hold, refused on the parse (graphs/cypher/crashers.py calls `check_dates`).

Kuzu's DATE and TIMESTAMP hold years 1..9999, and a value outside them segfaults (exit -11), whether
written (`date('10000-01-01')`, `CAST(' 10000-01-01' AS TIMESTAMP)`) or reached by arithmetic
(`date('9999-12-31') + 1`, `date('2020-01-01') + CAST('3000000 days' AS INTERVAL)`). Checked here:
- a date, timestamp or interval made of literals only is written as one string literal (or, for a
  timestamp, a date): one built by `concat` or a CAST of a string CAST (`date(concat('1000', '0-01-01'))`,
  which crashes) cannot be read here;
- a date written in the query stays within years 1..9999, moved or not;
- a constant shift (days as a number, an interval literal, sums of them) spans at most MAX_SHIFT_DAYS
  when it moves a date (`date(..)`, a CAST to DATE or TIMESTAMP, a date written in the query), and an
  interval spans at most that wherever it is.
A date from the data shifted by at most MAX_SHIFT_DAYS stays in range for data of years 1000..8999;
past that, the question worker's isolation (graphs/query_pool.py) is the guarantee.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from glm_dspy.graphs.cypher.errors import QueryRefused
from glm_dspy.graphs.cypher.syntax import (Binary, Cast, FunctionCall, Literal, PatternPredicate, Property, Quantifier,
                                           Subquery, Unary, Variable, walk)

MAX_SHIFT_DAYS = 365_000  # about 1,000 years
LAST_DAY = dt.date.max.toordinal()  # 9999-12-31; 0001-01-01 is day 1
# a timestamp's time of day and time zone move it by up to a day: one on the first or last day
# crashes (`timestamp('9999-12-31 23:00:00-05:00')`), so a timestamp, or a date moved by arithmetic
# (which may be a timestamp, or have hours added), stays a day inside the range
MARGIN_DAYS = 1
# Kuzu's interval units (its interval parser's specifiers), in days; a month counted as 31, a year as
# 366, so a bound on the sum is never too small. A unit not listed counts as a millennium.
_YEAR, _MONTH, _SECOND = 366, 31, 1 / 86_400
_UNIT_DAYS = {
    **dict.fromkeys(("millennium", "millennia", "mil", "mils"), 1000 * _YEAR),
    **dict.fromkeys(("century", "centuries", "c", "cent", "cents"), 100 * _YEAR),
    **dict.fromkeys(("decade", "decades", "dec", "decs"), 10 * _YEAR),
    **dict.fromkeys(("year", "years", "y", "yr", "yrs"), _YEAR),
    **dict.fromkeys(("month", "months", "mon", "mons"), _MONTH),
    **dict.fromkeys(("week", "weeks", "w"), 7),
    **dict.fromkeys(("day", "days", "d", ""), 1),  # "": the hours of `hh:mm:ss`, counted as days
    **dict.fromkeys(("hour", "hours", "h", "hr", "hrs"), 1 / 24),
    **dict.fromkeys(("minute", "minutes", "m", "min", "mins"), 1 / 1440),
    **dict.fromkeys(("second", "seconds", "s", "sec", "secs"), _SECOND),
    **dict.fromkeys(("millisecond", "milliseconds", "ms", "msec", "msecs", "msecond", "mseconds"), _SECOND / 1e3),
    **dict.fromkeys(("microsecond", "microseconds", "us", "usec", "usecs", "usecond", "useconds"), _SECOND / 1e6),
}
_AMOUNT = re.compile(r"([0-9]+(?:\.[0-9]*)?)\s*([a-z]*)")
# a year, a month and a day, between any separators (Kuzu reads '10000/01/01' too, and crashes on it)
_YEAR_OF = re.compile(r"\s*(-?)0*([0-9]+)[^0-9]([0-9]{1,2})[^0-9]([0-9]{1,2})")
_NOT_CONSTANT = (Variable, Property, Subquery, PatternPredicate, Quantifier)
_FAR = 10 ** 18  # a shift's days are clamped to +-_FAR (a product of many numbers stays a number)


@dataclass(frozen=True, slots=True)
class _Constant:
    """What an expression written with literals only is, as far as dates go: a date or timestamp
    (`days` is its day, 0001-01-01 being 1), or a shift (`days` it moves a date by)."""
    is_date: bool
    days: float
    has_interval: bool = False


def check_dates(tree) -> None:
    """Raise QueryRefused where `tree` makes a date Kuzu 0.11.3 cannot hold (module doc). Each
    node's constant value is worked out once (`memo`, by node id), so the check is linear."""
    memo: dict[int, _Constant | None] = {}
    for node in walk(tree):
        if _is_date(node) or _is_interval(node):
            written = node.operand if isinstance(node, Cast) else node.args[0] if len(node.args) == 1 else None
            if written is not None and not (isinstance(written, Literal) and isinstance(written.value, str)) \
                    and not _is_date(written) and is_constant(written):  # CAST(date('..') AS TIMESTAMP) is read
                raise QueryRefused("a date, timestamp or interval made of literals is written as one string "
                                   "('2020-01-01', '3 days'): Kuzu 0.11.3 crashes on some it cannot check")
            _constant(node, memo)
        elif isinstance(node, Binary) and node.op in ("+", "-"):
            value = _constant(node, memo)
            if value is not None and value.is_date and not 1 + MARGIN_DAYS <= value.days <= LAST_DAY - MARGIN_DAYS:
                raise QueryRefused("a date written in the query moves outside years 1..9999, which crashes "
                                   "Kuzu 0.11.3")
            for date_side, shift_side in ((node.left, node.right), (node.right, node.left)):
                date, shift = _constant(date_side, memo), _constant(shift_side, memo)
                if shift is not None and not shift.is_date and abs(shift.days) > MAX_SHIFT_DAYS \
                        and (date is not None and date.is_date or _is_date(date_side) or shift.has_interval):
                    raise QueryRefused(f"a date moved by {shift.days:,.0f} days (more than {MAX_SHIFT_DAYS:,}) "
                                       "can pass year 9999, which crashes Kuzu 0.11.3")


def _is_date(node) -> bool:
    return (isinstance(node, FunctionCall) and node.name.lower() in ("date", "timestamp")
            or isinstance(node, Cast) and node.type_name.upper() in ("DATE", "TIMESTAMP"))


def _is_interval(node) -> bool:
    return isinstance(node, Cast) and node.type_name.upper() == "INTERVAL"


def is_constant(expression) -> bool:
    """Made of literals only: no variable, property, pattern or subquery inside."""
    return not any(isinstance(node, _NOT_CONSTANT) for node in walk(expression))


def _constant(node, memo: dict[int, _Constant | None]) -> _Constant | None:
    if id(node) not in memo:
        memo[id(node)] = _evaluate(node, memo)
    return memo[id(node)]


def _evaluate(node, memo) -> _Constant | None:
    """A date written in the query (`date('..')`, `timestamp('..')`, a CAST of a string), moved or
    not by a shift; or a shift: a whole number, an interval literal, their negation, sums,
    differences and products, the difference of two dates. None for anything else."""
    if _is_date(node):
        is_timestamp = (node.type_name if isinstance(node, Cast) else node.name).upper() == "TIMESTAMP"
        written = node.operand if isinstance(node, Cast) else node.args[0] if len(node.args) == 1 else None
        day = _written_day(written, MARGIN_DAYS if is_timestamp else 0)
        return None if day is None else _Constant(True, day)
    if _is_interval(node):
        days = _interval_days(node.operand)
        return None if days is None else _Constant(False, days, True)
    if isinstance(node, Literal) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return _Constant(False, _clamp(node.value))
    if isinstance(node, Unary) and node.op == "-":
        inner = _constant(node.operand, memo)
        return None if inner is None or inner.is_date else _Constant(False, -inner.days, inner.has_interval)
    if not (isinstance(node, Binary) and node.op in ("+", "-", "*")):
        return None
    left, right = _constant(node.left, memo), _constant(node.right, memo)
    if left is None or right is None:
        return None
    has_interval = left.has_interval or right.has_interval
    if left.is_date and right.is_date:
        return _Constant(False, left.days - right.days) if node.op == "-" else None
    if node.op == "*":
        return None if left.is_date or right.is_date else _Constant(False, _clamp(left.days * right.days), has_interval)
    if left.is_date or right.is_date:
        if right.is_date and node.op == "-":
            return None  # a number minus a date: not a date
        return _Constant(True, left.days + right.days if node.op == "+" else left.days - right.days)
    return _Constant(False, _clamp(left.days + right.days if node.op == "+" else left.days - right.days), has_interval)


def _clamp(days: float) -> float:
    return max(-_FAR, min(_FAR, days))


def _written_day(written, margin: int) -> int | None:
    """The day of a date string literal Kuzu reads (`'2020-01-01'`, `' 2020/1/1 10:00'`); refuses one
    outside years 1..9999 (less `margin` days each side); None for anything else (Kuzu's own error
    says what is wrong)."""
    if not (isinstance(written, Literal) and isinstance(written.value, str)):
        return None
    found = _YEAR_OF.match(written.value)
    if found is None:
        return None
    sign, year, month, day = found.groups()
    if sign or len(year) > 4 or not 1 <= int(year) <= 9999:
        raise QueryRefused(f"the date {written.value!r} is outside years 1..9999, which crashes Kuzu 0.11.3")
    try:
        ordinal = dt.date(int(year), int(month), int(day)).toordinal()
    except ValueError:
        return None
    if not 1 + margin <= ordinal <= LAST_DAY - margin:
        raise QueryRefused(f"the timestamp {written.value!r} is on the first or last day Kuzu 0.11.3 holds, where "
                           "its time zone can move it out of years 1..9999 (which crashes Kuzu)")
    return ordinal


def _interval_days(written) -> float | None:
    """The days an interval string literal (`'3 days'`) spans at most; refuses one longer than
    MAX_SHIFT_DAYS. None for anything but a string literal."""
    if not (isinstance(written, Literal) and isinstance(written.value, str)):
        return None
    days = sum(float(number) * _UNIT_DAYS.get(unit, _UNIT_DAYS["millennium"])
               for number, unit in _AMOUNT.findall(written.value.lower()))
    if days > MAX_SHIFT_DAYS:
        raise QueryRefused(f"the interval {written.value!r} is longer than {MAX_SHIFT_DAYS:,} days: a date "
                           "moved past year 9999 crashes Kuzu 0.11.3")
    return days
