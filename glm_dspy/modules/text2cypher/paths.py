"""Post-processing rewrites of a chain's path: held to the relations the question's words spell
(glm_dspy/modules/relation_words.py), in their order and number of hops."""

from __future__ import annotations

import re

from glm_dspy.modules.cypher_paths import Chain
from glm_dspy.modules.relation_words import chain_relations, start_name
from glm_dspy.modules.text2cypher.facts import NAME_WORD, _word_stem
from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, parse, print_pattern, print_query
from glm_dspy.graphs.cypher.name_literals import name_literals
from glm_dspy.graphs.cypher.return_end import relation_as_property
from glm_dspy.graphs.cypher.shape import one_property
from glm_dspy.graphs.cypher.syntax import (Literal, Match, NodePattern, PatternPart, Projection, Property, Query,
                                           RelPattern, Return, SingleQuery, Variable)
from glm_dspy.graphs.schema import spells

MAX_SPELLED_HOPS = 3  # the longest chain rebuilt from the question's relation words
MAX_SPELLED_READINGS = 12  # of a question whose words may stand for several relations, the chains run


class Paths:
    """Text2Cypher's path rewrites (`_spelled_path`, `_unsaid_hop`, `_repeated_hops`) and the
    chain built from the question's words where the query cannot run (`_from_words`). Reads
    `graph` and `relation_words` (None or not `usable`: the rewrites that need them do nothing);
    runs the chains it tries through `execute`. Reads a query as its parse (`Chain`), never its text."""

    def _spelled_path(self, cypher: str, question: str, path: Chain | None = None) -> str:
        """A chain from a named node whose relations are not the ones the question's words spell
        in path order (glm_dspy/modules/relation_words.py), with no more hops than the words say,
        rebuilt from the words: the first of their readings (the query's own relation first where
        a word allows it) whose chain returns rows. "the faith of muhammad_al-mahdi 's parent ?"
        written `-[:rel_parents]->` answered with the parent; rebuilt `-[:rel_parents]->()-[:rel_religion]->`.
        Unchanged where the graph's bank does not show its questions spelling their paths."""
        from glm_dspy.graphs.schema import rel_table

        words = self.relation_words
        if words is None or not words.usable:
            return cypher
        path = path or Chain.read(cypher) or self._lone_node(cypher)
        if path is not None and path.binds_last() is None and (returned := path.returns()) is not None \
                and returned[0] not in {node.variable for node in path.nodes}:
            path = path.bind_last(returned[0])  # `->(:entity) RETURN DISTINCT b.name`: b is where it ends
        name = start_name(path) if path is not None else None
        spelled = words.path(question, name) if name is not None else None
        if spelled == [] and path.hops and (own := self._own_feature(path)) is not None:
            return own
        if not spelled or not len(path.hops) <= len(spelled) <= MAX_SPELLED_HOPS:
            return cypher
        written = chain_relations(path)
        if len(written) == len(spelled) and all(hop in said for hop, said in zip(written, spelled)):
            return cypher
        readings = [sorted(said, key=lambda hop: hop not in written) for said in spelled]
        tries = MAX_SPELLED_READINGS

        def first_reading(hops: list[tuple[str, bool]]) -> str | None:
            """Depth first: the first reading whose chain returns rows; a word that may stand for
            several relations ("genre": 26 in PQL) is held to those leaving where the path has got."""
            nonlocal tries
            if len(hops) == len(readings):
                tries -= 1
                rebuilt = path.with_hops([(rel_table(r), out, self._reached_label(r, out)) for r, out in hops])
                if rebuilt is not None and not path.hops:  # from a lone node: return the end's own name
                    rebuilt = self._named_end(rebuilt)
                rows, problem = self.execute(rebuilt.cypher) if rebuilt is not None else (None, None)
                return rebuilt.cypher if rows and problem is None else None
            said = readings[len(hops)]
            if len(said) > 1:
                leaving = self._leaving(path.nodes[0], hops)
                said = [(r, out) for r, out in said if not out or r in leaving]
            for hop in said:
                if tries <= 0:
                    return None
                if (found := first_reading([*hops, hop])) is not None:
                    return found
            return None

        return first_reading([]) or cypher

    def _unsaid_hop(self, cypher: str, question: str) -> str:
        """Where the bank does not show how the graph's questions spell their relations (so
        `_spelled_path` cannot judge), a one-hop chain whose relation no word of the question
        says (its words' first three letters; the start's type aside), returning a feature its
        named start has, asks the start (`_own_feature`): "What are the keywords of the paper X?"
        written `(p:paper {...})-[:rel_cited_by]->(c:paper) RETURN c.keywords` answered another
        paper's."""
        if self.relation_words is not None and self.relation_words.usable:
            return cypher
        path = Chain.read(cypher)
        if path is None or len(path.hops) != 1:
            return cypher
        asked = {word[:3] for word in re.findall(r"[a-z]+", question.lower()) if len(word) >= 3}
        relation = set(chain_relations(path)[0][0].split("_")) - {path.label(0)}
        if any(word[:3] in asked for word in relation if len(word) >= 3):
            return cypher
        return self._own_feature(path) or cypher

    def _own_feature(self, path: Chain) -> str | None:
        """A chain the question's words spell no hop of, returning a feature (not the name) that its
        named start has: the start's own ("What are the keywords of the paper X?" written
        `(a:paper {...})-[:rel_paper]->(b:paper) RETURN b.keywords` answered another paper's)."""
        returned = path.returns(unequal=True)
        start = path.nodes[0].variable
        node_type = self.graph.schema.node_types.get(path.label(0) or "")
        if returned is None or not start or node_type is None or returned[0] != path.binds_last() \
                or returned[1] not in node_type.features or returned[1] == node_type.text_feature:
            return None
        asked = Return(Projection(((Property(Variable(start), returned[1]), None),), distinct=path.distinct))
        return print_query(Query((SingleQuery((Match((PatternPart((path.nodes[0],)),)), asked)),)))

    def _named_end(self, path: Chain) -> Chain:
        """`path` returning its end node's name feature where that node's type lacks the one
        returned (a paper's `title` asked of the venue it reaches, which has a `name`)."""
        node_type = self.graph.schema.node_types.get(path.label(len(path.nodes) - 1) or "")
        returned = path.returns()
        if node_type is None or not node_type.text_feature or returned is None or returned[1] in node_type.features:
            return path
        return path.returning(returned[0], node_type.text_feature)

    def _leaving(self, start: NodePattern, hops: list[tuple[str, bool]]) -> set[str]:
        """The relations leaving the nodes the chain from node pattern `start` along `hops` reaches."""
        from glm_dspy.graphs.schema import REL_PREFIX, rel_table

        rels = tuple(RelPattern(types=(rel_table(r),), direction="out" if out else "in") for r, out in hops)
        pattern = print_pattern(PatternPart((start, *[NodePattern()] * len(hops)), rels))
        rows, _ = self.execute(f"MATCH {pattern}-[glm_r]->() RETURN DISTINCT label(glm_r) AS rel LIMIT 500")
        return {row["rel"].removeprefix(REL_PREFIX) for row in rows or []}

    def _from_words(self, question: str) -> str | None:
        """For a query that cannot run at all (the 0.5B model once repeated one hop until
        `max_tokens`, and Kuzu could not parse it): the chain the question's words spell from the
        one node it names (`_spelled_path`), where that returns rows; else None, and the repair
        goes on. Only where the graph's words are usable, as `_spelled_path`."""
        if self.relation_words is None or not self.relation_words.usable:
            return None
        named = [found[0] for name in self.names_in(question) if (found := self.named(name))]
        if len(named) != 1:
            return None
        type_name, feature, stored = named[0]
        seed = Chain.unwalked(NodePattern("a", (type_name,), ((feature, Literal(stored)),)), feature)
        rebuilt = self._spelled_path(seed.cypher, question, seed)
        return rebuilt if rebuilt != seed.cypher else None

    def _reached_label(self, relation: str, outgoing: bool) -> str | None:
        """The one node type a hop along `relation` reaches, or None where it may reach several."""
        reached = {dst if outgoing else src for src, dst in self.graph.schema.relations.get(relation, ())}
        return next(iter(reached)) if len(reached) == 1 else None

    def _lone_node(self, cypher: str) -> Chain | None:
        """`MATCH (a:entity {name: 'Objective, Burma!'}) RETURN DISTINCT a.profession`, a property
        its type lacks (a relation word read as a property): a chain of no hops yet, to the node
        whose name it returns, for `_spelled_path` to rebuild; else None."""
        try:
            tree = parse(cypher)
        except (CypherSyntaxError, QueryRefused):
            return None
        clauses = tree.parts[0].clauses
        if len(tree.parts) != 1 or len(clauses) != 2 or not isinstance(clauses[0], Match) or clauses[0].optional \
                or clauses[0].where is not None or len(clauses[0].patterns) != 1:
            return None
        pattern, returned = clauses[0].patterns[0], one_property(clauses[1].projection)
        if pattern.rels or pattern.variable or returned is None:
            return None
        node = pattern.nodes[0]
        label = node.labels[0] if node.labels else None
        if not name_literals(node, self.graph.schema) or node.variable != returned[0] \
                or not relation_as_property(self.graph.schema, label, returned[1]):
            return None
        return Chain.unwalked(node, self.graph.schema.node_types[label].text_feature or "name")

    def _repeated_hops(self, cypher: str, question: str) -> str:
        """A chain that takes one relation several times in a row, where the question names that
        relation fewer times, but at least once, takes it as often as named: "Who were the mentors
        of X?" written `-[:rel_mentor]->()-[:rel_mentor]->(g)`, copied from "Who were the mentors
        of the mentors of Y?". Only where the graph's relation words are not usable: where they
        are, `_spelled_path` reads the whole path from them ("X 's dad 's parents" is two hops of
        `parents` said once)."""
        from glm_dspy.graphs.schema import REL_PREFIX

        if self.relation_words is not None and self.relation_words.usable:
            return cypher
        path = Chain.read(cypher)
        if path is None or len(path.hops) < 2:
            return cypher
        words = [re.sub(r"['’]s?$", "", w) for w in NAME_WORD.findall(question.lower())]  # "mentor's" says mentor
        said = [{w, _word_stem(w)} for w in words]
        hops = [(hop.relation, hop.outgoing) for hop in path.hops]
        kept, at = [], 0
        while at < len(hops):
            run = next((n for n in range(at + 1, len(hops)) if hops[n] != hops[at]), len(hops)) - at
            relation = hops[at][0].removeprefix(REL_PREFIX).removeprefix("inv_")
            named = sum(any(spells(relation, form) for form in forms) for forms in said)
            kept += [hops[at]] * (named if 1 <= named < run else run)
            at += run
        if len(kept) == len(hops):
            return cypher
        shorter = path.with_hops([(table, outgoing, None) for table, outgoing in kept])
        return shorter.cypher if shorter is not None else cypher
