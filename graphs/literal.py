"""The one place where a value is spliced into Cypher text.

Kuzu 0.11.3 plans a parameterized primary-key match (`{id: $id}`) as a full table scan
(NodeInfo at 1M nodes: 83 ms with `$id`, 3 ms with a literal), so node ids must be
written into the query as string literals. Every such literal goes through
`string_literal`, which validates and escapes it; nothing else builds literals. The one
other literal Kuzu forces is a table name in COPY's options (`(from='author', to='paper')`
takes no parameter): `name_literal`, escaped as a string literal is. File paths never enter Cypher text (glm_dspy.graphs.load
copies Arrow tables passed as parameters), so no path literal exists.

Kuzu's string literal rule (checked on 0.11.3): inside '...', a backslash makes the next
character literal (`\\'` is a quote, `\\\\` a backslash). So escaping backslash and quote
is enough for the literal to stay one token; control characters are refused outright.
"""

from __future__ import annotations

import re

from glm_dspy.graphs.names import name_problem

MAX_LITERAL_CHARS = 1024


class InvalidId(ValueError):
    """A node id that cannot be a node id at all (wrong type, empty, control characters)."""


def string_literal(value: str) -> str:
    """Return `value` as a quoted Kuzu string literal, e.g. `a'b` -> `'a\\'b'`."""
    if not isinstance(value, str):
        raise InvalidId(f"node id must be a string, got {type(value).__name__} {value!r:.60}")
    if not value:
        raise InvalidId("node id is empty")
    if len(value) > MAX_LITERAL_CHARS:
        raise InvalidId(f"node id is {len(value)} characters long (at most {MAX_LITERAL_CHARS})")
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in value):
        raise InvalidId(f"node id {value!r:.60} contains control characters")
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def identifier(name: str) -> str:
    """Return a table/column name quoted with backticks for Cypher (names are checked at load)."""
    if not name or "`" in name or any(ord(ch) < 0x20 for ch in name):
        raise ValueError(f"not a usable Cypher identifier: {name!r}")
    return f"`{name}`"


def name_literal(name: str) -> str:
    """Return a node or rel table name as a Cypher string literal, e.g. `it's` -> `'it\\'s'`.

    Only names a table can have (graphs/names.py: no control characters, so one line) are
    accepted; backslash and quote are escaped as in `string_literal`, so it never ends early."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"not a table name: {name!r:.60} ({problem})")
    return "'" + name.replace("\\", "\\\\").replace("'", "\\'") + "'"


def text_literal(value: str) -> str:
    """Any text (a query's string value, possibly empty) as a quoted Kuzu string literal.

    Backslash, both quotes and the whitespace controls are escaped; other control characters
    are refused, so the literal is always one token on one line."""
    if not isinstance(value, str):
        raise ValueError(f"a string literal's value must be text, got {type(value).__name__}")
    if len(value) > MAX_TEXT_CHARS:
        raise ValueError(f"a string literal is {len(value)} characters long (at most {MAX_TEXT_CHARS})")
    if any((ord(ch) < 0x20 and ch not in "\n\r\t") or ord(ch) == 0x7F for ch in value):
        raise ValueError(f"a string literal {value!r:.60} contains control characters")
    escaped = (value.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r")
               .replace("\t", "\\t"))
    return f"'{escaped}'"


def cypher_name(name: str) -> str:
    """A variable, label, relationship type or property name as Cypher: bare where it is a plain
    ASCII word that is no keyword, else in backticks (names with a backtick or a control
    character are refused)."""
    if not isinstance(name, str) or not name or len(name) > MAX_LITERAL_CHARS:
        raise ValueError(f"not a usable Cypher name: {name!r:.60}")
    if _PLAIN_NAME_RE.fullmatch(name) and name.upper() not in KEYWORDS:
        return name
    return identifier(name)


MAX_TEXT_CHARS = 10_000
_PLAIN_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Kuzu 0.11.3's keywords (Cypher.g4): a name spelled as one is written in backticks
KEYWORDS = frozenset("""ACYCLIC ADD ALL ALTER AND ANY AS ASC ASCENDING ATTACH BEGIN BY CALL CASE CAST CHECKPOINT
COLUMN COMMENT COMMIT COMMIT_SKIP_CHECKPOINT CONTAINS COPY COUNT CREATE CYCLE DATABASE DBTYPE DECIMAL DEFAULT
DELETE DESC DESCENDING DETACH DISTINCT DROP ELSE END ENDS EXISTS EXPLAIN EXPORT EXTENSION FALSE FORCE FROM
GLOB GRAPH GROUP HEADERS HINT IMPORT IF IN INCREMENT INSTALL IS JOIN KEY LIMIT LOAD LOGICAL MACRO MAP MATCH
MAXVALUE MERGE MINVALUE MULTI_JOIN NO NODE NONE NOT NULL ON ONLY OPTIONAL OR ORDER PASSWORD PRIMARY PROFILE
PROJECT READ REL RENAME RETURN ROLE ROLLBACK ROLLBACK_SKIP_CHECKPOINT SEQUENCE SET SHORTEST SINGLE SKIP START
STARTS STRUCT TABLE THEN TO TRAIL TRANSACTION TRUE TYPE UNINSTALL UNION UNWIND UPDATE USE USER WHEN WHERE WITH
WRITE WSHORTEST XOR YIELD""".split())
