"""What the Cypher parser and gate raise: a query that is not Cypher, and one that may not run."""

from __future__ import annotations


class CypherSyntaxError(ValueError):
    """The text is not a query this parser reads; the message says where."""

    def __init__(self, message: str, text: str = "", offset: int | None = None):
        if offset is not None and text:
            line = text.count("\n", 0, offset) + 1
            column = offset - (text.rfind("\n", 0, offset) + 1) + 1
            near = text[offset: offset + 20].split("\n")[0]
            message = f"{message} at line {line}, column {column}" + (f" (near {near!r})" if near else "")
        super().__init__(message)


class QueryRefused(ValueError):
    """The query parses but does something a question may not do (write, load, call, ...)."""


READING = "MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY, SKIP, LIMIT, UNION"


def refused_clause(word: str) -> QueryRefused:
    return QueryRefused(f"{word.upper()} is not allowed: a query may only read the graph ({READING})")
