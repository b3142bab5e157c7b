"""Question -> Cypher examples made from the graph itself, for a graph no train split comes with.

The Cypher Act writes a query right the first time when its prompt shows queries of the
question's shape over the graph's own names (graphs/cypher_examples.py makes them from a
dataset's train split). A user's own graph (GRBench, a triples file) has no such questions, and
GLM fell back to the paper's Python Act there, which the 0.5B model gets right for one question
in three or fewer. This module writes a bank from the schema and the data instead: for sampled
nodes whose name no other node has, a question per query shape, worded from the schema's own
names, each query run and kept only where it returns a value:

* a feature: "What is the birth date of Marie Curie?" -> `RETURN a.birth_date`;
* a neighbour, its feature, how many: "What is the prize of Marie Curie?", "How many students
  does X have?"; where no relation walks it backwards, from its target too ("Which author has
  Notes on the Engine as paper?": else the question starts at the target, along the inverse);
* two hops, forwards ("What is the country of the birth city of X?", "What is X's paper's
  venue?"), and the end most of the middle nodes reach ("Which author is most common among the
  papers of venue X?", where one end is ahead of the rest);
* over a number feature of the neighbours: the average and the highest.

The wording is mechanical ("the prize of X"); what the examples carry is the query's shape with
the graph's labels, relation tables and name features, which is what the small model copies.
On the dev splits with the train banks taken away it answers as the Python Act does on Nobel and
better on PathQuestion and the synthetic graph, in fewer calls (docs/benchmarks.md).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from dataclasses import dataclass

from glm_dspy.graphs.literal import identifier, string_literal
from glm_dspy.graphs.schema import REL_PREFIX, rel_table
from glm_dspy.readings.relation_grammar import NOUN, PAST, PLACE, PRESENT, RelationGrammar, grammar

INVERSE_PREFIX = "inv_"  # graphs/triples.py: the relation read backwards
SAMPLE_EDGES = 200  # edges read per (relation, source type, target type), the nodes sampled among them
MAX_EXAMPLES = 1500  # the bank's size; a large schema gets fewer nodes per shape
MAX_CHAINS = 400  # two-hop (relation, relation) families, the most frequent first
MAX_INVERSE_CHECKS = 200  # (relation, source, target)s above which only `inv_` names mark inverses
INVERSE_SHARE = 0.9  # of a relation's edges another must walk backwards to be its inverse
ONE_HOP_SHARE = 0.6  # of MAX_EXAMPLES, the most the one-hop shapes may take
CHAIN_STARTS = 40  # sampled edges per (relation, source, target) walked on from
PREPOSITIONS = frozenset({"by", "of", "in", "on", "at", "to", "for", "with", "from", "into", "about"})
PLAIN = re.compile(r"[A-Za-z]\w*")
KEYWORDS = frozenset("""all and as asc by call case contains count create delete desc distinct else end ends exists
false in is limit match merge not null optional or order remove return set skip starts then true union unwind when
where with xor""".split())


def cypher_name(table_or_feature: str) -> str:
    """A table or feature name as the train banks write it: plain, in backticks only where it must be."""
    if PLAIN.fullmatch(table_or_feature) and table_or_feature.lower() not in KEYWORDS:
        return table_or_feature
    return identifier(table_or_feature)


@dataclass(frozen=True, slots=True)
class _Edge:
    relation: str
    src_type: str
    dst_type: str
    src: str  # ids
    dst: str


def words(name: str) -> str:
    """A schema name as words: `place_of_birth` -> "place of birth", `inv_spouse` -> "spouse"."""
    return name.removeprefix(INVERSE_PREFIX).replace("_", " ").strip()


def plural(said: str) -> str:
    """English plural of a schema name's words' last word ("cities"); a phrase ending in a
    preposition ("cited by") is left as it is."""
    head, _, word = said.rpartition(" ")
    if word.endswith("s") or word in PREPOSITIONS:
        return said
    word = word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"
    return f"{head} {word}".strip()


@dataclass(frozen=True, slots=True)
class _Said:
    """How the bank words a relation named by a verb or a place (glm_dspy/readings/relation_grammar.py):
    "Which countries does Mozambique border?", "Which country borders Mozambique?", "Which
    country is Beira in?"; a relation named by a noun keeps the "the <relation> of X" wording."""
    grammar: RelationGrammar
    source: str  # the source type in words ("country")
    target: str  # the target type in words

    @property
    def is_noun(self) -> bool:
        return self.grammar.kind == NOUN

    @property
    def _passive(self) -> bool:
        return self.grammar.passive

    @property
    def _object(self) -> str | None:
        """What a verb's object is called, where its name says it ("currency" of USES_CURRENCY)."""
        rest = self.grammar.rest
        return " ".join(rest).lower() if rest and self.grammar.preposition is None else None

    def _does(self) -> str:
        return "did" if self.grammar.tense == PAST else "does"

    def _after(self) -> str:
        """The verb's base and its preposition, no object noun ("border", "act in", "use")."""
        grammar = self.grammar
        return grammar.verb + (f" {grammar.preposition}" if grammar.preposition else "")

    def _as_said(self, plural_subject: bool = False) -> str:
        """The relation as its subject says it: "borders", "acted in", "uses" (a plural subject: "border")."""
        if plural_subject and self.grammar.tense == PRESENT:
            return self._after()
        words = [w.lower() for w in self.grammar.words]
        return " ".join(words if self.grammar.preposition else words[:1])

    def of(self, start: str, many: bool = False) -> str:
        """The relation's targets from `start`, as a noun phrase: "the country that Mozambique borders"."""
        thing = plural(self._object or self.target) if many else self._object or self.target
        if self.grammar.kind == PLACE:
            return f"the {plural(self.grammar.noun.lower()) if many else self.grammar.noun.lower()} {start} " \
                   f"is {self.grammar.preposition}"
        if self._passive:
            return f"the {thing} {start} is {' '.join(self.grammar.words).lower()}"
        return f"the {thing} that {start} {self._as_said()}"

    def subjects(self, end: str) -> str:
        """The relation's sources that reach `end`, as a noun phrase: "the person that directed X"."""
        if self.grammar.kind == PLACE:
            return f"the {self.source} {self.grammar.preposition} {end}"
        if self._passive:
            return f"the {self.source} {' '.join(self.grammar.words).lower()} {end}"
        return f"the {self.source} that {self._as_said()} {end}"

    def hop(self, start: str) -> str:
        if self.grammar.kind == PLACE:
            return f"Which {self.grammar.noun.lower()} is {start} {self.grammar.preposition}?"
        if self._passive:
            return f"Which {self.target} is {start} {' '.join(self.grammar.words).lower()}?"
        return f"Which {plural(self._object or self.target)} {self._does()} {start} {self._after()}?"

    def count(self, start: str) -> str:
        if self.grammar.kind == PLACE or self._passive:
            return f"How many {plural(self.target)} is {start} {self._as_said() if self._passive else self.grammar.preposition}?"
        return f"How many {plural(self._object or self.target)} {self._does()} {start} {self._after()}?"

    def reverse(self, end: str) -> str:
        if self.grammar.kind == PLACE:
            return f"Which {self.source} is {self.grammar.preposition} {end}?"
        if self._passive:
            return f"Which {self.source} is {' '.join(self.grammar.words).lower()} {end}?"
        return f"Which {self.source} {self._as_said()} {end}?"

    def reverse_count(self, end: str) -> str:
        if self.grammar.kind == PLACE:
            return f"How many {plural(self.source)} are {self.grammar.preposition} {end}?"
        if self._passive:
            return f"How many {plural(self.source)} are {' '.join(self.grammar.words).lower()} {end}?"
        return f"How many {plural(self.source)} {self._as_said(plural_subject=True)} {end}?"


def said_of(relation: str, source_type: str, target_type: str) -> _Said:
    return _Said(grammar(words(relation)), words(source_type).lower(), words(target_type).lower())


class SchemaExamples:
    """Writes the examples for one database (`GraphStore`); `make()` returns them."""

    def __init__(self, store, *, seed: int = 0, max_examples: int = MAX_EXAMPLES):
        self.store, self.schema = store, store.schema
        self.random = random.Random(seed)
        self.max_examples = max_examples
        self._names: dict[str, dict[str, str]] = {}  # type -> id -> name, of names one node has
        self._examples: list[dict] = []
        self._seen: set[str] = set()
        self._limit = max_examples
        self._unique_names: set[str] = set()
        self._inverted: set[tuple[str, str, str]] = set()

    # ---- the graph ---------------------------------------------------------------------
    def name_feature(self, type_name: str) -> str | None:
        return self.schema.node_types[type_name].text_feature

    def names(self, type_name: str) -> dict[str, str]:
        """id -> name of the `type_name` nodes whose name no other node of the graph has."""
        if type_name not in self._names:
            feature = self.name_feature(type_name)
            found: dict[str, str] = {}
            if feature is not None:
                rows = self.store.query(f"MATCH (a:{identifier(type_name)}) WHERE a.{identifier(feature)} IS NOT NULL "
                                        f"RETURN a.id AS id, a.{identifier(feature)} AS name")
                found = {row["id"]: row["name"].strip() for row in rows if row["name"] and row["name"].strip()}
            self._names[type_name] = found
        return self._names[type_name]

    def _unique(self) -> set[str]:
        counts: defaultdict[str, int] = defaultdict(int)
        for type_name in self.schema.node_types:
            for name in self.names(type_name).values():
                counts[name.lower()] += 1
        return {name for name, count in counts.items() if count == 1}

    def edges(self, relation: str, src_type: str, dst_type: str) -> list[_Edge]:
        rows = self.store.query(
            f"MATCH (a:{identifier(src_type)})-[:{identifier(rel_table(relation))}]->(b:{identifier(dst_type)}) "
            f"RETURN a.id AS src, b.id AS dst ORDER BY a.id, b.id LIMIT {SAMPLE_EDGES * 5}")
        rows = self.random.sample(rows, min(SAMPLE_EDGES, len(rows)))
        return [_Edge(relation, src_type, dst_type, row["src"], row["dst"]) for row in rows]

    def leaving(self, type_name: str, node_id: str) -> list[_Edge]:
        rows = self.store.query(f"MATCH (a:{identifier(type_name)} {{id: {string_literal(node_id)}}})-[r]->(b) "
                                "RETURN label(r) AS relation, label(b) AS type, b.id AS dst ORDER BY relation, dst")
        return [_Edge(row["relation"].removeprefix(REL_PREFIX), type_name, row["type"], node_id, row["dst"])
                for row in rows if row["relation"].startswith(REL_PREFIX)]

    # ---- the examples ------------------------------------------------------------------
    def _node(self, variable: str, type_name: str, node_id: str | None = None) -> str:
        if node_id is None:
            return f"({variable}:{cypher_name(type_name)})"
        feature, name = self.name_feature(type_name), self.names(type_name)[node_id]
        return f"({variable}:{cypher_name(type_name)} {{{cypher_name(feature)}: {string_literal(name)}}})"

    def _add(self, question: str, cypher: str, family: str) -> bool:
        """Keep the example if its query returns at least one value."""
        if question in self._seen or len(self._examples) >= self._limit:
            return False
        try:
            rows = self.store.query(cypher)
        except RuntimeError:
            return False
        if not any(value not in (None, "", []) for row in rows for value in row.values()):
            return False
        self._seen.add(question)
        self._examples.append({"question": question, "cypher": cypher, "family": family})
        return True

    def _named(self, type_name: str, node_id: str) -> str | None:
        name = self.names(type_name).get(node_id)
        return name if name is not None and name.lower() in self._unique_names else None

    def inverted(self, pairs: list[tuple[str, str, str]]) -> set[tuple[str, str, str]]:
        """The (relation, source, target)s another relation walks backwards (`inv_spouse`; Nobel's
        `born_laureate` for `birth_city`): a question about the target starts from it along that
        one, so no example starts at the unnamed end. Checked on the data, INVERSE_SHARE of the
        edges, where the schema offers few enough candidates."""
        names = {relation for relation, _, _ in pairs}
        found = set()
        for relation, src, dst in pairs:
            if relation.startswith(INVERSE_PREFIX) and relation.removeprefix(INVERSE_PREFIX) in names \
                    or INVERSE_PREFIX + relation in names:
                found.add((relation, src, dst))
        if len(pairs) > MAX_INVERSE_CHECKS:
            return found
        for relation, src, dst in pairs:
            if (relation, src, dst) in found:
                continue
            edges = self.store.query(
                f"MATCH (a:{identifier(src)})-[:{identifier(rel_table(relation))}]->(b:{identifier(dst)}) "
                "RETURN count(*) AS n")[0]["n"]
            for other, other_src, other_dst in pairs:
                if other == relation or (other_src, other_dst) != (dst, src) or not edges:
                    continue
                both = self.store.query(
                    f"MATCH (a:{identifier(src)})-[:{identifier(rel_table(relation))}]->(b:{identifier(dst)}), "
                    f"(b)-[:{identifier(rel_table(other))}]->(a) RETURN count(*) AS n")[0]["n"]
                if both >= INVERSE_SHARE * edges:
                    found.add((relation, src, dst))
                    break
        return found

    def make(self) -> list[dict]:
        self._unique_names = self._unique()
        pairs = [(relation, src, dst) for relation, found in sorted(self.schema.relations.items())
                 for src, dst in found if self.name_feature(src) and self.name_feature(dst)]
        self._inverted = self.inverted(pairs)
        shapes_per_pair = 7  # hop, count, neighbour feature, (reverse, its count,) chains, the most common
        per_shape = max(1, min(2, self.max_examples // max(1, len(pairs) * shapes_per_pair)))
        edges = {pair: self.edges(*pair) for pair in pairs}
        self._limit = int(self.max_examples * ONE_HOP_SHARE)  # the rest is the chains'
        self._features(per_shape)
        for pair in pairs:
            self._hops(edges[pair], per_shape)
        self._limit = self.max_examples
        self._chains(pairs, edges, per_shape)
        for pair in pairs:
            self._aggregates(edges[pair], per_shape)
        return self._examples

    def _features(self, per_shape: int) -> None:
        for type_name, node_type in self.schema.node_types.items():
            name_feature = node_type.text_feature
            ids = sorted(self.names(type_name))
            if name_feature is None or not ids:
                continue
            for feature in node_type.features:
                if feature == name_feature:
                    continue
                kept = 0
                for node_id in self.random.sample(ids, min(len(ids), 20)):
                    name = self._named(type_name, node_id)
                    if name is None or kept >= per_shape:
                        continue
                    kept += self._add(f"What is the {words(feature)} of {name}?",
                                      f"MATCH {self._node('a', type_name, node_id)} RETURN a.{cypher_name(feature)}",
                                      f"feature-{feature}")

    def _hops(self, edges: list[_Edge], per_shape: int) -> None:
        """A neighbour, its feature and counts, both ways, over one (relation, source, target)."""
        kept: defaultdict[str, int] = defaultdict(int)
        for edge in edges:
            relation, src_type, dst_type = edge.relation, edge.src_type, edge.dst_type
            said, table = words(relation), cypher_name(rel_table(relation))
            dst_name = cypher_name(self.name_feature(dst_type))
            src_name = cypher_name(self.name_feature(src_type))
            start, end = self._named(src_type, edge.src), self._named(dst_type, edge.dst)
            phrase = said_of(relation, src_type, dst_type)
            inverse = relation.startswith(INVERSE_PREFIX)
            shapes = []
            if start is not None:
                original = said_of(words(relation), dst_type, src_type)  # an inverse's relation, forwards
                if phrase.is_noun:
                    question = f"Whose {said} is {start}?" if inverse else f"What is the {said} of {start}?"
                    counted, target = f"How many {plural(said)} does {start} have?", f"the {said} of {start}"
                elif inverse:  # a verb read backwards: its subject asked ("Which person directed X?")
                    question, counted, target = original.reverse(start), original.reverse_count(start), \
                        original.subjects(start)
                else:
                    question, counted, target = phrase.hop(start), phrase.count(start), phrase.of(start)
                shapes.append(("hop", question, f"MATCH {self._node('a', src_type, edge.src)}-[:{table}]->"
                                                f"{self._node('b', dst_type)} RETURN DISTINCT b.{dst_name}"))
                shapes.append(("count", counted,
                               f"MATCH {self._node('a', src_type, edge.src)}-[:{table}]->{self._node('b', dst_type)} "
                               "RETURN count(DISTINCT b)"))
                for feature in self.schema.node_types[dst_type].features:
                    if feature != self.name_feature(dst_type):
                        shapes.append(("neighbour-feature", f"What is the {words(feature)} of {target}?",
                                       f"MATCH {self._node('a', src_type, edge.src)}-[:{table}]->"
                                       f"{self._node('b', dst_type)} RETURN DISTINCT b.{cypher_name(feature)}"))
                        break
            if end is not None and (relation, src_type, dst_type) not in self._inverted:
                shapes.append(("reverse", f"Which {words(src_type)} has {end} as {said}?" if phrase.is_noun
                               else phrase.reverse(end),
                               f"MATCH {self._node('a', src_type)}-[:{table}]->{self._node('b', dst_type, edge.dst)} "
                               f"RETURN DISTINCT a.{src_name}"))
                shapes.append(("reverse-count", f"How many {plural(words(src_type))} have {end} as {said}?"
                               if phrase.is_noun else phrase.reverse_count(end),
                               f"MATCH {self._node('a', src_type)}-[:{table}]->{self._node('b', dst_type, edge.dst)} "
                               "RETURN count(DISTINCT a)"))
            for shape, question, cypher in shapes:
                if kept[shape] < per_shape:
                    kept[shape] += self._add(question, cypher, f"{shape}-{relation}")
            if all(kept[shape] >= per_shape for shape in ("hop", "count")) and \
                    ((relation, src_type, dst_type) in self._inverted or kept["reverse"] >= per_shape):
                return

    def _chains(self, pairs, edges, per_shape: int) -> None:
        """Two hops from a named node: the paths found walking on from sampled edges, the most
        frequent (relation, relation) families first."""
        found: defaultdict[tuple[str, str], list[tuple[_Edge, _Edge]]] = defaultdict(list)
        for pair in pairs:
            if pair[0].startswith(INVERSE_PREFIX):  # "X's spouse's religion" reads forwards; inverses do not chain in words
                continue
            for first in edges[pair][:CHAIN_STARTS]:
                if self._named(first.src_type, first.src) is None:
                    continue
                for second in self.leaving(first.dst_type, first.dst):
                    if (second.dst == first.src or self._named(second.dst_type, second.dst) is None
                            or second.relation.startswith(INVERSE_PREFIX)):
                        continue
                    found[first.relation, second.relation].append((first, second))
        families = sorted(found, key=lambda family: (-len(found[family]), family))[:MAX_CHAINS]
        for family in families:
            kept = most = 0
            for first, second in found[family]:
                if kept >= per_shape:
                    break
                start = self._named(first.src_type, first.src)
                chain = f"{self._two_hops(first, second)} RETURN DISTINCT b.{cypher_name(self.name_feature(second.dst_type))}"
                first_said, second_said = words(first.relation), words(second.relation)
                first_phrase = said_of(first.relation, first.src_type, first.dst_type)
                second_phrase = said_of(second.relation, second.src_type, second.dst_type)
                if first_phrase.is_noun and second_phrase.is_noun:
                    question = (f"What is the {second_said} of the {first_said} of {start}?" if kept % 2 == 0
                                else f"What is {start}'s {first_said}'s {second_said}?")
                else:  # "What is the city that the person that X follows lives in?"
                    middle = f"the {first_said} of {start}" if first_phrase.is_noun else first_phrase.of(start)
                    question = (f"What is the {second_said} of {middle}?" if second_phrase.is_noun
                                else f"What is {second_phrase.of(middle)}?")
                kept += self._add(question, chain, f"chain-{first.relation}-{second.relation}")
                if most < per_shape:  # the commonest end among the middle nodes: "the most papers in venue X"
                    most += self._most(first, second, start, first_said, second_said, first_phrase, second_phrase)

    def _two_hops(self, first: _Edge, second: _Edge) -> str:
        """The MATCH of a two-hop path from `first`'s named source; one back to the source's type
        leaves the source out (X's co-authors, not X)."""
        return (f"MATCH {self._node('a', first.src_type, first.src)}-[:{cypher_name(rel_table(first.relation))}]->"
                f"{self._node('m', first.dst_type)}-[:{cypher_name(rel_table(second.relation))}]->"
                f"{self._node('b', second.dst_type)}" + (" WHERE b <> a" if second.dst_type == first.src_type else ""))

    def _most(self, first: _Edge, second: _Edge, start: str, first_said: str, second_said: str,
              first_phrase: "_Said", second_phrase: "_Said") -> bool:
        """Where one end is reached from more middle nodes than any other (else the question has no answer)."""
        path = (f"{self._two_hops(first, second)} RETURN b.{cypher_name(self.name_feature(second.dst_type))}, "
                "count(DISTINCT m) AS n ORDER BY n DESC LIMIT ")
        counts = [row["n"] for row in self.store.query(path + "2")]
        if not counts or counts[0] < 2 or len(counts) == 2 and counts[1] == counts[0]:
            return False
        among = f"the {plural(first_said)} of {start}" if first_phrase.is_noun else first_phrase.of(start, many=True)
        which = second_said if second_phrase.is_noun else second_phrase.target
        return self._add(f"Which {which} is most common among {among}?", path + "1",
                         f"most-{first.relation}-{second.relation}")

    def _aggregates(self, edges: list[_Edge], per_shape: int) -> None:
        """Over a named node's neighbours, a number feature's average and the neighbour where it is highest."""
        numbers = [f for f, kuzu_type in self.schema.node_types[edges[0].dst_type].features.items()
                   if kuzu_type in ("INT64", "DOUBLE")] if edges else []
        if not numbers:
            return
        feature, kept = cypher_name(numbers[0]), 0
        for edge in edges:
            start = self._named(edge.src_type, edge.src)
            if start is None or kept >= per_shape:
                continue
            said, table = words(edge.relation), cypher_name(rel_table(edge.relation))
            match = f"MATCH {self._node('a', edge.src_type, edge.src)}-[:{table}]->{self._node('b', edge.dst_type)}"
            phrase = said_of(edge.relation, edge.src_type, edge.dst_type)
            many = f"the {plural(said)} of {start}" if phrase.is_noun else phrase.of(start, many=True)
            kept += self._add(f"What is the average {words(numbers[0])} of {many}?",
                              f"{match} RETURN avg(b.{feature})", f"average-{edge.relation}")
            self._add(f"Which {said} of {start} has the highest {words(numbers[0])}?" if phrase.is_noun
                      else f"Which of {many} has the highest {words(numbers[0])}?",
                      f"{match} RETURN b.{cypher_name(self.name_feature(edge.dst_type))} ORDER BY b.{feature} DESC "
                      "LIMIT 1", f"highest-{edge.relation}")


def schema_examples(store, *, seed: int = 0, max_examples: int = MAX_EXAMPLES) -> list[dict]:
    """The examples `SchemaExamples` writes for `store`'s graph."""
    return SchemaExamples(store, seed=seed, max_examples=max_examples).make()
