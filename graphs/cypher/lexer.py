"""Cypher text to tokens: the one place that decides what is a string, a name, a comment or code.

Follows Kuzu 0.11.3's lexer rules (`src/antlr4/Cypher.g4` in kuzu's sources): `'...'` and `"..."`
strings with backslash escapes, backtick-quoted names, `//` and `/* */` comments as whitespace,
the Unicode dashes and arrow heads Kuzu reads as `-`, `<`, `>`. A comment is dropped here, so
nothing hidden in one reaches the parser, and nothing the lexer cannot read is guessed at: it
raises `CypherSyntaxError` with the line and column.

Invariant: every token's `value` is what it means, not how it was written (a string's escapes
decoded, a quoted name unquoted); the printer (graphs/cypher/printer.py) writes them again from
the values, so the text that runs is never the text that came in.
"""

from __future__ import annotations

from dataclasses import dataclass

from glm_dspy.graphs.cypher.errors import CypherSyntaxError
from glm_dspy.graphs.literal import KEYWORDS

# Kuzu's grammar (oC_Dash, oC_LeftArrowHead, oC_RightArrowHead) reads these as '-', '<', '>'
DASHES = "\u00ad\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
LEFT_ARROWS = "\u27e8\u3008\ufe64\uff1c"
RIGHT_ARROWS = "\u27e9\u3009\ufe65\uff1e"
# two-character operators first, then one-character ones
OPERATORS = ("<>", "<=", ">=", "=~", "..", "!=", "->", "<-",
             "(", ")", "[", "]", "{", "}", ",", ".", ":", ";", "|", "=", "<", ">", "+", "-", "*", "/",
             "%", "^", "$", "!", "&")
ESCAPES = {"\\": "\\", "'": "'", '"': '"', "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
MAX_QUERY_CHARS = 20_000
# the parser's work is linear in the tokens (graphs/cypher/expression_parser.py parses each
# parenthesis once); 10,000 is a list literal of 5,000 numbers, far past any question's query
MAX_TOKENS = 10_000
MAX_NUMBER_DIGITS = 400  # Python refuses int() of 4,300+ digits; Kuzu's INT128 has 39


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "name", "quoted_name", "string", "integer", "float", "op", "end"
    value: object
    offset: int

    def is_word(self, *words: str) -> bool:
        """An unquoted name spelling one of `words` (keywords are case-insensitive)."""
        return self.kind == "name" and str(self.value).upper() in words


def tokenize(text: str) -> list[Token]:
    """The tokens of `text`, ending with an "end" token."""
    if len(text) > MAX_QUERY_CHARS:
        raise CypherSyntaxError(f"the query is {len(text)} characters long (at most {MAX_QUERY_CHARS})")
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        if len(tokens) > MAX_TOKENS:
            raise CypherSyntaxError(f"the query has more than {MAX_TOKENS} tokens (names, numbers, strings, "
                                    "operators): write a shorter one", text, i)
        ch = text[i]
        if ch.isspace() or ch == "\u180e":  # Kuzu's WHITESPACE: ASCII and Unicode spaces, FS GS RS US
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise CypherSyntaxError("a /* comment is never closed", text, i)
            i = end + 2
        elif ch in "'\"":
            value, i = _string(text, i)
            tokens.append(Token("string", value, i))
        elif ch == "`":
            end = text.find("`", i + 1)
            if end < 0:
                raise CypherSyntaxError("a `quoted name` is never closed", text, i)
            if end == i + 1 or text.startswith("`", end + 1):
                raise CypherSyntaxError("an empty or doubled `quoted name`", text, i)
            tokens.append(Token("quoted_name", text[i + 1: end], i))
            i = end + 1
        elif ch.isdigit() or ch == "." and i + 1 < n and text[i + 1].isdigit() and not _after_value(tokens):
            token, i = _number(text, i)
            tokens.append(token)
        elif ch.isidentifier() or ch == "_":
            start = i
            i += 1
            while i < n and (text[i].isidentifier() or text[i].isdigit() or text[i] == "_"
                             or ("x" + text[i]).isidentifier()):
                i += 1
            tokens.append(Token("name", text[start:i], start))
        else:
            op = next((op for op in OPERATORS if text.startswith(op, i)), None)
            if op is None and ch in DASHES + LEFT_ARROWS + RIGHT_ARROWS:
                op = "-" if ch in DASHES else "<" if ch in LEFT_ARROWS else ">"
                tokens.append(Token("op", op, i))
                i += 1
                continue
            if op is None:
                raise CypherSyntaxError(f"unexpected character {ch!r}", text, i)
            if op in ("->", "<-"):  # split: the parser reads arrows from '-', '<', '>'
                tokens += [Token("op", op[0], i), Token("op", op[1], i + 1)]
            else:
                tokens.append(Token("op", op, i))
            i += len(op)
    tokens.append(Token("end", None, n))
    return tokens


def _after_value(tokens: list[Token]) -> bool:
    """Whether a '.' here follows something it could look a property up on (`a.1` is no number;
    after a keyword, as in `RETURN .5`, it starts one)."""
    if not tokens:
        return False
    last = tokens[-1]
    return (last.kind == "quoted_name" or last.kind == "name" and str(last.value).upper() not in KEYWORDS
            or last.value in (")", "]"))


def _string(text: str, start: int) -> tuple[str, int]:
    quote, i, parts = text[start], start + 1, []
    while i < len(text):
        ch = text[i]
        if ch == quote:
            return "".join(parts), i + 1
        if ch == "\\":
            code = text[i + 1: i + 2]
            if code in ESCAPES:
                parts.append(ESCAPES[code])
                i += 2
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(code.lower() if code != "U" else "U")
            digits = text[i + 2: i + 2 + width] if width else ""
            if not width or len(digits) != width or any(c not in "0123456789abcdefABCDEF" for c in digits):
                raise CypherSyntaxError("a string has an unknown escape", text, i)
            if int(digits, 16) > 0x10FFFF:
                raise CypherSyntaxError(f"the escape \\{code}{digits} is past the last Unicode character", text, i)
            parts.append(chr(int(digits, 16)))
            i += 2 + width
            continue
        parts.append(ch)
        i += 1
    raise CypherSyntaxError("a string is never closed", text, start)


def _number(text: str, start: int) -> tuple[Token, int]:
    i, n = start, len(text)
    while i < n and text[i].isdigit():
        i += 1
    is_float = False
    if i + 1 < n and text[i] == "." and text[i + 1].isdigit():  # not `1..3` (a range)
        is_float = True
        i += 1
        while i < n and text[i].isdigit():
            i += 1
    if i < n and text[i] in "eE" and (text[i + 1: i + 2].isdigit() or text[i + 1: i + 3][:1] == "-"
                                      and text[i + 2: i + 3].isdigit()):
        is_float = True
        i += 2
        while i < n and text[i].isdigit():
            i += 1
    written = text[start:i]
    if not all(c.isascii() for c in written):
        raise CypherSyntaxError("a number with non-ASCII digits", text, start)
    if len(written) > MAX_NUMBER_DIGITS:
        raise CypherSyntaxError(f"a number of {len(written)} digits (at most {MAX_NUMBER_DIGITS})", text, start)
    return Token("float" if is_float else "integer", float(written) if is_float else int(written), start), i
