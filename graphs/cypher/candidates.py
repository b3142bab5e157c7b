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

from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.anchors import Condition
from glm_dspy.graphs.cypher.printer import print_expression, print_pattern, print_query
from glm_dspy.graphs.cypher.ranked import Group, Key, Order
from glm_dspy.graphs.cypher.syntax import (Binary, FunctionCall, Literal, Match, NodePattern, PatternPart, Projection,
                                           Property, Query, RelPattern, Return, SingleQuery, Variable)
from glm_dspy.graphs.literal import cypher_name, string_literal
from glm_dspy.graphs.schema import REL_PREFIX
from glm_dspy.graphs.triples import INVERSE_PREFIX

MAX_HOPS = 3
MAX_PATHS = 200
MAX_FRONTIER = 500  # nodes a path's end is sampled by, for the next hop's relations


@dataclass(frozen=True, slots=True)
class Hop:
    relation: str  # the schema's relation name (its table is rel_<relation>)
    outgoing: bool
    type_name: str  # the node type the hop reaches
    also: tuple[str, ...] = ()  # more types it reaches (a path's last hop only): the end is any of them

    @property
    def labels(self) -> tuple[str, ...]:
        return (self.type_name, *self.also)


@dataclass(frozen=True, slots=True)
class Start:
    """The node(s) a reading starts from: a node the question names (one condition on its name)
    or the nodes of a type that meet conditions on stored values (graphs/cypher/anchors.py)."""

    type_name: str
    conditions: tuple[Condition, ...]
    said: str  # how a reading speaks of it: the name, or "prize: year is 1913, category is Physics"
    node_id: str | None = None
    bound: frozenset[str] = frozenset()  # the question's words (lower case) it was bound from

    @classmethod
    def named(cls, type_name: str, feature: str, name: str, node_id: str | None = None) -> "Start":
        return cls(type_name, (Condition(feature, "=", name),), name, node_id, frozenset(name.lower().split()))

    @classmethod
    def anchored(cls, type_name: str, conditions: tuple[Condition, ...], bound: frozenset[str] = frozenset()) -> "Start":
        said = ", ".join(c.words() for c in conditions)
        return cls(type_name, tuple(conditions), f"{type_name} whose {said}", None, bound)

    @property
    def is_named(self) -> bool:
        return self.node_id is not None

    def where(self, variable: str):
        return _all([c.expression(variable) for c in self.conditions])


@dataclass(frozen=True, slots=True)
class Candidate:
    start: Start
    hops: tuple[Hop, ...]
    returns: str  # a feature of the end node, or COUNT
    excludes_start: bool = False  # the end is another node of the start's type
    join: "tuple[Start, tuple[Hop, ...]] | None" = None  # a second path that ends at the same node
    same: str | None = None  # no hops: the end is another node of the start's type with this feature's value
    order: Order | None = None  # only the first (last) end nodes by a value on the path (graphs/cypher/ranked.py)
    group: Group | None = None  # not the end's values: the value on the path the most end nodes share
    meets: object | None = None  # graphs/cypher/value_meets.py's ValueMeet: the start shares a time with another path's
    counted: object | None = None  # graphs/cypher/counted.py's Counted: nodes on the path that reach a bounded number
    absent: object | None = None  # graphs/cypher/absent.py's Absent: the nodes the path does not reach (or leave)
    loop: object | None = None  # graphs/cypher/loops.py's Loop: two paths of the end's own reach one node
    gap: object | None = None  # graphs/cypher/gaps.py's Gap: the years of the start's range no path holds

    @property
    def bound(self) -> frozenset[str]:
        """The question's words this reading binds (its starts')."""
        return self.start.bound | (self.join[0].bound if self.join else frozenset()) \
            | (self.meets.other.bound if self.meets is not None else frozenset())

    @property
    def end_labels(self) -> tuple[str, ...]:
        """The node types the reading's end may be (its last hop's, or its start's)."""
        return self.hops[-1].labels if self.hops else (self.start.type_name,)

    @property
    def end_type(self) -> str:
        return self.hops[-1].type_name if self.hops else self.start.type_name

    def tree(self) -> Query:
        end = "x"
        if self.same is not None:
            return self._same_tree(end)
        if self.gap is not None:
            walked = replace(self, start=self.gap.unbounded(self.start), gap=None)
            key = Property(Variable("a" if self.hops else end), self.gap.feature)
            return self.gap.tree(walked.match(end), key, end, self.returns == COUNT)
        if self.absent is not None:
            labels = self.end_labels if self.absent.side == "end" else (self.start.type_name,)
            if self.absent.feature is not None:
                return self.absent.value_tree(pattern_of(self.start, self.hops, "a", end), self.start.where("a"),
                                              labels, end, self.returns == COUNT)
            return self.absent.tree(pattern_of(self.start, self.hops, "a", end), self.start.where("a"), labels, "a",
                                    end, None if self.returns == COUNT else self.returns)
        match = self.match(end)
        if self.order is not None:
            # ordered among the paths of the key nodes a count keeps
            kept = self.counted.kept(match, self._counted_key(), end) if self.counted is not None else None
            return self.order.tree(match, self._key(self.order.key, end), self._projection(end), kept)
        if self.group is not None:
            return self.group.tree(match, self._key(self.group.key, end), self._grouped()[0])
        if self.counted is not None:
            return self.counted.tree(match, self._counted_key(), end, None if self.returns == COUNT else self.returns)
        if self.meets is not None:
            first = "a" if self.hops else end
            return self.meets.tree(match, first, end, self.meets.other.type_name in self.end_labels,
                                   self._projection(end))
        return Query((SingleQuery((match, Return(self._projection(end)))),))

    def match(self, end: str, named: bool = False) -> Match:
        """The reading's MATCH: its path (and the joined one, and the loop's), its starts'
        conditions, and the nodes a path that walks back reaches are others (`walked_back`).
        `named`: the path's nodes between are named `a1`, `a2`, ... (also where a rank or a walk
        back needs them)."""
        ranked = self.order is not None or self.group is not None or self.counted is not None  # a key on any node
        back = walked_back(self.hops)
        named = named or ranked or any(i or i + 2 < len(self.hops) for i in back)
        patterns = [pattern_of(self.start, self.hops, "a", end, named)]
        conditions = [self.start.where("a" if self.hops else end)]
        if self.join is not None:
            other, hops = self.join
            joined = pattern_of(other, hops, "b", end, ranked)
            patterns += [joined] if joined not in patterns else []  # no hops on either: one node, two conditions
            conditions.append(other.where("b" if hops else end))
        others = [(_node(end, len(self.hops), i + 2), _node(end, len(self.hops), i)) for i in back]
        if self.excludes_start and self.hops and (end, "a") not in others:
            others.append((end, "a"))
        conditions += [Binary("<>", Variable(later), Variable(earlier)) for later, earlier in others]
        if self.loop is not None:
            patterns += self.loop.patterns(end, self.end_labels)
            conditions.append(self.loop.condition(end, self.end_labels))
        return Match(tuple(patterns), _all([c for c in conditions if c is not None]))

    def _counted_key(self) -> str:
        return "a" if self.counted.at == 0 else f"a{self.counted.at}"

    def _grouped(self, end: str = "x") -> tuple[str, str]:
        """What a group counts (its variable, its type): the end nodes that share a key; where the
        key is the end's own name (`Group.before`: "the author with the most papers in V": V ->
        paper -> author), the nodes one hop before it that reach each end."""
        if self.group.before and self.hops:
            before = len(self.hops) - 1
            return _node(end, len(self.hops), before), self.hops[before - 1].type_name if before else self.start.type_name
        return end, self.end_type

    def _key(self, key: Key, end: str) -> Property:
        """The key's node as `_path_pattern` names it: the end, a path's start, or its i-th node."""
        hops = self.hops if key.side == "a" else self.join[1]
        return Property(Variable(_node(end, len(hops), key.at, key.side)), key.feature)

    def _projection(self, end: str) -> Projection:
        if self.returns == COUNT:
            return Projection(((FunctionCall("count", (Variable(end),), distinct=True), "count"),))
        return Projection(((Property(Variable(end), self.returns), self.returns),), distinct=True)

    def _same_tree(self, end: str) -> Query:
        labels = (self.start.type_name,)
        patterns = (PatternPart((NodePattern("a", labels),), ()), PatternPart((NodePattern(end, labels),), ()))
        shared = Binary("=", Property(Variable(end), self.same), Property(Variable("a"), self.same))
        where = _all([self.start.where("a"), shared, Binary("<>", Variable(end), Variable("a"))])
        return Query((SingleQuery((Match(patterns, where), Return(self._projection(end)))),))

    @property
    def cypher(self) -> str:
        return print_query(self.tree())

    def words(self) -> str:
        """The reading as words, for a model or an embedder to judge: 'Marie Curie -> birth city:
        name' (a hop taken backwards: 'laureate whose birth city it is'; a second path that
        meets it: '... and also <path>')."""
        if self.group is not None:
            return f"{self.path_words()}: {self.group.words(self._grouped()[1])}"
        if self.counted is not None:
            what = "how many" if self.returns == COUNT else self.returns.replace("_", " ")
            if self.order is not None:
                return f"{self.path_words()}: {what}, {self.order.words()}, of {self.counted.words(self.end_type)}"
            return f"{self.path_words()}: {what} of {self.counted.words(self.end_type)}"
        if self.gap is not None:
            what = "how many of " if self.returns == COUNT else ""
            return f"{self.path_words()}: {what}{self.gap.words()}"
        if self.absent is not None:
            what = "how many" if self.returns == COUNT else self.returns.replace("_", " ")
            kept = self.end_type if self.absent.side == "end" else self.start.type_name
            if self.absent.feature is not None:
                return f"{self.path_words()}: every {self.absent.feature.replace('_', ' ')} it does not reach"
            return f"{self.path_words()}: {what} of {self.absent.words(kept)}"
        what = "how many" if self.returns == COUNT else self.returns.replace("_", " ")
        if self.order is not None:
            return f"{self.path_words()}: {what}, {self.order.words()}"
        return f"{self.path_words()}: {what}"

    def path_words(self) -> str:
        if self.same is not None:
            return f"{self.start.type_name} with the same {self.same.replace('_', ' ')} as {self.start.said}"
        said = words_of(self.start, self.hops)
        if self.join is not None:
            said += " and also " + words_of(*self.join)
        if self.meets is not None:
            said += ", " + self.meets.words(self.start.type_name)
        if self.loop is not None:
            said += " " + self.loop.words()
        return said


PREPOSITIONS = frozenset({"by", "in", "of", "for", "to", "at", "from", "with", "on", "under", "into", "about", "as"})


def prepositional(relation: str) -> bool:
    """Whether a relation is named by a verb and its preposition (`cited_by`, `born_in`,
    `works_for`): it reads "subject <relation> object"."""
    parts = relation.lower().split("_")
    return len(parts) > 1 and parts[-1] in PREPOSITIONS


def words_of(start: Start, hops: tuple[Hop, ...]) -> str:
    """A path in words: a hop forwards by its relation; backwards, the node that has it ("laureate
    whose mentor it is"), or of a relation named by a verb and its preposition, the node that is
    so to it ("paper cited by it")."""
    said = [start.said]
    for hop in hops:
        relation = hop.relation.replace("_", " ")
        labels = " or ".join(hop.labels)
        said.append(relation if hop.outgoing else f"{labels} {relation} it" if prepositional(hop.relation)
                    else f"{labels} whose {relation} it is")
    return " -> ".join(said)


def pattern_of(start: Start, hops: tuple[Hop, ...], first: str, end: str, named: bool = False) -> PatternPart:
    """(first:Type)-[:rel]->(:T1)-...->(end:Tk); the end is named `end` (the start itself where
    there are no hops: then `first` is `end`); `named`: the nodes between too, `first`1, ..."""
    nodes = [NodePattern(first if hops else end, (start.type_name,))]
    rels = []
    for i, hop in enumerate(hops, 1):
        rels.append(RelPattern(types=(REL_PREFIX + hop.relation,), direction="out" if hop.outgoing else "in"))
        nodes.append(NodePattern(end if i == len(hops) else f"{first}{i}" if named else None, hop.labels))
    return PatternPart(tuple(nodes), tuple(rels))


def _node(end: str, length: int, k: int, first: str = "a") -> str:
    """The k-th node of a path of `length` hops from `first` to `end`, as `pattern_of` names them."""
    return end if k == length else f"{first}{k}" if k else first


def _all(expressions: list):
    expressions = [e for e in expressions if e is not None]
    if not expressions:
        return None
    combined = expressions[0]
    for expression in expressions[1:]:
        combined = Binary("AND", combined, expression)
    return combined


COUNT = "count()"


def inverse_relations(store, schema) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    """The (relation, source type, target type) edge sets that are exactly another's, reversed
    (each mapped to that other)
    (Nobel's `born_laureate` city->laureate is `birth_city` laureate->city backwards; a triples
    graph's `inv_r` is `r`'s): of each such pair, the one `graphs/triples.py` wrote as the
    inverse (`inv_r`), else the one whose relation name sorts last. Read from the data once per
    graph; a path never takes those (the other reaches the same nodes, and is read forwards as
    the source said it)."""
    triples = sorted(((r, s, d) for r, ps in schema.relations.items() for s, d in ps),
                     key=lambda t: (t[0].startswith(INVERSE_PREFIX), t))
    # every edge set's size in one scan; only two of one size can be each other's reverse, and
    # only those are read whole (once each) and compared
    sizes = {(row["r"].removeprefix(REL_PREFIX), row["s"], row["t"]): row["n"] for row in store.query(
        "MATCH (a)-[r]->(b) RETURN label(r) AS r, label(a) AS s, label(b) AS t, count(*) AS n")}
    by_size: dict[tuple, list[tuple[str, str, str]]] = {}
    for triple in triples:
        if sizes.get(triple):
            by_size.setdefault((sizes[triple], *sorted(triple[1:])), []).append(triple)
    skipped: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    edges: dict[tuple[str, str, str], frozenset] = {}

    def edge_set(triple: tuple[str, str, str]) -> frozenset:
        """The (source id, target id) pairs of an edge set, read once."""
        if triple not in edges:
            relation, source, target = triple
            rows = store.query(f"MATCH (a:{cypher_name(source)})-[:{cypher_name(REL_PREFIX + relation)}]->"
                               f"(b:{cypher_name(target)}) RETURN a.id AS a, b.id AS b")
            edges[triple] = frozenset((row["a"], row["b"]) for row in rows)
        return edges[triple]

    for alike in by_size.values():
        for i, (relation, source, target) in enumerate(alike):
            for other, other_source, other_target in alike[i + 1:]:
                if (other_source, other_target) != (target, source) or (relation, source, target) in skipped:
                    continue
                backward = edge_set((other, other_source, other_target))
                if all((b, a) in backward for a, b in edge_set((relation, source, target))):
                    skipped[(other, other_source, other_target)] = (relation, source, target)
    return skipped


def paths_from(store, start: Start, *, max_hops: int = MAX_HOPS, max_paths: int = MAX_PATHS,
               inverses: dict[tuple[str, str, str], tuple] | None = None) -> list[tuple[Hop, ...]]:
    """Every path of at most `max_hops` hops the graph really has from `start`, breadth first.
    `inverses` (`inverse_relations`): a relation that is another's reverse is not taken."""
    inverses = inverses or {}
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
        found += grown + _unions(grown)
        frontier = grown
    return found


def _unions(paths: list[tuple[Hop, ...]]) -> list[tuple[Hop, ...]]:
    """For paths alike but for the type their last hop reaches (a mentor who is a laureate, a
    mentor who is a scholar), one more path whose end is any of those types."""
    by_step: dict[tuple, list[Hop]] = {}
    for path in paths:
        by_step.setdefault((path[:-1], path[-1].relation, path[-1].outgoing), []).append(path[-1])
    return [(*prefix, Hop(relation, outgoing, hops[0].type_name, tuple(h.type_name for h in hops[1:])))
            for (prefix, relation, outgoing), hops in by_step.items() if len(hops) > 1]


def candidates_from(store, schema, start: Start, **options) -> list[Candidate]:
    """Each path from `start` with each thing its end may return: the end type's features and
    the number of end nodes. Of no hops: the start's other features (not those its conditions
    name), and, for nodes met by value, how many meet them."""
    return readings_of(schema, start, paths_from(store, start, **options))


def readings_of(schema, start: Start, paths, join: "tuple[Start, tuple[Hop, ...]] | None" = None) -> list[Candidate]:
    result = []
    named = {c.feature for c in start.conditions}
    for path in paths:
        end_types = path[-1].labels if path else (start.type_name,)
        excludes = start.type_name in end_types and turns_back(path)
        shared = [schema.node_types[t].features for t in end_types]
        features = [f for f in shared[0] if all(f in other for other in shared[1:]) and (path or join or f not in named)]
        result += [Candidate(start, path, feature, excludes, join) for feature in features]
        if path or join or not start.is_named:
            result.append(Candidate(start, path, COUNT, excludes, join))
    return result


def same_value_candidates(schema, start: Start) -> list[Candidate]:
    """Of a named node: the other nodes of its type that share one of its values (born on the
    same day, in the same city), each thing they may return. Lists and the name aside."""
    node_type = schema.node_types[start.type_name]
    named = {c.feature for c in start.conditions}
    shared = [f for f, kind in node_type.features.items() if f not in named and not kind.endswith("[]")]
    return [Candidate(start, (), returns, True, None, same) for same in shared
            for returns in [*node_type.features, COUNT] if returns != same]


def joined_candidates(store, schema, first: Start, first_paths, second: Start, second_paths, *,
                      max_hops: int = MAX_HOPS + 1, max_joins: int = 60, probe: bool = True) -> list[Candidate]:
    """Readings of the nodes two paths both reach: a path from `first` and a path from `second`
    that end at nodes of one type, at most `max_hops` hops together, and meet at some node
    (checked with one query each); shortest first, at most `max_joins` pairs; of a named node and
    nodes of its type the question states, also the two with no hops (the named node is one of
    them, or not: unchecked). Two starts bound
    from the same words of the question (1913 as a prize's year and as a birth year) are two
    readings of those words, never one reading joining them: they give none. A probe that Kuzu
    cannot run (its buffer pool full, past its time) offers no join: unchecked, it is no reading.
    `probe` False: no pair is checked (a yes/no question's join that reads nothing says no)."""
    if first.bound & second.bound:
        return []
    result = []
    if first.type_name == second.type_name and first.is_named != second.is_named:
        # no hops: whether the named node is one of the stated ("Is X still alive?"), unprobed: a
        # reading that reads no rows says no
        result += readings_of(schema, first, [()], (second, ()))
    pairs = sorted(((p, q) for p in first_paths for q in second_paths
                    if (p or q) and len(p) + len(q) <= max_hops
                    and (p[-1].labels if p else (first.type_name,)) == (q[-1].labels if q else (second.type_name,))),
                   key=lambda pair: len(pair[0]) + len(pair[1]))
    for p, q in pairs:
        if probe:
            try:
                if not store.read(Candidate(first, p, COUNT, False, (second, q)).cypher).rows[0]["count"]:
                    continue
            except RuntimeError:  # Kuzu's errors: "buffer pool is full", "Interrupted."
                continue
        result += readings_of(schema, first, [p], (second, q))
        if len(result) >= max_joins * 4:
            break
    return result


def _turns_back(previous: Hop, hop: Hop) -> bool:
    return previous.relation == hop.relation and previous.outgoing != hop.outgoing


def walked_back(path: tuple[Hop, ...]) -> tuple[int, ...]:
    """The hops i after which the path goes back over the relation it has just taken: the node it
    comes back to, node i + 2, is another than node i (a prize's laureates read from one of them
    are "the others"; Henrik Dam's prize's laureates' mentors are his co-laureate's: through Dam
    himself the reading would be a shorter one's, his own mentors). Paths are taken this way
    (`paths_from`), so each reading's nodes exist."""
    return tuple(i for i in range(len(path) - 1) if _turns_back(path[i], path[i + 1]))


def turns_back(path: tuple[Hop, ...]) -> bool:
    """Whether the path goes back over a relation it has just taken (a prize's laureates: the
    start is among them by construction, so a reading of it means the others). A path that
    reaches its start any other way (a self-loop, a cycle of other relations) reads it as the
    graph says."""
    return any(_turns_back(previous, hop) for previous, hop in zip(path, path[1:]))


def _next_hops(store, start: Start, path: tuple[Hop, ...]) -> list[Hop]:
    """The relations that leave (or reach) the nodes at the end of `path`, with the types they go
    to. A hop back over the relation just taken counts only where it reaches some node other
    than the one it left and the start (a path back reaches others, or is not taken:
    `walked_back`); any other hop may reach the start itself (a self-loop, a cycle)."""
    excludes = bool(path) and start.type_name in path[-1].labels and turns_back(path)
    probe = Candidate(start, path, COUNT, excludes).match("x", named=True)
    pattern = print_pattern(probe.patterns[0])
    where = f" WHERE {print_expression(probe.where)}" if probe.where is not None else ""
    previous = _node("x", len(path), len(path) - 1) if path else "x"  # the node the path's last hop left
    carried = ", ".join(dict.fromkeys(["a", previous, "x"])) if path else "x"
    hops = []
    for outgoing, arrow in ((True, "-[glm_r]->"), (False, "<-[glm_r]-")):
        back = path and path[-1].outgoing != outgoing  # the hop just taken, reversed: to another node (`walked_back`)
        other = f"(glm_b <> {previous} AND glm_b <> a) OR label(glm_r) <> {string_literal(REL_PREFIX + path[-1].relation)}" \
            if back else "true"
        rows = store.query(f"MATCH {pattern}{where} WITH DISTINCT {carried} LIMIT {MAX_FRONTIER} "
                           f"MATCH (x){arrow}(glm_b) WHERE {other} "
                           f"RETURN DISTINCT label(glm_r) AS r, label(glm_b) AS t")
        hops += [Hop(row["r"].removeprefix(REL_PREFIX), outgoing, row["t"]) for row in rows]
    return sorted(hops, key=lambda hop: (hop.relation, not hop.outgoing, hop.type_name))


__all__ = ["Candidate", "Hop", "Start", "COUNT", "pattern_of", "words_of", "paths_from", "candidates_from", "readings_of", "joined_candidates", "same_value_candidates", "inverse_relations", "MAX_HOPS",
           "MAX_PATHS"]
