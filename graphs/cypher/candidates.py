"""Candidate plans from the graph, not from a model ("don't generate, discriminate": Pangu,
Gu, Deng and Su, ACL 2023). From a node the question names, walk the graph's own relations
outwards, hop by hop, and keep every path that reaches something: each path, with what it
returns at its end, is a well-typed query by construction. A model (or the embedder) then only
has to say which of a few valid readings the question means.

Invariants: a path only takes a relation some node on it really has (each hop is found with a
query over the nodes the path has reached so far, so no path reads no rows); it never returns
straight back over the hop it came by, unless that reaches other nodes of the start's type (a
prize's co-laureates); at most `max_paths` paths, breadth first, shortest first. The queries
are built as syntax trees and printed (graphs/cypher/printer.py): values enter them only as
literals there.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphs.cypher.printer import print_pattern, print_query
from graphs.cypher.syntax import (Binary, FunctionCall, Literal, Match, NodePattern, PatternPart, Projection, Property,
                                  Query, RelPattern, Return, SingleQuery, Variable)
from graphs.schema import REL_PREFIX

MAX_HOPS = 3
MAX_PATHS = 200
MAX_FRONTIER = 500  # nodes a path's end is sampled by, for the next hop's relations


@dataclass(frozen=True, slots=True)
class Hop:
    relation: str  # the schema's relation name (its table is rel_<relation>)
    outgoing: bool
    type_name: str  # the node type the hop reaches


@dataclass(frozen=True, slots=True)
class Start:
    type_name: str
    feature: str  # the feature the node is matched by (its name)
    value: str
    node_id: str


@dataclass(frozen=True, slots=True)
class Candidate:
    start: Start
    hops: tuple[Hop, ...]
    returns: str  # a feature of the end node, or COUNT
    excludes_start: bool = False  # the end is another node of the start's type

    def tree(self) -> Query:
        nodes = [NodePattern("a", (self.start.type_name,), ((self.start.feature, Literal(self.start.value)),))]
        rels = []
        for i, hop in enumerate(self.hops, 1):
            rels.append(RelPattern(types=(REL_PREFIX + hop.relation,), direction="out" if hop.outgoing else "in"))
            nodes.append(NodePattern(f"n{i}" if i == len(self.hops) else None, (hop.type_name,)))
        end = "n" + str(len(self.hops)) if self.hops else "a"
        where = Binary("<>", Variable(end), Variable("a")) if self.excludes_start else None
        if self.returns == COUNT:
            item = (FunctionCall("count", (Variable(end),), distinct=True), "count")
            projection = Projection((item,))
        else:
            projection = Projection(((Property(Variable(end), self.returns), self.returns),), distinct=True)
        match = Match((PatternPart(tuple(nodes), tuple(rels)),), where)
        return Query((SingleQuery((match, Return(projection))),))

    @property
    def cypher(self) -> str:
        return print_query(self.tree())

    def words(self) -> str:
        """The reading as words, for a model or an embedder to judge: 'Marie Curie -> birth city:
        name' (a hop taken backwards: 'laureate whose birth city it is')."""
        what = "how many" if self.returns == COUNT else self.returns.replace("_", " ")
        return f"{self.path_words()}: {what}"

    def path_words(self) -> str:
        said = [self.start.value]
        for hop in self.hops:
            relation = hop.relation.replace("_", " ")
            said.append(relation if hop.outgoing else f"{hop.type_name} whose {relation} it is")
        return " -> ".join(said)


COUNT = "count()"


def inverse_relations(store, schema) -> set[tuple[str, str, str]]:
    """The (relation, source type, target type) edge sets that are exactly another's, reversed
    (Nobel's `born_laureate` city->laureate is `birth_city` laureate->city backwards; a triples
    graph's `inv_r` is `r`'s): of each such pair, the one whose relation name sorts last. Read
    from the data once per graph; a path never takes those (the other reaches the same nodes)."""
    triples = sorted((r, s, d) for r, ps in schema.relations.items() for s, d in ps)
    skipped = set()
    for i, (relation, source, target) in enumerate(triples):
        for other, other_source, other_target in triples[i + 1:]:
            if (other_source, other_target) != (target, source) or (relation, source, target) in skipped:
                continue
            forward = f"MATCH (a:{source})-[:{REL_PREFIX}{relation}]->(b:{target})"
            backward = f"MATCH (b:{target})-[:{REL_PREFIX}{other}]->(a:{source})"
            counts = [store.query(f"{m} RETURN count(*) AS n")[0]["n"] for m in (forward, backward)]
            if counts[0] != counts[1] or not counts[0]:
                continue
            unmatched = store.query(f"{forward} WHERE NOT (b)-[:{REL_PREFIX}{other}]->(a) RETURN count(*) AS n")
            if unmatched[0]["n"] == 0:
                skipped.add((other, other_source, other_target))
    return skipped


def paths_from(store, start: Start, *, max_hops: int = MAX_HOPS, max_paths: int = MAX_PATHS,
               inverses: set[tuple[str, str, str]] | None = None) -> list[tuple[Hop, ...]]:
    """Every path of at most `max_hops` hops the graph really has from `start`, breadth first.
    `inverses` (`inverse_relations`): a relation that is another's reverse is not taken."""
    inverses = inverses or set()
    found: list[tuple[Hop, ...]] = [()]
    frontier: list[tuple[Hop, ...]] = [()]
    for _ in range(max_hops):
        grown = []
        for path in frontier:
            here = path[-1].type_name if path else start.type_name
            for hop in _next_hops(store, start, path):
                edge = (hop.relation, here, hop.type_name) if hop.outgoing else (hop.relation, hop.type_name, here)
                if edge in inverses:
                    continue
                if path and _turns_back(path[-1], hop) and hop.type_name != start.type_name:
                    continue
                grown.append((*path, hop))
                if len(found) + len(grown) >= max_paths:
                    return found + grown
        found += grown
        frontier = grown
    return found


def candidates_from(store, schema, start: Start, **options) -> list[Candidate]:
    """Each path from `start` with each thing its end may return: the end type's features and
    the number of end nodes (the start's own features for the path of no hops)."""
    result = []
    for path in paths_from(store, start, **options):
        end_type = path[-1].type_name if path else start.type_name
        excludes = bool(path) and end_type == start.type_name
        features = [f for f in schema.node_types[end_type].features if not (not path and f == start.feature)]
        result += [Candidate(start, path, feature, excludes) for feature in features]
        if path:
            result.append(Candidate(start, path, COUNT, excludes))
    return result


def _turns_back(previous: Hop, hop: Hop) -> bool:
    return previous.relation == hop.relation and previous.outgoing != hop.outgoing


def _next_hops(store, start: Start, path: tuple[Hop, ...]) -> list[Hop]:
    """The relations that leave (or reach) the nodes at the end of `path`, with the types they go
    to: only hops that reach some node other than the start (a path back to the start's type
    reaches others, or is not taken)."""
    pattern = print_pattern(Candidate(start, path, start.feature).tree().parts[0].clauses[0].patterns[0])
    end = f"n{len(path)}" if path else "a"
    hops = []
    for outgoing, arrow in ((True, "-[glm_r]->"), (False, "<-[glm_r]-")):
        carried = "a" if end == "a" else f"a, {end}"
        rows = store.query(f"MATCH {pattern} WITH DISTINCT {carried} LIMIT {MAX_FRONTIER} "
                           f"MATCH ({end}){arrow}(glm_b) WHERE glm_b <> a "
                           f"RETURN DISTINCT label(glm_r) AS r, label(glm_b) AS t")
        hops += [Hop(row["r"].removeprefix(REL_PREFIX), outgoing, row["t"]) for row in rows]
    return sorted(hops, key=lambda hop: (hop.relation, not hop.outgoing, hop.type_name))


__all__ = ["Candidate", "Hop", "Start", "COUNT", "paths_from", "candidates_from", "inverse_relations", "MAX_HOPS",
           "MAX_PATHS"]
