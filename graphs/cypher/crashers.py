"""Inputs Kuzu 0.11.3 is known to crash on (a segfault, not an error), refused on the parse.

Found by running every allow-listed function with a literal NULL in each argument position (the
others a number, a string, a list, a property, a node, a relationship, a path or a date), and date,
interval, regex and operator edge cases, each query in a process of its own (exit -11: SIGSEGV):
- a literal, untyped NULL as the list, node or path argument of `array_contains`, `id`, `label`,
  `labels`, `list_any_value`, `list_contains`, `list_has`, `list_product`, `list_reverse_sort`,
  `list_sum`, `nodes`, `properties`, `relationships`, `rels`; `x IN NULL` (also `IN (NULL)` and
  inside `COUNT { ... }`). A typed NULL (`CAST(NULL AS INT64[])`, a property of an OPTIONAL MATCH)
  is fine. The rule is wider than the list: no function but the null-handling ones is given a
  literal NULL (its value is NULL, or Kuzu's error, for every other allow-listed one but `concat`);
- a date outside years 1..9999 (graphs/cypher/date_range.py);
- `regexp_extract(s, re, -1)`, `regexp_extract_all(s, re, -1)`: a negative group reads outside RE2's
  match array (a group past the last is Kuzu's error, not a crash); a group written with literals
  must be a whole number 0, 1, ...
These checks make the common case fast and the message clear; the question worker's isolation
(graphs/query_pool.py) is the guarantee for what they cannot see (a NULL or a date from the data).
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.date_range import check_dates, is_constant
from glm_dspy.graphs.cypher.errors import QueryRefused
from glm_dspy.graphs.cypher.syntax import Binary, FunctionCall, Literal, walk

NULL_TAKING = frozenset({"coalesce", "ifnull", "nullif"})
REGEX_GROUPS = frozenset({"regexp_extract", "regexp_extract_all"})


def check_crashers(tree) -> None:
    """Raise QueryRefused where `tree` holds an input Kuzu 0.11.3 crashes on (module doc)."""
    for node in walk(tree):
        if isinstance(node, FunctionCall):
            _check_call(node)
        elif isinstance(node, Binary) and node.op == "IN" and _is_null(node.right):
            raise QueryRefused("`x IN NULL` crashes Kuzu 0.11.3: write a list after IN")
    check_dates(tree)


def _is_null(expression) -> bool:
    """A literal NULL (Kuzu types it ANY); a CAST of one has a type and is fine."""
    return isinstance(expression, Literal) and expression.value is None


def _check_call(call: FunctionCall) -> None:
    name = call.name.lower()
    if name not in NULL_TAKING and any(_is_null(arg) for arg in call.args):
        raise QueryRefused(f"{call.name}() is given a literal NULL, which crashes Kuzu 0.11.3 for several "
                           "functions: leave the call out (its value would be NULL)")
    if name in REGEX_GROUPS and len(call.args) >= 3 and is_constant(call.args[2]) \
            and not _is_whole_number(call.args[2]):
        raise QueryRefused(f"{call.name}() with a group written as anything but a whole number 0, 1, ... "
                           "(a negative one crashes Kuzu 0.11.3): groups count from 0")


def _is_whole_number(expression) -> bool:
    return isinstance(expression, Literal) and isinstance(expression.value, int) \
        and not isinstance(expression.value, bool) and expression.value >= 0
