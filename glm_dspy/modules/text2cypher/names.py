"""Grounding the names a query holds to the question's names and to the graph's stored nodes.

`ground_names` and `named_nodes` are functions (prompts/function_docs.py uses `named_nodes`); `Names`
holds the lookups that need the graph."""

from __future__ import annotations

import re
from collections.abc import Collection

from glm_dspy.modules.text2cypher.facts import NAME_CONNECTORS, QUESTION_WORDS, _folded, _likeness, question_names
from glm_dspy.graphs.schema import spells

POSSESSOR_WORDS = 5  # the longest run of lower-case words before "'s" tried as a name
SHARED_NAMES = 20  # a phrase this many stored names share, none of them equal to it, names a kind ("Nobel Prizes")


def named_nodes(graph, text: str) -> list[str]:
    """The ids of the nodes `text` names (`question_names` whose RetrieveNode match has that very
    name, but for case and underscores), in order; [] without a node index."""
    retriever = graph.retriever
    if retriever.node_index is None:
        return []
    found = []
    for name in question_names(text):
        node_id = retriever.retrieve_node(name)
        if isinstance(node_id, str) and _folded(retriever.label(node_id) or "") == _folded(name):
            found.append(node_id)
    return list(dict.fromkeys(found))


def ground_names(literals: list[str], question: str, names: list[str] | None = None,
                 relation_words: Collection[str] = ()) -> list[str]:
    """Each name literal a query holds, held to the names its question mentions (`question_names`).

    A small model often copies an example's name instead of the question's ("Agnieszka Nelson" for
    "Agnieszka Phillips", the example's author), or writes one the question does not say ("Fatima
    A. Clark" for "Fatima Clark", another author). A literal the question holds (case, underscores
    and punctuation aside) stays; any other becomes the question's name most like it, one the
    query's other literals do not already name first. Where the question mentions no name, every
    literal stays. `names`: the question's names where the caller knows them better
    (`Text2Cypher.names_in`). `relation_words`: the question's words that spell a relation of the
    graph (`place_of_birth`); a literal that is one of them is not a name the question holds, even
    where a node is so named (PQL's 'Place of birth' took the place of 'Gianfranco Parolini')."""
    names = question_names(question) if names is None else names
    if not names:
        return list(literals)
    text = f" {_folded(question)} "
    not_names = {_folded(word) for word in relation_words} - {_folded(name) for name in names}
    used = {name for name in names for literal in literals if _folded(literal) == _folded(name)}
    grounded = []
    for literal in literals:
        if f" {_folded(literal)} " in text and _folded(literal) not in not_names:
            grounded.append(literal)
            continue
        free = [name for name in names if name not in used] or names
        best = max(free, key=lambda name: _likeness(literal, name))
        used.add(best)
        grounded.append(best)
    return grounded


class Names:
    """Text2Cypher's name lookups: which of a question's words are names (`names_in`), which
    spell the graph's relations (`relation_words_in`), and the stored name a text means
    (`named`, `exact_name`, `stored_name`). Reads `graph` (its schema, store and retriever);
    `_kind` fills the `_kinds` cache (answers by name, set empty in `__init__`)."""

    def names_in(self, question: str) -> list[str]:
        """The names a query's literals are held to (`ground_names`): the question's names
        (`question_names`) but the schema's own words (PathQuestion's relation word `track_list`
        read as the name "track list", and took the place of 'Elliott Yamin'); where none is left,
        a lower-case name before a possessive that names a node exactly ("is kalama 's darling
        a man ?")."""
        said = {_folded(word) for word in self.relation_words_in(question)}
        names = [name for name in question_names(question)
                 if _folded(name) not in said and not self._schema_word(name) and not self._kind(name)]
        return names or self._possessors(question)

    def _kind(self, name: str) -> bool:
        """Whether `name` is a phrase many stored names share (SHARED_NAMES or more, as whole
        words, a plural's "s" aside) but none is: a kind of node, not one. "Which Nobel Prizes
        were received by students of Eugene Bloch?": "Nobel Prizes" held the query's literal, and
        linking took it to a prize. A name with a typo ("Fatima Clrak") is shared by none."""
        if name not in self._kinds:
            words = _folded(name).split()
            pattern = r"\b" + r"\W+".join(re.escape(w[:-1]) + "s?" if len(w) > 3 and w.endswith("s") else re.escape(w)
                                          for w in words) + r"\b"
            shared = 0
            for type_name, node_type in self.graph.schema.node_types.items():
                if (feature := node_type.text_feature) is not None and shared < SHARED_NAMES:
                    shared += self.graph.store.query(
                        f"MATCH (n:`{type_name}`) WHERE regexp_matches(lower(n.`{feature}`), $pattern) "
                        f"RETURN count(*) AS shared", {"pattern": pattern})[0]["shared"]
            self._kinds[name] = bool(words) and shared >= SHARED_NAMES and self.exact_name(name) is None
        return self._kinds[name]

    def relation_words_in(self, question: str) -> list[str]:
        """The question's words, or words joined by "_", that spell a relation of the graph
        (`spells`: "place_of_birth", "mentor"), as the question writes them; a name the graph has
        as a node's too ("Place of birth" in PQL) is still the relation's word here."""
        relations = self.graph.schema.relations
        words = (word.strip(".,;:!?'’\"()") for word in question.lower().split())
        return [word for word in dict.fromkeys(words) if len(word) >= 3 and word not in NAME_CONNECTORS
                and any(spells(relation, word) for relation in relations)]

    def _schema_word(self, name: str) -> bool:
        """Whether `name` spells a relation or feature of the graph, or the end of one (`track
        list`: music_release_track_list), rather than a node's name; one the graph has as a
        node's name exactly is a name."""
        word = "_".join(name.lower().split())
        schema = self.graph.schema
        spelled = any(spells(relation, word) for relation in schema.relations) \
            or any(word in node_type.features for node_type in schema.node_types.values())
        return spelled and self.exact_name(name) is None

    def _possessors(self, question: str) -> list[str]:
        """The stored names of nodes named, exactly, by the words right before a possessive
        ("of funk 's tracks" -> "funk"), the longest run of at most POSSESSOR_WORDS first."""
        words = re.sub(r"(\w)(['’]s)\b", r"\1 \2", question).split()
        found = []
        for at, word in enumerate(words):
            if word not in ("'s", "’s"):
                continue
            for length in range(min(POSSESSOR_WORDS, at), 0, -1):
                run = words[at - length: at]
                if run[0].lower() in QUESTION_WORDS or run[0].lower() in NAME_CONNECTORS:
                    continue
                if (exact := self.exact_name(" ".join(run))) is not None:
                    found.append(exact[1])
                    break
        return list(dict.fromkeys(found))

    def named(self, text: str) -> list[tuple[str, str, str]]:
        """(node type, text feature, stored name) of each node type with a node whose name or title
        equals `text` but for case."""
        found = []
        for type_name, node_type in self.graph.schema.node_types.items():
            feature = node_type.text_feature
            if feature is None:
                continue
            rows = self.graph.store.query(f"MATCH (n:`{type_name}`) WHERE lower(n.`{feature}`) = lower($text) "
                                          f"RETURN n.`{feature}` AS name LIMIT 1", {"text": text})
            if rows:
                found.append((type_name, feature, rows[0]["name"]))
        return found

    def exact_name(self, text: str) -> tuple[str, str] | None:
        """(text feature, stored name) of a node whose name or title equals `text` but for case; None if none."""
        found = self.named(text)
        return found[0][1:] if found else None

    def stored_name(self, text: str) -> str | None:
        """The stored name `text` means: a node's name or title equal to it but for case (or with
        its underscores as spaces: a question's entity id copied into the query), else the name of
        the node RetrieveNode finds for it (a near spelling); None if neither. RetrieveNode alone
        took `charles_lennox_1st_duke_of_richmond` to the 3rd duke."""
        spaced = " ".join(text.replace("_", " ").split())  # PathQuestion's `charles_lennox_1st_duke_of_richmond`
        for form in dict.fromkeys((text, spaced)):
            if (exact := self.exact_name(form)) is not None:
                return exact[1]
        retriever = self.graph.retriever
        node_id = retriever.retrieve_node(spaced) if retriever.node_index is not None else None
        return retriever.label(node_id) if isinstance(node_id, str) else None
