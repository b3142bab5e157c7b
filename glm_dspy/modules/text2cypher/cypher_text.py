"""The patterns Text2Cypher's rewrites read a query's text with (string literals, name literals,
node and relationship labels, a RETURN of one item), and the escaping of a name literal.

A query is read here as text, not parsed (graphs/cypher/ parses the gated query); the rewrites in
rewrites.py and paths.py use these."""

from __future__ import annotations

import re

STRING_LITERAL = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
NAME_LITERAL = r"(\b{f}\s*:\s*|\.{f}\s*=\s*)'((?:[^'\\]|\\.)*)'"  # f: a text feature (name, title)
LONE_NODE = re.compile(r"^\s*MATCH\s+(\((?:[^()'\"]|'(?:[^'\\]|\\.)*')*\))\s+RETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\s*$",
                       re.IGNORECASE)
OWN_RETURN = re.compile(r"^\s*(?:WHERE\s+\w+\s*<>\s*\w+\s+)?RETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\s*$", re.IGNORECASE)
RETURN_ONE = re.compile(r"^\s*RETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\s*$", re.IGNORECASE)
# the query's last clause returns one count and nothing after it: `RETURN count(DISTINCT s)`, `... AS n`
RETURN_COUNT = re.compile(r"\bRETURN\s+count\s*\(\s*(DISTINCT\s+)?(\w+)(?:\.(\w+))?\s*\)(?:\s+AS\s+\w+)?\s*$",
                          re.IGNORECASE)
# ... returns a relation of a node as if it were a property, and a feature of that: `RETURN c.author.name`
NESTED_RETURN = re.compile(r"\bRETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)\.(\w+)\s*$", re.IGNORECASE)
NESTED = "glm_nested"  # the variable the node a nested property reaches is bound to
# ... returns one node's one feature and nothing after it: `RETURN DISTINCT s.name`
RETURN_FEATURE = re.compile(r"\bRETURN\s+(DISTINCT\s+)?(\w+)\.(\w+)(?:\s+AS\s+\w+)?\s*$", re.IGNORECASE)
FENCE = re.compile(r"^```(?:cypher)?\s*|\s*```$", re.IGNORECASE)
# a relationship pattern's table: `[:rel_x`, `[r:rel_x`, `[r: `rel_x``
RELATIONSHIP_LABEL = re.compile(r"(\[\s*\w*\s*:\s*)`?(\w+)`?")
NODE_LABEL = re.compile(r"\(\s*(\w+)\s*:\s*`?(\w+)`?")
LITERAL_OR_PROPERTY = re.compile(f"({STRING_LITERAL.pattern})|" + r"\b([A-Za-z_]\w*)\.([A-Za-z_]\w*)\b")  # `b.year`


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("'", "\\'")


def _unescape(literal: str) -> str:
    return literal.replace("\\'", "'").replace("\\\\", "\\")
