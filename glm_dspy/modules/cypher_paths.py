"""A generated query's path, hop by hop: where a query that returned no rows went wrong.

A small model writes the right shape of path with a wrong relationship ("the releases of
Robin_Hood 's recording" -> `-[:rel_music_release_track_recording]->`, a table the graph has
but Robin Hood has not). `Chain.read(cypher)` parses the query and takes its first MATCH's one
pattern as node and relationship patterns (graphs/cypher/syntax.py); `Chain.prefix(i)` is the
pattern of its first `i` hops, its last node bound to a variable, so the store can be asked how
far the path reaches and which relationships leave the node where it stops (Text2Cypher.walk).
Anything beyond one plain chain (several patterns, variable-length or multi-label
relationships, a query that does not parse) reads as None. Every text a chain gives is the
printer's (graphs/cypher/printer.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, parse, print_pattern, print_query
from glm_dspy.graphs.cypher.shape import END  # the variable a prefix binds its last node to, where that node has none
from glm_dspy.graphs.cypher.shape import one_property
from glm_dspy.graphs.cypher.syntax import (Binary, Match, NodePattern, PatternPart, Projection, Property, Query,
                                           RelPattern, Return, SingleQuery, Variable, walk)


@dataclass(frozen=True, slots=True)
class Hop:
    relation: str  # the relationship table, as written
    outgoing: bool  # (a)-[...]->(b), else (a)<-[...]-(b)


@dataclass(frozen=True, slots=True)
class Chain:
    """`query`'s first clause, a MATCH of one pattern: `nodes` joined by `rels`, each a directed
    hop along one table. `nodes` has one node more than `rels`, but for an `unwalked` chain
    (no hops yet: its start, and the node bound to END it is to reach); the query's text is
    `query` with that MATCH's pattern rebuilt from `nodes` and `rels`."""
    query: Query
    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...]

    def __post_init__(self) -> None:
        assert len(self.nodes) == len(self.rels) + 1 or not self.rels and len(self.nodes) == 2, self.nodes
        assert all(len(rel.types) == 1 and rel.direction != "both" for rel in self.rels), self.rels

    @classmethod
    def read(cls, cypher: str) -> Chain | None:
        try:
            return cls.of(parse(cypher))
        except (CypherSyntaxError, QueryRefused):
            return None

    @classmethod
    def of(cls, tree: Query) -> Chain | None:
        """The chain of a parsed query whose first clause is a MATCH of one plain chain, else None."""
        match = tree.parts[0].clauses[0]
        if not isinstance(match, Match) or match.optional or len(match.patterns) != 1:
            return None
        part = match.patterns[0]
        if part.variable is not None or not part.rels or any(
                len(rel.types) != 1 or rel.direction == "both" or rel.length is not None or rel.properties
                for rel in part.rels):
            return None
        return cls(tree, part.nodes, part.rels)

    @classmethod
    def unwalked(cls, start: NodePattern, feature: str) -> Chain:
        """A chain of no hops yet from node pattern `start` to a node bound to END whose
        `feature` it returns: for `with_hops` to fill in."""
        returned = Return(Projection(((Property(Variable(END), feature), None),), distinct=True))
        return cls(Query((SingleQuery((Match((PatternPart((start,)),)), returned)),)), (start, NodePattern(END)), ())

    @property
    def hops(self) -> tuple[Hop, ...]:
        return tuple(Hop(rel.types[0], rel.direction == "out") for rel in self.rels)

    @property
    def pattern(self) -> PatternPart:
        return PatternPart(self.nodes[: len(self.rels) + 1], self.rels)

    @property
    def tree(self) -> Query:
        first = self.query.parts[0]
        match = replace(first.clauses[0], patterns=(self.pattern,))
        return replace(self.query, parts=(SingleQuery((match, *first.clauses[1:])), *self.query.parts[1:]))

    @property
    def cypher(self) -> str:
        return print_query(self.tree)

    @property
    def where(self):
        """The WHERE of the chain's MATCH, or None."""
        return self.query.parts[0].clauses[0].where

    @property
    def rest(self) -> str:
        """The text after the pattern (` WHERE ...`, ` RETURN ...`), as printed."""
        return self.cypher[len("MATCH " + print_pattern(self.pattern)):]

    def returns(self, unequal: bool = False) -> tuple[str, str] | None:
        """(variable, property) where all that follows the chain is one RETURN of one `v.p`
        (DISTINCT or not; no alias, order or limit), its MATCH having no WHERE (where `unequal`,
        but for `WHERE x <> y` of two variables); else None."""
        where = self.where
        if len(self.query.parts) != 1 or len(self.query.parts[0].clauses) != 2 or where is not None and not (
                unequal and isinstance(where, Binary) and where.op == "<>"
                and isinstance(where.left, Variable) and isinstance(where.right, Variable)):
            return None
        return one_property(self.query.parts[0].clauses[1].projection)

    @property
    def distinct(self) -> bool:
        """Whether the query's last RETURN is DISTINCT."""
        return self.query.parts[-1].clauses[-1].projection.distinct

    def returning(self, variable: str, feature: str) -> Chain:
        """This chain followed by one RETURN of `variable.feature` (DISTINCT where its RETURN was)."""
        returned = Return(Projection(((Property(Variable(variable), feature), None),), distinct=self.distinct))
        first = SingleQuery((self.query.parts[0].clauses[0], returned))
        return replace(self, query=Query((first,)))

    def with_relation(self, hop: int, relation: str) -> Chain:
        """This path with hop `hop`'s relationship table replaced (the rest of the query kept)."""
        rels = list(self.rels)
        rels[hop] = replace(rels[hop], types=(relation,))
        return replace(self, rels=tuple(rels))

    def binds_last(self) -> str | None:
        """The variable the last node pattern binds, or None."""
        return self.nodes[-1].variable

    def bind_last(self, variable: str) -> Chain:
        """This chain with its last node pattern, which binds none, bound to `variable`."""
        assert self.binds_last() is None and variable.isidentifier(), variable
        return replace(self, nodes=(*self.nodes[:-1], replace(self.nodes[-1], variable=variable)))

    def label(self, node: int) -> str | None:
        labels = self.nodes[node].labels
        return labels[0] if labels else None

    def prefix(self, hops: int) -> tuple[str, str]:
        """(the pattern of the first `hops` hops, the variable its last node is bound to)."""
        nodes = list(self.nodes[: hops + 1])
        variable = nodes[-1].variable
        if not variable:
            variable = END
            nodes[-1] = replace(nodes[-1], variable=END)
        rels = tuple(RelPattern(types=(hop.relation,), direction="out" if hop.outgoing else "in")
                     for hop in self.hops[:hops])
        return print_pattern(PatternPart(tuple(nodes), rels)), variable

    def with_hops(self, hops: list[tuple[str, bool, str | None]]) -> Chain | None:
        """This chain's first node, then `hops` (relationship table, outgoing, the label of the node
        it reaches or None), the last node bound to the variable the old last node binds, the rest
        of the query kept. None where that cannot keep the query's meaning: the old last node binds
        no variable or holds properties, or an inner node binds a variable the rest uses."""
        last = self.binds_last()
        inner = {node.variable for node in self.nodes[1:-1] if node.variable}
        if not hops or last is None or self.nodes[-1].properties or inner & self._used_after():
            return None
        nodes = [self.nodes[0]] + [NodePattern(last if at == len(hops) - 1 else None, (label,) if label else ())
                                   for at, (_, _, label) in enumerate(hops)]
        rels = [RelPattern(types=(table,), direction="out" if outgoing else "in") for table, outgoing, _ in hops]
        return replace(self, nodes=tuple(nodes), rels=tuple(rels))

    def _used_after(self) -> set[str]:
        """The variables the query names outside the chain's pattern (its WHERE, later clauses, parts)."""
        first = self.query.parts[0]
        rest = [self.where, *first.clauses[1:], *self.query.parts[1:]]
        return {node.name if isinstance(node, Variable) else node.variable
                for top in rest if top is not None for node in walk(top)
                if isinstance(node, Variable) or isinstance(node, NodePattern) and node.variable}
