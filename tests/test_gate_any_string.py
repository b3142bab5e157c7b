"""`gate(text)` raises QueryRefused or CypherSyntaxError, and nothing else, for any str (issue 47):
lone surrogates, escapes past U+10FFFF, control characters, numbers Python will not convert and
chains deeper than Python's stack were each a different Python error before."""

from __future__ import annotations

import random
import time

import pytest

from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, gate

# times are this process's CPU time (time.process_time): the machine's other work does not count
PIECES = ["(", ")", "{", "}", "{x: ", "[", "]", "(a)", "-[:r]->", "<-[*1..3]-", "-[r*]-", "(b:l {n: 1})", "1", "0", "1.5",
          ".5", "1e16", "1e-5", "1e999", "+", "-", "*", "/", "%", "^", ",", " AS ", "'s'", '"d"', "\\", "'", '"', "`", "`q`",
          "MATCH ", "OPTIONAL MATCH ", "RETURN ", "WITH ", "WHERE ", "UNWIND ", " ORDER BY ", " SKIP ", " LIMIT ", " UNION ",
          "DISTINCT ", "\ud800", "\udfff", "\x01", "\x00", "\u2014", "'\\U00110000'", "'\\ud800'", "'\\x00'", "'\\u0000'",
          "'\\", "<", ">", "=", "<>", "=~", ":", "..", "NULL", "TRUE", "CASE ", "WHEN ", " THEN ", " ELSE ", " END",
          "EXISTS {", "COUNT {", "COUNT(*)", "1+" * 300, "((" * 40, "[" * 40, "{x:" * 40, "SET ", "set", "use", "update",
          "LOAD FROM ", "CALL ", "date('10000-01-01')", "nodes(NULL)", "IN ", "IS NULL", "NOT ", "AND ", "OR ",
          "STARTS WITH ", "CONTAINS ", "a.b", "x", "abs(", "CAST(", " AS INT64)", "range(", "regexp_extract(", ";", "//c\n",
          "/*", "*/", "$p", "ALL(x IN ", "9" * 500, "9" * 5000, "\n", " ", "é", "\U0001F600", "\u180e", "\uff0d", "\u27e8",
          "CAST('3 days' AS INTERVAL)", "[1,2][0..1]"]
NESTINGS = [("(", ")"), ("[", "]"), ("{x: ", "}"), ("({x: ", "})"), ("(({x: ", "}))"), ("abs(", ")"), ("-", ""),
            ("NOT ", ""), ("[1][", "]"), ("CASE WHEN true THEN ", " END")]


def random_text(rng: random.Random) -> str:
    """Cypher tokens, quotes, backslashes, surrogates and control characters in random order;
    random code points; or a random nesting, balanced or not."""
    kind = rng.random()
    if kind < 0.7:
        return ("RETURN " if rng.random() < 0.5 else "") + "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 60)))
    if kind < 0.85:
        return "".join(chr(rng.choice([rng.randint(0, 127), rng.randint(0, 0x10FFFF), rng.randint(0xD800, 0xDFFF)]))
                       for _ in range(rng.randint(1, 60)))
    opening, closing = rng.choice(NESTINGS)
    levels = rng.randint(1, 120)
    return ("RETURN " + opening * levels + rng.choice(["1", "NULL", "x", "'a'", ""])
            + closing * rng.randint(levels - 2, levels + 1) + " AS v")


def test_any_string_gets_only_a_refusal_or_a_syntax_error_and_each_costs_little():
    rng = random.Random(0)
    for _ in range(3000):
        text = random_text(rng)
        started = time.process_time()
        try:
            gate(text)
        except (QueryRefused, CypherSyntaxError):
            pass
        assert time.process_time() - started < 0.5, text[:200]


@pytest.mark.parametrize("text, error", [
    ("RETURN '\ud800' AS x", "lone surrogate"),  # Kuzu's binding raised TypeError on it
    ("RETURN '\\ud800' AS x", "lone surrogate"),  # the same, written as an escape
    ("RETURN 1 AS `\udfff`", "lone surrogate"),
    ("RETURN '\\U00110000' AS x", "past the last Unicode character"),  # chr() raised ValueError
    ("RETURN " + "+".join(["1"] * 1500) + " AS x", "levels deep"),  # RecursionError in walk and the printer
    ("RETURN 'a\u0001' AS x", "control characters"),  # the printer's ValueError
    ("RETURN `a\x00` AS x", "identifier"),
    ("RETURN " + "1" * 5000 + " AS x", "digits"),  # int() of 4,300+ digits raised ValueError
    ("RETURN 1e999 AS x", "not a finite number"),
])
def test_what_escaped_as_a_python_error_is_one_refusal_or_syntax_error(text, error):
    with pytest.raises((QueryRefused, CypherSyntaxError), match=error) as raised:
        gate(text)
    assert len(str(raised.value).splitlines()) == 1


def test_what_is_not_text_is_a_syntax_error():
    for value in (None, b"RETURN 1 AS x", 1):
        with pytest.raises(CypherSyntaxError, match="a query is text"):
            gate(value)
