"""A reading of the question as a path in the graph: where it starts (`Start`: a node the question
names, or nodes met by the values it states), the hops it takes (`Hop`), and what its end returns
(`Candidate`), with the shapes a reading may add (a second path that meets it, a rank, a group, a
count bound, an absence, a loop, a range's gaps). Each prints as a syntax tree
(graphs/cypher/printer.py), so values enter its query only as literals there; each says itself
in words, for a model or an embedder to judge (`Candidate.words`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from glm_dspy.graphs.cypher.condition import Condition
from glm_dspy.graphs.cypher.printer import print_query
from glm_dspy.graphs.cypher.ranked import Group, Key, Order
from glm_dspy.graphs.cypher.syntax import (Binary, FunctionCall, Match, NodePattern, PatternPart, Projection, Property,
                                           Query, RelPattern, Return, SingleQuery, Variable)
from glm_dspy.graphs.schema import REL_PREFIX
from glm_dspy.readings.relation_grammar import grammar

COUNT = "count()"


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

    def said_alike(self, other: "Start") -> bool:
        """Whether two starts are read from the same words of the question (1913 as a prize's
        year and as a birth year; "Curie" as a family name and "Marie Curie"): the words one is
        bound from hold the other's. Two names that only share a word ("Niels Bohr", "Aage N.
        Bohr") are two things."""
        mine, theirs = _word_parts(self.bound), _word_parts(other.bound)
        return bool(mine) and bool(theirs) and (mine <= theirs or theirs <= mine)

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
            return self.order.tree(match, self._key(self.order.key, end), self._projection(end), kept, end)
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
        others = [(path_node(end, len(self.hops), i + 2), path_node(end, len(self.hops), i)) for i in back]
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
            return path_node(end, len(self.hops), before), self.hops[before - 1].type_name if before else self.start.type_name
        return end, self.end_type

    def _key(self, key: Key, end: str) -> Property:
        """The key's node as `_path_pattern` names it: the end, a path's start, or its i-th node."""
        hops = self.hops if key.side == "a" else self.join[1]
        return Property(Variable(path_node(end, len(hops), key.at, key.side)), key.feature)

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
    """A path in words: a hop forwards by its relation; backwards, from the relation's target, as
    the relation's name is said (glm_dspy/readings/relation_grammar.py): of a noun, the node that
    has it ("laureate whose mentor it is"); of a verb, the node that does it ("person that
    directed it"), or is so to it ("paper cited by it"); of a place, the node in it ("city in it")."""
    said = [start.said]
    for hop in hops:
        labels = " or ".join(hop.labels)
        said.append(hop.relation.replace("_", " ") if hop.outgoing else grammar(hop.relation).of_object(labels))
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


def path_node(end: str, length: int, k: int, first: str = "a") -> str:
    """The k-th node of a path of `length` hops from `first` to `end`, as `pattern_of` names them."""
    return end if k == length else f"{first}{k}" if k else first


def _word_parts(words: frozenset[str]) -> frozenset[str]:
    """Words as their letter and digit runs ("privacy-preserving": privacy, preserving): a name's
    words are bound as written, a value's as folded."""
    return frozenset(part for word in words for part in re.findall(r"\w+", word.lower()))


def _all(expressions: list):
    expressions = [e for e in expressions if e is not None]
    if not expressions:
        return None
    combined = expressions[0]
    for expression in expressions[1:]:
        combined = Binary("AND", combined, expression)
    return combined


def reverses(previous: Hop, hop: Hop) -> bool:
    return previous.relation == hop.relation and previous.outgoing != hop.outgoing


def walked_back(path: tuple[Hop, ...]) -> tuple[int, ...]:
    """The hops i after which the path goes back over the relation it has just taken: the node it
    comes back to, node i + 2, is another than node i (a prize's laureates read from one of them
    are "the others"; Henrik Dam's prize's laureates' mentors are his co-laureate's: through Dam
    himself the reading would be a shorter one's, his own mentors). Paths are taken this way
    (`paths_from`), so each reading's nodes exist."""
    return tuple(i for i in range(len(path) - 1) if reverses(path[i], path[i + 1]))


def turns_back(path: tuple[Hop, ...]) -> bool:
    """Whether the path goes back over a relation it has just taken (a prize's laureates: the
    start is among them by construction, so a reading of it means the others). A path that
    reaches its start any other way (a self-loop, a cycle of other relations) reads it as the
    graph says."""
    return any(reverses(previous, hop) for previous, hop in zip(path, path[1:]))


__all__ = ["Candidate", "Hop", "Start", "COUNT", "PREPOSITIONS", "pattern_of", "path_node", "words_of", "prepositional",
           "reverses", "turns_back", "walked_back"]
