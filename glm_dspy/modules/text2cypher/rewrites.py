"""Post-processing: the rule-based rewrites of a generated query before it is validated
(the package doc's "post-process" stage); the ones that rebuild a chain's path are in paths.py."""

from __future__ import annotations

import re
from collections.abc import Callable

from glm_dspy.modules.cypher_paths import END, NODE_HEAD, Chain
from glm_dspy.modules.relation_words import spells
from glm_dspy.modules.text2cypher.cypher_text import (
    FENCE, LITERAL_OR_PROPERTY, NESTED, NESTED_RETURN, NODE_LABEL, RELATIONSHIP_LABEL, RETURN_COUNT, RETURN_FEATURE,
    RETURN_ONE, STRING_LITERAL, _escape, _unescape)
from glm_dspy.modules.text2cypher.facts import ASKED_WORDS, ASKING, ASKS_COUNT, COUNT_WORDS, NAME_WORD
from glm_dspy.modules.text2cypher.names import ground_names
from graphs.cypher import CypherSyntaxError, QueryRefused, parse
from graphs.cypher.passes import return_node_names
from graphs.cypher.printer import print_query

# how near in meaning (cosine of the RetrieveNode embedder) a relation the graph has must be to one
# it does not, to stand in for it: "husband" -> spouse 0.87, "parent" -> parents 0.82; "other half"
# is 0.25 from everything and goes to repair instead
RELATION_LIKENESS = 0.5


def _on_tree(rewrite: Callable, schema) -> Callable[[str], str]:
    """A pass over the parsed query (graphs/cypher/passes.py) as a pass over its text: the text
    as it was where the pass does not apply or the query does not parse (validation says why)."""
    def apply(cypher: str) -> str:
        try:
            tree = parse(cypher)
        except (CypherSyntaxError, QueryRefused):
            return cypher
        changed = rewrite(tree, schema)
        return cypher if changed is tree else print_query(changed)
    return apply


class Rewrites:
    """Text2Cypher's `post_process` and the rewrites it applies but those of paths.py. Reads
    `graph`, `ground`, `_name_literal`, `_node_pattern` and `_text_features`; asks Names for the
    question's names and stored names, Walks for the nearest relation (`_nearest_relation`) and
    Paths for the path rewrites."""

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
                 ("link names", lambda cypher: self._link_names(cypher, question)),
                 ("relabel", lambda cypher: self._node_pattern.sub(self._relabel, cypher)),
                 ("known relation", lambda cypher: RELATIONSHIP_LABEL.sub(self._known_relation, cypher)),
                 ("known properties", self._known_properties),
                 ("return end", self._return_end),
                 ("nested property", self._nested_property),
                 ("node names", _on_tree(return_node_names, self.graph.schema))]
        if question is not None:
            found += [("repeated hops", lambda cypher: self._repeated_hops(cypher, question)),
                      ("answer kind", lambda cypher: self._answer_kind(cypher, question)),
                      ("spelled path", lambda cypher: self._spelled_path(cypher, question)),
                      ("unsaid hop", lambda cypher: self._unsaid_hop(cypher, question))]
        return found

    def _link_names(self, cypher: str, question: str | None) -> str:
        """Each name literal held to the question's names (`ground_names`) and linked to the
        stored name it means."""
        literals = [_unescape(match.group(2)) for match in self._name_literal.finditer(cypher)]
        if question is not None and self.ground:
            literals = ground_names(literals, question, self.names_in(question), self.relation_words_in(question))
        texts = iter(literals)

        def link(match: re.Match) -> str:
            text = next(texts)
            name = self.stored_name(text)
            return f"{match.group(1)}'{_escape(name if name is not None else text)}'"
        return self._name_literal.sub(link, cypher)

    def _nested_property(self, cypher: str) -> str:
        """A relation read as a property of a property: `RETURN c.author.name` ("Who wrote the
        papers cited by X?") is the hop to the node that relation reaches, `MATCH
        (c)-[:rel_author]->(glm_nested:author) RETURN DISTINCT glm_nested.name`. Only in a query's
        one RETURN, of a node variable whose type has that relation to one type of node; Kuzu
        refuses the nested property, and the repair had repeated it."""
        from graphs.schema import rel_table

        bare = STRING_LITERAL.sub("''", cypher)
        found = NESTED_RETURN.search(bare)
        if found is None or len(re.findall(r"\bRETURN\b", bare, re.IGNORECASE)) != 1:
            return cypher
        _, variable, relation, feature = found.groups()
        label = dict(NODE_LABEL.findall(bare)).get(variable)
        reached = {dst for src, dst in self.graph.schema.relations.get(relation, ()) if src == label}
        if len(reached) != 1 or feature not in self.graph.schema.node_types[target := reached.pop()].features:
            return cypher
        head = cypher[: len(cypher) - len(bare) + found.start()]
        return f"{head}MATCH ({variable})-[:{rel_table(relation)}]->({NESTED}:{target}) RETURN DISTINCT {NESTED}.{feature}"

    def _answer_kind(self, cypher: str, question: str) -> str:
        """A query that returns what the question does not ask for, a count or the things counted,
        returns the other, of the node the question asks about where the query has one node of
        that type (`_asked_node`), else of the one it returned. "Which Nobel Prizes were received
        by students of X?" written `-[:rel_student]->(s:laureate)-[:rel_prize]->(:prize) RETURN
        count(DISTINCT s)` (copied from a "How many ..." example) returns the prizes' names; "How
        many laureates were affiliated with X?" written `RETURN DISTINCT b.name` returns
        `count(DISTINCT b)`. Only a query whose last clause returns that one item, never one of
        several joined by UNION, and only a node's name or title becomes a count (`RETURN
        p.pages` answers "How many pages ...")."""
        bare = STRING_LITERAL.sub("''", cypher)
        if re.search(r"\bUNION\b", bare, re.IGNORECASE):
            return cypher
        labels = dict(NODE_LABEL.findall(bare))
        types = self.graph.schema.node_types

        def before(match: re.Match) -> str:  # the query up to `match` (literals are before any RETURN)
            return cypher[: len(cypher) - len(bare) + match.start()]

        if (counted := RETURN_COUNT.search(bare)) is not None:
            if COUNT_WORDS.search(question) is not None:
                return cypher
            variable, feature = counted.group(2), counted.group(3)
            head = before(counted)
            node_type = types.get(labels.get(variable, ""))
            if (asked := self._asked_node(head, question)) is not None:
                head, variable, node_type = asked[0], asked[1], types[asked[2]]
                feature = feature if asked[1] == counted.group(2) else node_type.text_feature
            feature = feature or (node_type.text_feature if node_type is not None else None)
            if feature is None or node_type is not None and feature not in node_type.features:
                return cypher
            return f"{head}RETURN DISTINCT {variable}.{feature}"
        returned = RETURN_FEATURE.search(bare)
        if returned is None or "count(" in bare.replace(" ", "").lower():
            return cypher
        variable, feature = returned.group(2), returned.group(3)
        node_type = types.get(labels.get(variable, ""))
        # "How many ...?" written `-[:rel_student]->(s) RETURN s.name`: a node of no label counts as well
        unlabeled = ASKS_COUNT.search(question) and feature in self._text_features \
            and re.search(rf"\(\s*{variable}\s*[){{]", bare) is not None
        if not unlabeled and (node_type is None or feature != node_type.text_feature):
            return cypher
        asked = self._asked_node(before(returned), question)
        if ASKS_COUNT.search(question):
            head, variable = asked[:2] if asked is not None else (before(returned), variable)
            return f"{head}RETURN count(DISTINCT {variable})"
        if asked is None or asked[2] == labels.get(variable):
            return cypher
        return f"{asked[0]}RETURN {returned.group(1) or ''}{asked[1]}.{types[asked[2]].text_feature}"

    def _asked_node(self, head: str, question: str) -> tuple[str, str, str] | None:
        """The node the question asks about in query `head` (all but its RETURN): the first of the
        graph's node types named by the words right after its "which", "what" or "how many"
        (ASKING: "Which Nobel *Prizes* ...", "How many *laureates* ..."), where `head` has one node
        pattern of that type; (`head` with that node bound to a variable, the variable, the type),
        or None."""
        from graphs.schema_examples import plural, words

        asking = ASKING.match(question)
        opening = [w.lower() for w in NAME_WORD.findall(question[asking.end():])[:ASKED_WORDS]] if asking else []
        said = {}
        for type_name in self.graph.schema.node_types:
            spoken = words(type_name).lower().split()
            for form in (spoken, plural(" ".join(spoken)).split()):
                for at in range(len(opening) - len(form) + 1):
                    if opening[at: at + len(form)] == form:
                        said.setdefault(type_name, at)
        if not said:
            return None
        type_name = min(said, key=said.get)
        pattern = re.compile(f"({STRING_LITERAL.pattern})|" + r"\(\s*(\w*)\s*:\s*`?" + re.escape(type_name) + r"`?(?=[\s){])")
        found = [m for m in pattern.finditer(head) if m.group(1) is None]
        if len(found) != 1:
            return None
        if variable := found[0].group(2):
            return head, variable, type_name
        variable = next(v for v in ("x", "y", "glm_asked") if not re.search(rf"\b{v}\b", STRING_LITERAL.sub("''", head)))
        at = found[0].start() + 1
        return head[:at] + variable + head[at:], variable, type_name

    def _return_end(self, cypher: str) -> str:
        """A chain that returns the very name its first node is matched by (`MATCH (a:entity {name:
        'Trenton'})-[:rel_location_location_containedby]->(:entity) RETURN DISTINCT a.name`
        answers "Trenton" whatever the graph holds), or a one-hop chain that asks its start for the
        relation it has just taken as a property (`_property_of_hop`), returns the name of the node
        it ends at."""
        path = Chain.read(cypher)
        returned = RETURN_ONE.match(path.rest) if path is not None else None
        start = NODE_HEAD.match(path.nodes[0]).group(1) if returned else None
        if not start or returned.group(2) != start or self._name_literal.search(path.nodes[0]) is None \
                or not (returned.group(3) in self._text_features or self._property_of_hop(path, returned.group(3))):
            return cypher
        end = path.binds_last()
        if end == start:
            return cypher
        if end is None:
            end = next(v for v in ("b", "x", END) if not re.search(rf"\b{v}\b", cypher))
            path = path.bind_last(end)
        node_type = self.graph.schema.node_types.get(path.label(len(path.nodes) - 1) or "")
        feature = node_type.text_feature if node_type is not None and node_type.text_feature else returned.group(3)
        head = path.cypher[: len(path.cypher) - len(path.rest)]
        return f"{head} RETURN {returned.group(1) or ''}{end}.{feature}"

    def _property_of_hop(self, path: Chain, feature: str) -> bool:
        """Whether a one-hop chain's start node is asked for, as a property, the relation it has
        just taken: `MATCH (a:entity {name: 'Sister Wynona Carr'})-[:rel_people_person_place_of_birth]->(:entity)
        RETURN a.place_of_birth` means the node the hop reaches."""
        from graphs.schema import REL_PREFIX

        relation = path.hops[0].relation.removeprefix(REL_PREFIX)
        return len(path.hops) == 1 and self._lacks(path.label(0), feature) and spells(relation, feature)

    def _lacks(self, label: str | None, feature: str) -> bool:
        """Whether `feature` is a relation's word read as a property (`RETURN a.place_of_birth`,
        PathQuestion-L's `people_person_place_of_birth`): nodes of type `label` have no such
        property and a relation is named by it or ends with it; False where the type is not known."""
        node_type = self.graph.schema.node_types.get(label or "")
        return node_type is not None and feature != "id" and feature not in node_type.features \
            and any(spells(relation, feature) for relation in self.graph.schema.relations)

    def _known_relation(self, match: re.Match) -> str:
        """A relationship table the graph does not have (`rel_husband`, `rel_parent`: a word of
        the question, not of the schema) becomes the graph's relation nearest it in meaning
        (`rel_spouse`, `rel_parents`), where one is near enough (RELATION_LIKENESS); else it stays
        and Kuzu's EXPLAIN sends the query to repair."""
        from graphs.schema import REL_PREFIX, rel_table

        label = match.group(2)
        if not label.startswith(REL_PREFIX) or label[len(REL_PREFIX):] in self.graph.schema.relations \
                or self.graph.retriever.node_index is None:
            return match.group(0)
        relation, likeness = self._nearest_relation(label)
        return match.group(0) if likeness < RELATION_LIKENESS else f"{match.group(1)}{rel_table(relation)}"

    def _known_properties(self, cypher: str) -> str:
        """A property its node's type lacks, one of whose words is the one feature the type has of
        them (`b.publication_year` of a paper, whose feature is `year`), becomes that feature. A
        relation's word read as a property (`a.place_of_birth`) is left to `_return_end` and
        `_spelled_path`; a property no feature shares a word with stays, for Kuzu to refuse."""
        schema = self.graph.schema
        labels = {variable: label for variable, label in NODE_LABEL.findall(STRING_LITERAL.sub("''", cypher))}

        def known(match: re.Match) -> str:
            literal, variable, feature = match.groups()
            if literal is not None:  # never inside a name
                return literal
            node_type = schema.node_types.get(labels.get(variable, ""))
            if node_type is None or feature in node_type.features or feature == "id" \
                    or any(spells(relation, feature) for relation in schema.relations):
                return match.group(0)
            said = set(feature.lower().split("_"))
            near = [f for f in node_type.features if f.lower() in said or feature.lower() in f.lower().split("_")]
            return f"{variable}.{near[0]}" if len(near) == 1 else match.group(0)
        return LITERAL_OR_PROPERTY.sub(known, cypher)

    def _relabel(self, match: re.Match) -> str:
        """A node pattern whose name is not one of its label's but another node type's takes that
        type's label (`(m:laureate {name: 'Lawrence Jones'})`, a scholar, matched nothing and
        counted 0), or none where several types have it."""
        variable, label, feature, literal = match.groups()
        types = [type_name for type_name, named_by, _ in self.named(_unescape(literal)) if named_by == feature]
        if not types or label in types:
            return match.group(0)
        new_label = f":{types[0]}" if len(types) == 1 else ""
        return f"({variable}{new_label} {{{feature}: '{literal}'}})"
