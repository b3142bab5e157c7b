"""The prompt's parts besides the question: the schema pruned to it, and the examples nearest it."""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from pathlib import Path

import numpy as np

from glm_dspy.modules.stored_vectors import stored_vectors
from glm_dspy.modules.text2cypher.facts import _folded, question_form
from glm_dspy.modules.text2cypher.names import named_nodes
from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, parse, print_query
from glm_dspy.graphs.cypher.name_literals import name_literals, without_strings

OWN_RELATION_BONUS = 1.0  # added to the cosine of a relation a named node has: those come first
TIE_WEIGHT = 0.1  # of the whole question's similarity, next to its form's
EXAMPLE_CANDIDATES = 32  # the examples nearest in meaning, reordered by word order (`choose_examples`)
ORDER_WEIGHT = 0.6  # of the forms' word-order likeness (difflib ratio), next to their cosine, where asked


def default_examples_path(graph) -> Path | None:
    """The graph's example queries: its database's own file (glm-dspy build writes it from a train
    split), else the dataset's shipped one; None where neither exists (graphs/cypher_examples.py)."""
    from glm_dspy.graphs.cypher_examples import FILE_NAME, examples_path

    own = Path(graph.store.db_dir) / FILE_NAME
    if own.is_file():
        return own
    try:
        shipped = examples_path(graph.schema.name)
    except FileNotFoundError:  # no data folder (GLM_DATA_DIR points nowhere): no shipped examples
        return None
    return shipped if shipped.is_file() else None


def read_examples(path: Path) -> list[dict]:
    """A bank file's examples: {"question", "cypher", "family"} each; a clear error for a line
    that is not one."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no Text2Cypher examples file (JSON Lines of "
                                "{\"question\", \"cypher\"}; python -m glm_dspy.graphs.cypher_examples)")
    found = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            found.append({"question": str(record["question"]), "cypher": str(record["cypher"]),
                          "family": str(record.get("family") or "")})
        except (ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}:{number}: not a {{\"question\", \"cypher\"}} record ({error})") from None
    return found


def query_shape(cypher: str) -> str:
    """The query with every string literal empty, as the printer writes it: two queries that
    differ only in their names and values have one shape. A query that does not parse is its
    own shape."""
    try:
        return print_query(without_strings(parse(cypher)))
    except (CypherSyntaxError, QueryRefused):
        return cypher


def _matched_names(cypher: str, schema) -> list[str]:
    """The names `cypher` matches nodes by (graphs/cypher/name_literals.py); none where it does not parse."""
    try:
        return name_literals(parse(cypher), schema)
    except (CypherSyntaxError, QueryRefused):
        return []


class Examples:
    """Text2Cypher's pruning and example stages. Reads `graph`, `k`, `max_relations`, `examples`,
    `order_weight`, `distinct_shapes`, `hold_out_own` and `hold_out_family`;
    fills, on first use, the embedding caches `_relation_vectors` (the schema's relations),
    `_form_vectors` (the bank's forms) and `_example_vectors`, `_example_forms`, `_example_shapes`,
    `_example_names` (the bank's), each None until then."""

    def _read_examples(self, examples) -> list[dict]:
        if examples is None:
            return []
        if str(examples) == "default":
            path = default_examples_path(self.graph)
            return read_examples(path) if path is not None else []
        return read_examples(Path(examples))

    def _embed(self, texts: list[str]) -> np.ndarray:
        return self.graph.retriever.node_index.embedder.encode(texts)

    def _embed_fixed(self, texts: list[str]) -> np.ndarray:
        """`_embed` of the graph's own texts (the bank's, the schema's), which the next process
        reads from disk (glm_dspy/modules/stored_vectors.py)."""
        return stored_vectors(self.graph.retriever.node_index.embedder, texts)

    def _relations(self) -> list[tuple[str, str, str]]:
        return [(src, relation, dst) for relation, pairs in sorted(self.graph.schema.relations.items())
                for src, dst in pairs]

    def prune(self, question: str) -> str:
        """The schema text for `question`: the relationship tables that leave the nodes it names
        (a path starts at one of them), then the ones nearest it in meaning, `max_relations` in
        all, in schema order; and the node tables they join."""
        from glm_dspy.graphs.literal import cypher_name
        from glm_dspy.graphs.schema import rel_table

        schema = self.graph.schema
        relations = self._relations()
        if len(relations) > self.max_relations and self.graph.retriever.node_index is not None:
            if self._relation_vectors is None:
                self._relation_vectors = self._embed_fixed([f"{s} {r.replace('_', ' ')} {d}" for s, r, d in relations])
            scores = self._relation_vectors @ self._embed([question])[0]
            retriever = self.graph.retriever
            own = {(retriever.store.type_of(node_id), relation) for node_id in named_nodes(self.graph, question)
                   for relation in retriever.relations_of(node_id)}
            scores = scores + np.array([OWN_RELATION_BONUS * ((s, r) in own) for s, r, _ in relations])
            relations = [relations[i] for i in sorted(np.argsort(-scores)[: self.max_relations])]
        types = sorted({t for s, _, d in relations for t in (s, d)})
        lines = ["Node tables:"]
        for type_name in types:
            features = ", ".join(map(cypher_name, ["id", *schema.node_types[type_name].features]))
            lines.append(f"  {cypher_name(type_name)}({features})")  # names as written; in backticks where needed
        lines.append("Relationship tables:")
        lines += [f"  (:{cypher_name(s)})-[:{cypher_name(rel_table(r))}]->(:{cypher_name(d)})" for s, r, d in relations]
        return "\n".join(lines)

    def nearest_examples(self, question: str) -> str:
        """The chosen examples (`choose_examples`) as prompt text, the nearest last, next to the question."""
        chosen = self.choose_examples(question)
        if not chosen:
            return "(none)"
        return "\n\n".join(f"Question: {e['question']}\nCypher: {e['cypher']}" for e in reversed(chosen))

    def form_similarity(self, question: str) -> float:
        """The cosine of the question's form (names aside) and the nearest form in the bank; 0.0
        without a bank. Near 1: the bank holds a question asked this way."""
        if not self.examples:
            return 0.0
        return float(np.max(self._bank_form_vectors() @ self._embed([question_form(question)])[0]))

    def _bank_form_vectors(self) -> np.ndarray:
        """The vectors of the bank's forms: all `form_similarity` reads of the bank (the readings ask
        it before any LLM call, so it reads no more)."""
        if self._form_vectors is None:
            self._form_vectors = self._embed_fixed([question_form(e["question"]) for e in self.examples])
        return self._form_vectors

    def _example_embeddings(self) -> None:
        if self._example_vectors is None:
            questions = [e["question"] for e in self.examples]
            forms = [question_form(q) for q in questions]
            self._example_vectors = (self._bank_form_vectors(), self._embed_fixed(questions))
            self._example_forms = [form.lower().split() for form in forms]
            self._example_shapes = [query_shape(e["cypher"]) for e in self.examples]
            self._example_names = [{_folded(name) for name in _matched_names(e["cypher"], self.graph.schema)}
                                   for e in self.examples]

    def choose_examples(self, question: str) -> list[dict]:
        """The `k` examples that ask most like `question`, the nearest first.

        Nearness is of the questions' forms, names aside (`question_form`: "When was Marie Curie
        born?" is nearest "When was Ivan Pavlov born?", not "When did Irène Joliot-Curie die?"),
        the whole question breaking ties. Two options, off by default: `order_weight`, the forms'
        word order among the EXAMPLE_CANDIDATES nearest ("the son of the husband of X" is not "the
        husband of X 's son"); `distinct_shapes`, one example per query shape (names aside) while
        the candidates have other shapes: the bank
        words each question several ways, and three wordings of one query would fill the prompt
        with one shape where the question's words may need another (`bench/examples.py` measures
        both rules)."""
        if not self.examples or self.k == 0:
            return []
        self._example_embeddings()
        form_vectors, whole_vectors = self._example_vectors
        form = question_form(question)
        scores = form_vectors @ self._embed([form])[0] + TIE_WEIGHT * (whole_vectors @ self._embed([question])[0])
        if self.hold_out_own:
            own = {_folded(name) for name in self.names_in(question)}
            scores = np.where([bool(names & own) for names in self._example_names], -np.inf, scores)
        if self.hold_out_family:
            own = {e["family"] for e in self.examples if e["question"] == question} - {""}
            scores = np.where([e["family"] in own for e in self.examples], -np.inf, scores)
        candidates = np.argsort(-scores)[:max(EXAMPLE_CANDIDATES, self.k)]
        if self.order_weight:
            words = form.lower().split()
            order = {i: SequenceMatcher(None, words, self._example_forms[i], autojunk=False).ratio() for i in candidates}
            candidates = sorted(candidates, key=lambda i: -(scores[i] + self.order_weight * order[i]))
        chosen, shapes = [], set()
        for i in candidates:
            if not (self.distinct_shapes and self._example_shapes[i] in shapes):
                chosen.append(i)
                shapes.add(self._example_shapes[i])
        # fewer shapes than k among the candidates (a graph of few templates): the nearest of the rest fill in
        chosen = (chosen + [i for i in candidates if i not in chosen])[: self.k]
        chosen = [i for i in chosen if np.isfinite(scores[i])]  # held out (`hold_out_own`), in a bank of few
        return [self.examples[i] for i in sorted(chosen, key=list(candidates).index)]
