"""A parsed query seen as a plan: which nodes it binds, by what; which hops join them; what it
filters on and what it returns. A read-only view of the syntax tree (graphs/cypher/syntax.py)
for the checks and passes that reason about a query's meaning rather than its text.

Invariants: every node pattern of every MATCH (and pattern predicate and subquery) is one
`PlanNode`, merged by variable across clauses; an anonymous node gets the name `_n<i>` (no
query variable can start with `_n` followed by a digit and mean something else here: the
parser keeps names as written, and such a name would merge, which only tightens a check). A
hop's `source` is where its arrow starts (for `<-` the right-hand node), so a hop reads in the
relation's own direction; `direction == "both"` keeps the written order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from glm_dspy.graphs.cypher.syntax import (Expression, FunctionCall, Match, NodePattern, PatternPart, PatternPredicate,
                                           Projection, Property, Query, Return, Subquery, Variable, With, walk)

AGGREGATES = frozenset({"count", "sum", "avg", "min", "max", "collect"})


@dataclass(slots=True)
class PlanNode:
    variable: str
    labels: set[str] = field(default_factory=set)
    properties: dict[str, Expression] = field(default_factory=dict)  # written in the pattern: {name: '...'}


@dataclass(frozen=True, slots=True)
class PlanHop:
    source: str  # node variable where the relation starts
    target: str
    relations: tuple[str, ...]  # the rel tables written, () for any
    undirected: bool = False
    variable_length: bool = False
    variable: str | None = None


@dataclass(frozen=True, slots=True)
class Returned:
    """One returned column: what it is made of."""
    alias: str | None  # the column's name where the query gives one (`AS x`, or a bare variable)
    expression: Expression
    node: str | None = None  # the node variable it reads, where it reads one (`c.name`, `c`, count(c))
    property: str | None = None  # the property read, where it reads one
    aggregate: str | None = None  # count, sum, ... where the column is one


@dataclass(slots=True)
class Plan:
    nodes: dict[str, PlanNode]
    hops: list[PlanHop]
    properties: list[tuple[str, str]]  # every (variable, property) the query reads, in order
    returned: list[Returned]
    distinct: bool = False
    ordered: bool = False
    limit: Expression | None = None
    union: bool = False

    @property
    def named(self) -> list[PlanNode]:
        """The nodes matched by a value written in their pattern (a name, an id): where a path starts."""
        return [node for node in self.nodes.values() if node.properties]


def plan_of(tree: Query) -> Plan:
    """The plan of a parsed query (a UNION's first part, `union` set)."""
    builder = _Builder()
    for part in tree.parts[:1]:
        for clause in part.clauses:
            builder.clause(clause)
    final = tree.parts[0].clauses[-1]
    assert isinstance(final, Return)
    builder.returns(final.projection)
    plan = Plan(builder.nodes, builder.hops, builder.properties, builder.returned, final.projection.distinct,
                bool(final.projection.order), final.projection.limit, union=len(tree.parts) > 1)
    return plan


class _Builder:
    def __init__(self):
        self.nodes: dict[str, PlanNode] = {}
        self.hops: list[PlanHop] = []
        self.properties: list[tuple[str, str]] = []
        self.returned: list[Returned] = []
        self.aliases: dict[str, Expression] = {}  # WITH x AS y: what y stands for
        self.anonymous = 0

    def clause(self, clause) -> None:
        if isinstance(clause, Match):
            for part in clause.patterns:
                self.pattern(part)
            if clause.where is not None:
                self.expression(clause.where)
        elif isinstance(clause, With):
            self.projection(clause.projection)
            for expression, alias in clause.projection.items:
                if alias:
                    self.aliases[alias] = expression
            if clause.where is not None:
                self.expression(clause.where)
        elif isinstance(clause, Return):
            self.projection(clause.projection)
        else:  # UNWIND
            self.expression(clause.expression)

    def node(self, pattern: NodePattern) -> str:
        name = pattern.variable
        if name is None:
            name = f"_n{self.anonymous}"
            self.anonymous += 1
        node = self.nodes.setdefault(name, PlanNode(name))
        node.labels.update(pattern.labels)
        for key, value in pattern.properties:
            node.properties[key] = value
            self.properties.append((name, key))
            self.expression(value)
        return name

    def pattern(self, part: PatternPart) -> None:
        names = [self.node(node) for node in part.nodes]
        for i, rel in enumerate(part.rels):
            left, right = names[i], names[i + 1]
            source, target = (right, left) if rel.direction == "in" else (left, right)
            self.hops.append(PlanHop(source, target, rel.types, rel.direction == "both", rel.length is not None,
                                     rel.variable))
            for _, value in rel.properties:
                self.expression(value)

    def expression(self, expression) -> None:
        for node in walk(expression):
            if isinstance(node, Property) and isinstance(node.subject, Variable):
                self.properties.append((node.subject.name, node.key))
            elif isinstance(node, PatternPredicate):
                self.pattern(node.part)
            elif isinstance(node, Subquery):
                for part in node.patterns:
                    self.pattern(part)

    def projection(self, projection: Projection) -> None:
        for expression, _ in projection.items:
            self.expression(expression)
        for expression, _ in projection.order:
            self.expression(expression)

    def returns(self, projection: Projection) -> None:
        for expression, alias in projection.items:
            self.returned.append(self.describe(expression, alias))

    def describe(self, expression, alias) -> Returned:
        if alias is None and isinstance(expression, Variable):
            alias = expression.name  # the column Kuzu names after it
        seen = self.aliases.get(expression.name, expression) if isinstance(expression, Variable) else expression
        aggregate = None
        if isinstance(seen, FunctionCall) and seen.name.lower() in AGGREGATES:
            aggregate = seen.name.lower()
            if seen.star:
                return Returned(alias, expression, aggregate=aggregate)
            seen = seen.args[0] if seen.args else seen
        if isinstance(seen, Variable) and seen.name in self.aliases:
            seen = self.aliases[seen.name]
        if isinstance(seen, Property) and isinstance(seen.subject, Variable):
            return Returned(alias, expression, seen.subject.name, seen.key, aggregate)
        if isinstance(seen, Variable) and seen.name in self.nodes:
            return Returned(alias, expression, seen.name, None, aggregate)
        return Returned(alias, expression, aggregate=aggregate)


__all__ = ["Plan", "PlanNode", "PlanHop", "Returned", "plan_of", "AGGREGATES"]
