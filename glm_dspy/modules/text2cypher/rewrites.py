"""Post-processing: the rule-based rewrites of a generated query before it is validated
(the package doc's "post-process" stage); the ones that rebuild a chain's path are in paths.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from glm_dspy.modules.text2cypher.facts import ASKS_COUNT, COUNT_WORDS, asked_type
from glm_dspy.modules.text2cypher.names import ground_names
from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, parse
from glm_dspy.graphs.cypher.answer_kind import Asked, answer_kind
from glm_dspy.graphs.cypher.known_property import known_properties
from glm_dspy.graphs.cypher.known_relation import known_relations
from glm_dspy.graphs.cypher.name_literals import link_names
from glm_dspy.graphs.cypher.nested_property import nested_property
from glm_dspy.graphs.cypher.passes import return_node_names
from glm_dspy.graphs.cypher.printer import print_query
from glm_dspy.graphs.cypher.relabel import relabel
from glm_dspy.graphs.cypher.return_end import return_end

# how near in meaning (cosine of the RetrieveNode embedder) a relation the graph has must be to one
# it does not, to stand in for it: "husband" -> spouse 0.87, "parent" -> parents 0.82; "other half"
# is 0.25 from everything and goes to repair instead
RELATION_LIKENESS = 0.5
# the code fence a model may wrap its reply in: the reply's text, stripped before the query is parsed
FENCE = re.compile(r"^```(?:cypher)?\s*|\s*```$", re.IGNORECASE)


def _on_tree(rewrite: Callable, schema, *args) -> Callable[[str], str]:
    """A pass over the parsed query (graphs/cypher/: `rewrite(tree, schema, *args)`) as a pass
    over its text: the printed tree where it changed, else the text as it was (the pass does not
    apply, or the query does not parse and validation says why)."""
    def apply(cypher: str) -> str:
        try:
            tree = parse(cypher)
        except (CypherSyntaxError, QueryRefused):
            return cypher
        changed = rewrite(tree, schema, *args)
        return cypher if changed is tree else print_query(changed)
    return apply


class Rewrites:
    """Text2Cypher's `post_process` and the rewrites it applies but those of paths.py. Reads
    `graph` and `ground`; asks Names for the question's names and stored names, Walks for the
    nearest relation (`_nearest_relation`) and Paths for the path rewrites. Every rewrite but
    "unfence" is a pass over the parsed query (graphs/cypher/), applied through `_on_tree`."""

    def post_process(self, cypher: str, question: str | None = None, fired: list[dict] | None = None) -> str:
        """Rule-based fixes (the package doc), applied in the order of `passes`: fences and a
        trailing ';', name literals held to the question's names (`ground_names`, where
        `question` is given) and linked to stored names, then each rewrite of the query's
        structure. Each pass that changes the query is appended to `fired` as {"name",
        "before", "after"}: the step record shows why the query that ran differs from the
        model's."""
        for name, rewrite in self.passes(question):
            before, cypher = cypher, rewrite(cypher)
            if fired is not None and cypher != before:
                fired.append({"name": name, "before": before, "after": cypher})
        return cypher

    def passes(self, question: str | None) -> list[tuple[str, Callable[[str], str]]]:
        """The rewrites in the order they apply; those that read the question only where it is given."""
        found = [("unfence", lambda cypher: FENCE.sub("", cypher.strip()).strip().rstrip(";").strip()),
                 ("link names", _on_tree(link_names, self.graph.schema, lambda names: self._linked(names, question))),
                 ("relabel", _on_tree(relabel, self.graph.schema, self._types_named)),
                 ("known relation", _on_tree(known_relations, self.graph.schema, self._stand_in)),
                 ("known properties", _on_tree(known_properties, self.graph.schema)),
                 ("return end", _on_tree(return_end, self.graph.schema)),
                 ("nested property", _on_tree(nested_property, self.graph.schema)),
                 ("node names", _on_tree(return_node_names, self.graph.schema))]
        if question is not None:
            found += [("repeated hops", lambda cypher: self._repeated_hops(cypher, question)),
                      ("answer kind", _on_tree(answer_kind, self.graph.schema, self._asked(question))),
                      ("spelled path", lambda cypher: self._spelled_path(cypher, question)),
                      ("unsaid hop", lambda cypher: self._unsaid_hop(cypher, question))]
        return found

    def _linked(self, names: list[str], question: str | None) -> list[str]:
        """The names a query matches by (`link_names`), each held to the question's names
        (`ground_names`, where `question` is given) and linked to the stored name it means."""
        if question is not None and self.ground:
            names = ground_names(names, question, self.names_in(question), self.relation_words_in(question))
        return [stored if (stored := self.stored_name(name)) is not None else name for name in names]

    def _asked(self, question: str) -> Asked:
        """What `question` asks for, as `answer_kind` reads it (facts.py reads the English): the
        node type its opening words name, whether it asks how many, whether it says a word of
        counting. "Which Nobel Prizes were received by students of X?" written `RETURN
        count(DISTINCT s)` (copied from a "How many ..." example) returns the prizes' names."""
        return Asked(asked_type(question, self.graph.schema.node_types), ASKS_COUNT.search(question) is not None,
                     COUNT_WORDS.search(question) is not None)

    def _stand_in(self, table: str) -> str | None:
        """The graph's relation nearest relationship table `table` in meaning (`rel_husband`,
        `rel_parent`: a word of the question, not of the schema -> `spouse`, `parents`), where one
        is near enough (RELATION_LIKENESS); else None, and Kuzu's EXPLAIN sends the query to
        repair. None too without a node index (no embedder)."""
        if self.graph.retriever.node_index is None:
            return None
        relation, likeness = self._nearest_relation(table)
        return relation if likeness >= RELATION_LIKENESS else None

    def _types_named(self, text: str) -> list[tuple[str, str]]:
        """(node type, text feature) of each type with a node named `text` but for case (`named`):
        what `relabel` reads."""
        return [(type_name, feature) for type_name, feature, _ in self.named(text)]
