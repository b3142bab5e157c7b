"""Reading a query's tokens one at a time (graphs/cypher/lexer.py), for the parsers: where the
reader stands, what it expects next, and how deep it has nested (MAX_DEPTH), with errors that
say the line and column."""

from __future__ import annotations

from glm_dspy.graphs.cypher.errors import CypherSyntaxError
from glm_dspy.graphs.cypher.lexer import Token, tokenize

# levels of nesting (an expression, a list, a map, a call, a bracket ... each one level); a level
# costs at most ~9 Python frames, so 64 stay well inside Python's 1,000 with a caller's own stack
# (tests/test_gate_budget.py measures it from 300 frames deep)
MAX_DEPTH = 64


class TokenReader:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)  # at most lexer.MAX_TOKENS
        self.i = 0
        self.depth = 0
        self.parenthesised_at: dict[int, tuple] = {}  # token index -> (tree, index after it) or (error message, None)

    @property
    def token(self) -> Token:
        return self.tokens[self.i]

    def peek(self, ahead: int = 1) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def at(self, *ops: str) -> bool:
        return self.token.kind == "op" and self.token.value in ops

    def at_word(self, *words: str) -> bool:
        return self.token.is_word(*words)

    def advance(self) -> Token:
        token = self.token
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return token

    def error(self, message: str, token: Token | None = None) -> CypherSyntaxError:
        return CypherSyntaxError(message, self.text, (token or self.token).offset)

    def expect(self, op: str) -> Token:
        if not self.at(op):
            raise self.error(f"expected '{op}'")
        return self.advance()

    def expect_word(self, *words: str) -> Token:
        if not self.at_word(*words):
            raise self.error(f"expected {' or '.join(words)}")
        return self.advance()

    def name(self, what: str = "a name") -> str:
        if self.token.kind not in ("name", "quoted_name"):
            raise self.error(f"expected {what}")
        return str(self.advance().value)

    def nested(self) -> "_Nested":
        """A `with` block one level deeper; past MAX_DEPTH it raises CypherSyntaxError."""
        return _Nested(self)


class _Nested:
    """One level of nesting of `reader` for the length of a `with` block (one small object, no
    class made per call: those are reference cycles the garbage collector must find)."""
    __slots__ = ("reader",)

    def __init__(self, reader: TokenReader):
        self.reader = reader

    def __enter__(self) -> None:
        self.reader.depth += 1
        if self.reader.depth > MAX_DEPTH:
            raise self.reader.error(f"the query nests deeper than {MAX_DEPTH} levels")

    def __exit__(self, *exc) -> None:
        self.reader.depth -= 1


__all__ = ["TokenReader", "MAX_DEPTH"]
