"""The one place where a value is spliced into Cypher text.

Kuzu 0.11.3 plans a parameterized primary-key match (`{id: $id}`) as a full table scan
(NodeInfo at 1M nodes: 83 ms with `$id`, 3 ms with a literal), so node ids must be
written into the query as string literals. Every such literal goes through
`string_literal`, which validates and escapes it; nothing else builds literals. The one
other literal Kuzu forces is a table name in COPY's options (`(from='author', to='paper')`
takes no parameter): `name_literal`. File paths never enter Cypher text (graphs.load
copies Arrow tables passed as parameters), so no path literal exists.

Kuzu's string literal rule (checked on 0.11.3): inside '...', a backslash makes the next
character literal (`\\'` is a quote, `\\\\` a backslash). So escaping backslash and quote
is enough for the literal to stay one token; control characters are refused outright.
"""

from __future__ import annotations

import re

MAX_LITERAL_CHARS = 1024
_NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*")  # graphs.graph_data.check_name's rule for table names


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
    """Return a node or rel table name as a Cypher string literal, e.g. `author` -> `'author'`.

    Only names a table can have (letters, digits, `_`, starting with a letter) are accepted,
    so the literal needs no escaping and can never end early."""
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):  # (`$` alone would let "a\n" through)
        raise ValueError(f"not a table name: {name!r:.60} (letters, digits and '_', starting with a letter)")
    return f"'{name}'"
