"""The read-only gate: may this query run for a question? Decided on its parse, never on its text.

`gate(text)` parses (graphs/cypher/parser.py: one statement, reading clauses only; anything else
is refused by name or is a syntax error), then checks the tree against allow-lists: functions
(FUNCTIONS), cast types, bounded `range`, bounded variable-length hops (MAX_HOPS), bounded
literal sizes, and the inputs Kuzu 0.11.3 is known to crash on (graphs/cypher/crashers.py). It
returns the tree and the text the printer writes from it: that text, not the input, is what runs.
A refusal is a `QueryRefused` whose message names what was refused.

Budgets, so that any str costs milliseconds: at most lexer.MAX_QUERY_CHARS characters and
lexer.MAX_TOKENS tokens, parsed in linear time (expression_parser.py parses each parenthesis once),
token_reader.MAX_DEPTH levels of nesting while parsing and MAX_TREE_DEPTH levels in the tree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.crashers import check_crashers
from glm_dspy.graphs.cypher.errors import CypherSyntaxError, QueryRefused
from glm_dspy.graphs.cypher.parser import parse
from glm_dspy.graphs.cypher.printer import print_query
from glm_dspy.graphs.cypher.syntax import Cast, FunctionCall, ListLiteral, Literal, Query, RelPattern, children, walk

MAX_HOPS = 10  # upper bound of a variable-length relationship; Kuzu's own default is 30
MAX_RANGE = 10_000  # elements `range(a, b)` may make
MAX_LIST_ITEMS = 10_000
# how deep a tree may be: every pass and the printer recurse on it (Python's stack: 1,000 frames);
# `1+1+...+1` of 1,500 terms is 1,500 deep
MAX_TREE_DEPTH = 200
# Kuzu 0.11.3 functions a reading query may call: aggregates, and scalars whose output is at most
# a small multiple of their input. Generators (lpad, rpad, repeat, range beyond MAX_RANGE),
# table functions and anything touching files, settings or the catalog are not here.
FUNCTIONS = frozenset("""
count sum avg min max collect
size length lower upper tolower toupper lcase ucase trim ltrim rtrim substring substr left right
starts_with ends_with contains prefix suffix reverse concat string to_string initcap
levenshtein regexp_matches regexp_extract regexp_extract_all regexp_split_to_array
string_split split_part array_extract list_extract list_element list_contains list_has array_contains
list_position list_distinct list_unique list_sort list_reverse_sort list_reverse list_sum list_product
list_concat list_cat array_concat list_slice list_any_value list_has_all list_to_string
coalesce ifnull nullif greatest least abs round floor ceil ceiling sign sqrt pow log log2 log10 ln
to_int64 to_int32 to_int16 to_int8 to_uint64 to_double to_float to_bool
date date_part datepart date_trunc datetrunc dayname monthname last_day
label labels id nodes rels relationships properties is_trail is_acyclic offset typeof
range
""".split())  # each one Kuzu 0.11.3 has (`CALL show_functions()`; tests/test_gate_benign.py)
CAST_TYPES = frozenset("INT8 INT16 INT32 INT64 INT128 UINT8 UINT16 UINT32 UINT64 FLOAT DOUBLE STRING BOOL "
                       "BOOLEAN DATE TIMESTAMP INTERVAL SERIAL".split())


@dataclass(frozen=True, slots=True)
class GatedQuery:
    """A query that passed the gate: its tree and the canonical text that will run."""
    tree: Query
    text: str


def gate(text: str) -> GatedQuery:
    """Parse `text` and check it; raises QueryRefused (a clause, function or bound it may not
    use) or CypherSyntaxError (not Cypher this parser reads), and nothing else, for any str."""
    if not isinstance(text, str):
        raise CypherSyntaxError(f"a query is text, not {type(text).__name__}")
    _check_unicode(text, "the query")
    try:
        return gate_tree(parse(text))
    except RecursionError:  # a backstop behind MAX_DEPTH and MAX_TREE_DEPTH
        raise QueryRefused("the query nests too deeply to check") from None


def gate_tree(tree: Query) -> GatedQuery:
    """Check an already parsed (or pass-rewritten) tree; the same rules as `gate`."""
    _check_depth(tree)
    check_crashers(tree)
    tree = _bounded_hops(tree)
    for node in walk(tree):
        if isinstance(node, FunctionCall):
            _check_function(node)
        elif isinstance(node, Cast) and node.type_name.upper() not in CAST_TYPES:
            raise QueryRefused(f"CAST to {node.type_name} is not allowed (types: {', '.join(sorted(CAST_TYPES))})")
        elif isinstance(node, ListLiteral) and len(node.items) > MAX_LIST_ITEMS:
            raise QueryRefused(f"a list literal of {len(node.items)} items (at most {MAX_LIST_ITEMS})")
        elif isinstance(node, Literal) and isinstance(node.value, int) and not isinstance(node.value, bool) \
                and not -2**63 <= node.value < 2**63:
            raise QueryRefused(f"the number {node.value} does not fit in 64 bits")
    try:
        text = print_query(tree)
    except ValueError as error:  # a name or string the printer will not write (control characters)
        raise QueryRefused(str(error)) from None
    _check_unicode(text, "a string or name of the query")
    return GatedQuery(tree, text)


def _check_unicode(text: str, what: str) -> None:
    """Kuzu takes UTF-8: a lone surrogate (from `\\ud800` or undecodable bytes) cannot be sent."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise QueryRefused(f"{what} holds {text[error.start]!r} at character {error.start}, which is not "
                           "Unicode text (a lone surrogate)") from None


def _check_depth(tree: Query) -> None:
    """Refuse a tree deeper than MAX_TREE_DEPTH, measured without recursion."""
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TREE_DEPTH:
            raise QueryRefused(f"the query nests {MAX_TREE_DEPTH}+ levels deep (a chain of that many operators, "
                               "or brackets): write it with fewer")
        stack.extend((child, depth + 1) for child in children(node))


def _check_function(call: FunctionCall) -> None:
    name = call.name.lower()
    if name not in FUNCTIONS:
        raise QueryRefused(f"the function {call.name}() is not allowed in a question's query")
    if name == "range":
        bounds = [arg.value if isinstance(arg, Literal) and isinstance(arg.value, int) else None
                  for arg in call.args]
        if len(bounds) not in (2, 3) or None in bounds or (len(bounds) == 3 and bounds[2] == 0):
            raise QueryRefused("range() takes two or three whole numbers written in the query")
        step = bounds[2] if len(bounds) == 3 else 1
        if (bounds[1] - bounds[0]) // step + 1 > MAX_RANGE:
            raise QueryRefused(f"range({bounds[0]}, {bounds[1]}) makes more than {MAX_RANGE} numbers")


def _bounded_hops(tree: Query) -> Query:
    """Every variable-length relationship given an upper bound of at most MAX_HOPS."""
    for node in walk(tree):
        if isinstance(node, RelPattern) and node.length is not None:
            low, high = node.length
            if high is not None and high > MAX_HOPS:
                raise QueryRefused(f"a variable-length relationship of up to {high} hops (at most {MAX_HOPS})")
            if low is not None and high is not None and low > high:
                raise QueryRefused(f"a variable-length relationship of {low}..{high} hops")
    return _replace_rels(tree, lambda rel: rel if rel.length is None or rel.length[1] is not None
                         else replace(rel, length=(rel.length[0], MAX_HOPS)))


def _replace_rels(node, change):
    """`node` with `change` applied to every RelPattern inside it (trees are frozen)."""
    if isinstance(node, RelPattern):
        return change(node)
    if isinstance(node, tuple):
        return tuple(_replace_rels(item, change) for item in node)
    if hasattr(node, "__dataclass_fields__"):
        updates = {name: _replace_rels(getattr(node, name), change) for name in node.__dataclass_fields__}
        return replace(node, **updates)
    return node


__all__ = ["GatedQuery", "gate", "gate_tree", "QueryRefused", "CypherSyntaxError", "MAX_HOPS", "FUNCTIONS"]
