"""`return_paths`: a reading query rewritten to also return what its patterns matched, the
nodes and relationships an answer came from (glm_dspy/evidence draws them).

A pass over the parsed query (a tree in, a tree out, never its text): every anonymous node and
relationship pattern of a MATCH gets a variable (`ev_n`, `ev_n1`, `ev_r`, ... names the query does
not use), and the last RETURN also returns each node and relationship variable still in scope
there, as the column `ev_<variable>`. Where that RETURN aggregates (`count(l)`, `p.name,
count(l)`), each is returned as `list_slice(collect(DISTINCT v), 1, max_items)`, which leaves
its groups as they were; else as the bare variable, and the rows stay the query's own rows,
widened. DISTINCT, ORDER BY and SKIP stay; LIMIT is the query's own, or `max_rows` where it
has none, so an `ORDER BY ... LIMIT 1` still draws the one answer it picked.

What stays out: a UNION's later parts (only the first part is rewritten), variables a WITH
drops before the RETURN, and patterns inside EXISTS or pattern predicates. Where a WITH drops
them all (`WITH collect({...}) AS rows ... UNWIND rows AS row RETURN row.name`),
`return_first_match` is the fallback: the query's leading MATCH clauses alone, returning what
they matched (which of it is the answer is then known only by its name).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.plan import AGGREGATES, plan_of
from glm_dspy.graphs.cypher.syntax import (FunctionCall, Literal, Match, NodePattern, PatternPart, Projection, Query,
                                           RelPattern, Return, SingleQuery, Variable, With, walk)

COLUMN_PREFIX = "ev_"


@dataclass(frozen=True, slots=True)
class PathQuery:
    """The rewritten query and how to read its rows: `columns` maps each added column to the
    variable it returns ("node" or "rel"); `aggregated`: each such column holds a list;
    `answers` maps each node variable the original RETURN reads (not counted) to the property
    it reads (None for the whole node)."""
    tree: Query
    columns: dict[str, tuple[str, str]]  # column -> (variable, "node" | "rel")
    aggregated: bool
    answers: dict[str, str | None]


def return_paths(tree: Query, *, max_rows: int = 50, max_items: int = 50) -> PathQuery:
    """`tree`'s first part rewritten as the module doc says."""
    assert max_rows >= 1 and max_items >= 1, (max_rows, max_items)
    part = tree.parts[0]
    taken = {name for node in walk(part) for name in _names(node)}
    fresh = _Fresh(taken)
    clauses = [_named(clause, fresh) if isinstance(clause, Match) else clause for clause in part.clauses]
    scope = _scope(clauses[:-1])
    final = clauses[-1]
    assert isinstance(final, Return)
    projection = final.projection
    aggregated = any(isinstance(node, FunctionCall) and node.name.lower() in AGGREGATES
                     for expression, _ in projection.items for node in walk(expression))
    columns, items = {}, list(projection.items)
    for variable, kind in scope.items():
        column = fresh.name(COLUMN_PREFIX + variable)
        columns[column] = (variable, kind)
        value = Variable(variable)
        if aggregated:
            value = FunctionCall("list_slice", (FunctionCall("collect", (value,), distinct=True), Literal(1),
                                                Literal(max_items)))
        items.append((value, column))
    limit = projection.limit if projection.limit is not None else Literal(max_rows)
    projection = replace(projection, items=tuple(items), limit=limit, star=False)
    single = SingleQuery((*clauses[:-1], Return(projection)))
    returned = plan_of(Query((part,))).returned
    answers = {r.node: r.property for r in returned
               if r.node is not None and r.node in scope and r.aggregate in (None, "collect")}
    return PathQuery(Query((single,)), columns, aggregated, answers)


def return_first_match(tree: Query, *, max_rows: int = 50) -> PathQuery:
    """The leading MATCH clauses of `tree`'s first part (those before its first WITH, UNWIND or
    RETURN), returning every node and relationship variable they bind; no answer variables."""
    part = tree.parts[0]
    fresh = _Fresh({name for node in walk(part) for name in _names(node)})
    matches = []
    for clause in part.clauses:
        if not isinstance(clause, Match):
            break
        matches.append(_named(clause, fresh))
    scope = _scope(matches)
    assert matches and scope, "a reading query starts with a MATCH"
    columns = {fresh.name(COLUMN_PREFIX + variable): (variable, kind) for variable, kind in scope.items()}
    projection = Projection(tuple((Variable(variable), column) for column, (variable, _) in columns.items()),
                            limit=Literal(max_rows))
    return PathQuery(Query((SingleQuery((*matches, Return(projection))),)), columns, False, {})


class _Fresh:
    """Names the query does not use yet; each handed out once."""

    def __init__(self, taken: set[str]):
        self.taken = {name.lower() for name in taken}

    def name(self, wanted: str) -> str:
        """`wanted`, or `wanted` with the first number after it that is free."""
        name, i = wanted, 0
        while name.lower() in self.taken:
            i += 1
            name = f"{wanted}{i}"
        self.taken.add(name.lower())
        return name


def _names(node) -> list[str]:
    if isinstance(node, (NodePattern, RelPattern, PatternPart)) and node.variable:
        return [node.variable]
    if isinstance(node, Variable):
        return [node.name]
    if isinstance(node, SingleQuery):  # aliases of WITH and RETURN items
        return [alias for clause in node.clauses if isinstance(clause, (With, Return))
                for _, alias in clause.projection.items if alias]
    return []


def _named(match: Match, fresh: _Fresh) -> Match:
    """`match` with a variable for each anonymous node and relationship pattern."""
    patterns = []
    for part in match.patterns:
        nodes = tuple(node if node.variable else replace(node, variable=fresh.name("ev_n")) for node in part.nodes)
        rels = tuple(rel if rel.variable else replace(rel, variable=fresh.name("ev_r")) for rel in part.rels)
        patterns.append(replace(part, nodes=nodes, rels=rels))
    return replace(match, patterns=tuple(patterns))


def _scope(clauses) -> dict[str, str]:
    """The node and relationship variables bound after `clauses`, in the order they were bound:
    a MATCH adds its patterns' variables; a WITH keeps those it passes on bare (`WITH p`, `WITH p
    AS x`), all of them with `*`."""
    scope: dict[str, str] = {}
    for clause in clauses:
        if isinstance(clause, Match):
            for part in clause.patterns:
                for node, rel in zip(part.nodes, (*part.rels, None)):
                    scope.setdefault(node.variable, "node")
                    if rel is not None:
                        scope.setdefault(rel.variable, "rel")
        elif isinstance(clause, With) and not clause.projection.star:
            scope = {alias or expression.name: scope[expression.name] for expression, alias in clause.projection.items
                     if isinstance(expression, Variable) and expression.name in scope}
    return scope


__all__ = ["PathQuery", "return_paths", "return_first_match", "COLUMN_PREFIX"]
