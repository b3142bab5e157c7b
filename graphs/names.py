"""What a node type, relation or property may be called: names as users wrote them.

A name is kept as written, in any script (`配偶`, `Ähnlich_zu`, `it's`, `born in`): every
Cypher text this project writes puts a table or column name in backticks
(`glm_dspy.graphs.literal.identifier`, `cypher_name`), and Kuzu 0.11.3 stores such names as given
(checked: CJK, umlauts, quotes, spaces and dots all create, copy and match). A name is refused
only where it cannot be one: empty, longer than MAX_NAME_CHARS, holding a backtick or a control
character, or with whitespace at either end (it would read as another name).

Kuzu's catalog is case-insensitive for ASCII letters only and shared by node and rel tables
(`IT'S` clashes with `it's`; `ähnlich_zu` and `Ähnlich_zu` are two tables): `catalog_key` is
that comparison, and `GraphSchema` refuses two tables, or two columns of a table, equal under it.
"""

from __future__ import annotations

MAX_NAME_CHARS = 256


def name_problem(name: object) -> str | None:
    """Why `name` cannot be a table or column name, or None when it can."""
    if not isinstance(name, str):
        return f"a name must be text, not {type(name).__name__}"
    if not name:
        return "the name is empty"
    if len(name) > MAX_NAME_CHARS:
        return f"the name is {len(name)} characters long (at most {MAX_NAME_CHARS})"
    if "`" in name:
        return "a name cannot hold a backtick (`)"
    if any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name):
        return "a name cannot hold control characters (tabs, newlines)"
    if name != name.strip():
        return "a name cannot begin or end with whitespace"
    return None


def check_name(name: str, what: str) -> str:
    """Return `name` if it can be a Kuzu table/column name, else raise naming the culprit."""
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(f"{what} name {name!r:.80} is not usable as a table or column name: {problem}")
    return name


def catalog_key(name: str) -> str:
    """`name` as Kuzu's catalog compares it: ASCII letters folded to lower case, nothing else."""
    return "".join(ch.lower() if ch.isascii() else ch for ch in name)


def is_word(name: str) -> bool:
    """Whether `name` is one word in any script (letters, digits, `_`, starting with a letter):
    a name a model can write without backticks."""
    return name.isidentifier() and not name.startswith("_")
