"""The syntax tree of a reading Cypher query: what the parser builds and the printer writes.

Only reading queries have nodes here (MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN,
ORDER BY, SKIP, LIMIT, UNION): a clause that would write, load, copy, call or configure has no
node, so no tree can hold one. Nodes are frozen dataclasses; a pass that changes a query
builds a new tree (`dataclasses.replace`). Names are stored as written (unquoted); keywords
and function names are compared case-insensitively.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union


# ---- expressions ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Literal:
    value: str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Variable:
    name: str


@dataclass(frozen=True, slots=True)
class Property:
    subject: "Expression"
    key: str


@dataclass(frozen=True, slots=True)
class FunctionCall:
    name: str
    args: tuple["Expression", ...] = ()
    distinct: bool = False
    star: bool = False  # count(*)


@dataclass(frozen=True, slots=True)
class Cast:
    operand: "Expression"
    type_name: str


@dataclass(frozen=True, slots=True)
class Unary:
    op: str  # "NOT", "-"
    operand: "Expression"


@dataclass(frozen=True, slots=True)
class Binary:
    op: str  # OR XOR AND = <> < <= > >= + - * / % ^ IN "STARTS WITH" "ENDS WITH" CONTAINS =~
    left: "Expression"
    right: "Expression"


@dataclass(frozen=True, slots=True)
class IsNull:
    operand: "Expression"
    negated: bool = False


@dataclass(frozen=True, slots=True)
class ListLiteral:
    items: tuple["Expression", ...]


@dataclass(frozen=True, slots=True)
class MapLiteral:
    items: tuple[tuple[str, "Expression"], ...]


@dataclass(frozen=True, slots=True)
class Index:
    subject: "Expression"
    index: "Expression"


@dataclass(frozen=True, slots=True)
class Slice:
    subject: "Expression"
    start: "Expression | None"
    end: "Expression | None"


@dataclass(frozen=True, slots=True)
class Case:
    subject: "Expression | None"
    whens: tuple[tuple["Expression", "Expression"], ...]
    default: "Expression | None" = None


@dataclass(frozen=True, slots=True)
class Subquery:
    kind: str  # "EXISTS", "COUNT"
    patterns: tuple["PatternPart", ...]
    where: "Expression | None" = None


@dataclass(frozen=True, slots=True)
class PatternPredicate:
    part: "PatternPart"


@dataclass(frozen=True, slots=True)
class Quantifier:
    kind: str  # ALL ANY NONE SINGLE
    variable: str
    source: "Expression"
    where: "Expression"


Expression = Union[Literal, Variable, Property, FunctionCall, Cast, Unary, Binary, IsNull, ListLiteral,
                   MapLiteral, Index, Slice, Case, Subquery, PatternPredicate, Quantifier]


# ---- patterns ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NodePattern:
    variable: str | None = None
    labels: tuple[str, ...] = ()
    properties: tuple[tuple[str, Expression], ...] = ()


@dataclass(frozen=True, slots=True)
class RelPattern:
    """One hop, or a variable-length one where `length` is (min, max) (None: Kuzu's default)."""
    variable: str | None = None
    types: tuple[str, ...] = ()
    direction: str = "out"  # "out" -[]->, "in" <-[]-, "both" -[]-
    length: tuple[int | None, int | None] | None = None
    recursion: str | None = None  # "SHORTEST", "ALL SHORTEST", "TRAIL", "ACYCLIC"
    properties: tuple[tuple[str, Expression], ...] = ()

    def __post_init__(self) -> None:
        assert self.direction in ("out", "in", "both"), self.direction


@dataclass(frozen=True, slots=True)
class PatternPart:
    """A chain node (rel node)*: len(nodes) == len(rels) + 1."""
    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...] = ()
    variable: str | None = None  # `p = (...)`

    def __post_init__(self) -> None:
        assert len(self.nodes) == len(self.rels) + 1, (len(self.nodes), len(self.rels))


# ---- clauses -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Match:
    patterns: tuple[PatternPart, ...]
    where: Expression | None = None
    optional: bool = False


@dataclass(frozen=True, slots=True)
class Unwind:
    expression: Expression
    variable: str


@dataclass(frozen=True, slots=True)
class Projection:
    items: tuple[tuple[Expression, str | None], ...]
    star: bool = False
    distinct: bool = False
    order: tuple[tuple[Expression, bool], ...] = ()  # (key, descending)
    skip: Expression | None = None
    limit: Expression | None = None


@dataclass(frozen=True, slots=True)
class With:
    projection: Projection
    where: Expression | None = None


@dataclass(frozen=True, slots=True)
class Return:
    projection: Projection


Clause = Union[Match, Unwind, With, Return]


@dataclass(frozen=True, slots=True)
class SingleQuery:
    clauses: tuple[Clause, ...]

    def __post_init__(self) -> None:
        assert self.clauses and isinstance(self.clauses[-1], Return), "a reading query ends with RETURN"


@dataclass(frozen=True, slots=True)
class Query:
    parts: tuple[SingleQuery, ...]
    union_all: tuple[bool, ...] = ()  # between parts[i] and parts[i+1]

    def __post_init__(self) -> None:
        assert len(self.union_all) == len(self.parts) - 1, (len(self.parts), len(self.union_all))


def children(node) -> list:
    """The syntax nodes directly inside `node`, in source order (for walks over a tree)."""
    found: list = []
    for name in node.__dataclass_fields__:
        _add_nodes(getattr(node, name), found)
    return found


def _add_nodes(value, found: list) -> None:
    """Append the syntax nodes in `value` (a node, or tuples of them) to `found`. A module function,
    not a closure: a recursive closure is a reference cycle, garbage for the collector at every call."""
    if isinstance(value, tuple):
        for item in value:
            _add_nodes(item, found)
    elif value is not None and hasattr(value, "__dataclass_fields__"):
        found.append(value)


def walk(node):
    """`node` and every syntax node inside it, depth first, in source order."""
    yield node
    for child in children(node):
        yield from walk(child)


def written_labels(tree) -> dict[str, str]:
    """Each node variable's label as its node patterns write it: the first label of the last
    pattern that binds the variable and has one (a pass's reading of `(p:paper)`; the plan's
    `node_types` is what a variable can be)."""
    return {node.variable: node.labels[0] for node in walk(tree)
            if isinstance(node, NodePattern) and node.variable and node.labels}
