"""`Observation`: a graph function's answer to bad input, typed so control flow never reads its text.

A graph function returns an `Observation` instead of a result when its input names nothing in
the graph (an unknown id, feature or neighbour type, an empty text); its text names the valid
options for the Act agent. Code decides "result or observation" by type only, never by what the
text says: a feature value that happens to read "has no feature" is a plain `str`, a result.

Invariants: an `Observation` is a `str` (snippets print, compare and slice it like one; its
methods return plain `str`), except that it cannot be iterated; it survives the executor's wire
format (protocol.py marks where observations sit inside a reply and the worker rebuilds them);
this module imports nothing, so the sandboxed worker and the parent share it.
"""

import ast
from collections.abc import Iterator
from typing import Any

MAX_NESTING = 64  # as deep as a reply may nest (protocol.MAX_JSON_DEPTH)


class Observation(str):
    """Text a graph function answered instead of a result.

    Iterating it raises TypeError with the text: a snippet that loops over what it took for a
    list of ids, or joins it, would otherwise walk the message's characters and print them
    as a result ("N, o, d, e, ..."); the error sends the message to Act's repair instead."""

    __slots__ = ()

    def __iter__(self):
        raise TypeError(f"a graph function answered with a message, not a list: {str.__str__(self)}")


def observations_in(value: Any, depth: int = 0) -> Iterator[Observation]:
    """The Observations a JSON-like tree `value` is or holds in list/tuple items and dict
    values, depth-first, at most MAX_NESTING levels down."""
    if isinstance(value, Observation):
        yield value
    elif depth < MAX_NESTING and type(value) in (list, tuple, dict):
        for item in value.values() if type(value) is dict else value:
            yield from observations_in(item, depth + 1)


def contains_observation(value: Any) -> bool:
    """Whether `value` is or holds an Observation in list/tuple items and dict values; each
    container is looked at once, so a list that holds itself ends too."""
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, Observation):
            return True
        if type(item) in (list, tuple, dict) and id(item) not in seen:
            seen.add(id(item))
            stack.extend(item.values() if type(item) is dict else item)
    return False


EMPTY_OUTPUTS = ("[]", "set()", "{}", "()", "none", "''", '""')


def is_empty_output(output: str) -> bool:
    """Whether a snippet printed only empty results ("[]", "None", ...): a path that found
    nothing, not an answer (an empty list printed as the answer was a frequent wrong answer)."""
    lines = [line.strip().lower() for line in output.splitlines() if line.strip()]
    return bool(lines) and all(line in EMPTY_OUTPUTS for line in lines)


def printed_values(output: str) -> list:
    """The values a snippet printed: each line's Python literal (a list's items), else the line
    itself ("['1867-11-07']" -> ["1867-11-07"]; "Warsaw" -> ["Warsaw"])."""
    values = []
    for line in (line.strip() for line in output.splitlines()):
        if not line:
            continue
        try:
            value = ast.literal_eval(line) if len(line) <= MAX_LITERAL else line
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            value = line
        values += list(value) if isinstance(value, (list, tuple, set)) else [value]
    return values


MAX_LITERAL = 10_000  # characters of a printed line read as a literal; longer lines are text
