"""Inputs Kuzu 0.11.3 is known to crash on (a segfault, not an error), refused on the parse.

Found by running every allow-listed function with a literal NULL in each argument position, and
date, interval and regex edge cases, each in its own process (exit -11: SIGSEGV):
- a literal, untyped NULL as the list, node or path argument of `array_contains`, `id`, `label`,
  `labels`, `list_any_value`, `list_contains`, `list_has`, `list_product`, `list_reverse_sort`,
  `list_sum`, `nodes`, `properties`, `relationships`, `rels`; `x IN NULL`. A typed NULL (a
  property of an OPTIONAL MATCH) is fine. The rule is wider than the list: no function but the
  null-handling ones is given a literal NULL (its value would be NULL anyway);
- a date or timestamp outside years 1..9999, written (`date('10000-01-01')`) or reached by
  arithmetic (`date('2020-01-01') + 3000000`, `+ CAST('3000000 days' AS INTERVAL)`);
- `regexp_extract(s, re, -1)`: a negative group reads outside RE2's match array.
A date in the data shifted by at most MAX_SHIFT_DAYS stays in range for data dates of years
1000..8999; beyond that, the question worker's isolation (graphs/query_pool.py) is the guarantee:
these checks make the common case fast and the message clear.
"""

from __future__ import annotations

import datetime as dt
import re

from glm_dspy.graphs.cypher.errors import QueryRefused
from glm_dspy.graphs.cypher.syntax import Binary, Cast, FunctionCall, Literal, walk

NULL_TAKING = frozenset({"coalesce", "ifnull", "nullif"})
REGEX_GROUPS = frozenset({"regexp_extract", "regexp_extract_all"})
MAX_SHIFT_DAYS = 365_000  # about 1,000 years: the most a date may be moved by a number written in the query
_DAY_OF = {"year": 365.25, "month": 30.44, "week": 7, "day": 1, "hour": 1 / 24, "minute": 1 / 1440,
           "second": 1 / 86400, "millisecond": 1 / 86_400_000, "microsecond": 1 / 86_400_000_000,
           "y": 365.25, "d": 1, "h": 1 / 24, "m": 1 / 1440, "s": 1 / 86400, "ms": 1 / 86_400_000,
           "us": 1 / 86_400_000_000}
_AMOUNT = re.compile(r"(-?\d+(?:\.\d+)?)\s*([a-z]+)")


def check_crashers(tree) -> None:
    """Raise QueryRefused where `tree` holds an input Kuzu 0.11.3 crashes on (module doc)."""
    for node in walk(tree):
        if isinstance(node, FunctionCall):
            _check_call(node)
        elif isinstance(node, Binary) and node.op == "IN" and _is_null(node.right):
            raise QueryRefused("`x IN NULL` crashes Kuzu 0.11.3: write a list after IN")
        elif isinstance(node, Binary) and node.op in ("+", "-"):
            _check_shift(node)
        elif isinstance(node, Cast) and node.type_name.upper() in ("DATE", "TIMESTAMP"):
            _date_of(node)
        elif isinstance(node, Cast) and node.type_name.upper() == "INTERVAL":
            _interval_days(node)


def _is_null(expression) -> bool:
    return (isinstance(expression, Literal) and expression.value is None
            or isinstance(expression, Cast) and _is_null(expression.operand))


def _check_call(call: FunctionCall) -> None:
    name = call.name.lower()
    if name not in NULL_TAKING and any(_is_null(arg) for arg in call.args):
        raise QueryRefused(f"{call.name}() is given a literal NULL, which crashes Kuzu 0.11.3 for several "
                           "functions: leave the call out (its value would be NULL)")
    if name in REGEX_GROUPS and len(call.args) >= 3 and _integer(call.args[2]) is not None \
            and _integer(call.args[2]) < 0:
        raise QueryRefused(f"{call.name}() with a negative group crashes Kuzu 0.11.3: groups count from 0")
    if name in ("date", "timestamp"):
        _date_of(call)


def _integer(expression) -> int | None:
    if isinstance(expression, Literal) and isinstance(expression.value, int) and not isinstance(expression.value, bool):
        return expression.value
    return None


def _date_of(expression) -> dt.date | None:
    """The date a literal date expression writes (`date('..')`, `timestamp('..')`, a CAST of a
    string); None for any other expression. Refuses a year Kuzu cannot hold."""
    if isinstance(expression, FunctionCall) and expression.name.lower() in ("date", "timestamp"):
        written = expression.args[0] if len(expression.args) == 1 else None
    elif isinstance(expression, Cast) and expression.type_name.upper() in ("DATE", "TIMESTAMP"):
        written = expression.operand
    else:
        return None
    if not (isinstance(written, Literal) and isinstance(written.value, str)):
        return None
    found = re.match(r"\s*(-?\d+)-(\d{1,2})-(\d{1,2})", written.value)
    if found is None:
        return None  # not a date Kuzu reads either: its own error says so
    year = int(found.group(1))
    if not 1 <= year <= 9999:
        raise QueryRefused(f"the date {written.value!r} is outside years 1..9999, which crashes Kuzu 0.11.3")
    try:
        return dt.date(year, int(found.group(2)), int(found.group(3)))
    except ValueError:
        return None


def _interval_days(expression) -> float | None:
    """The days a literal interval (`CAST('3 days' AS INTERVAL)`) spans; refuses one past MAX_SHIFT_DAYS."""
    if not (isinstance(expression, Cast) and expression.type_name.upper() == "INTERVAL"
            and isinstance(expression.operand, Literal) and isinstance(expression.operand.value, str)):
        return None
    written = expression.operand.value
    amounts = _AMOUNT.findall(written.lower())
    days = sum(float(number) * _DAY_OF.get(unit.rstrip("s") if unit not in ("s", "ms", "us") else unit, 0)
               for number, unit in amounts)
    if abs(days) > MAX_SHIFT_DAYS:
        raise QueryRefused(f"the interval {written!r} is longer than {MAX_SHIFT_DAYS:,} days: a date "
                           "moved past year 9999 crashes Kuzu 0.11.3")
    return days


def _is_date(expression) -> bool:
    return (isinstance(expression, FunctionCall) and expression.name.lower() in ("date", "timestamp")
            or isinstance(expression, Cast) and expression.type_name.upper() in ("DATE", "TIMESTAMP"))


def _check_shift(node: Binary) -> None:
    """A date moved by a number or an interval written in the query stays within years 1..9999
    (an interval longer than MAX_SHIFT_DAYS is refused where it is written)."""
    for date_side, shift_side in ((node.left, node.right), (node.right, node.left)):
        days = _integer(shift_side) if _is_date(date_side) else None
        days = _interval_days(shift_side) if days is None else days
        if days is None:
            continue
        if abs(days) > MAX_SHIFT_DAYS:
            raise QueryRefused(f"a date moved by {days:,.0f} days (more than {MAX_SHIFT_DAYS:,}) can pass year 9999, "
                               "which crashes Kuzu 0.11.3")
        start = _date_of(date_side)
        if start is not None:
            moved = start.toordinal() + (-days if node.op == "-" and date_side is node.left else days)
            if not 1 <= moved <= dt.date.max.toordinal():
                raise QueryRefused("a date written in the query moves outside years 1..9999, which crashes Kuzu 0.11.3")
