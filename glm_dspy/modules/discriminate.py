"""Don't generate, discriminate (Pangu, Gu, Deng and Su, ACL 2023): the graph proposes the
readings of a question, the model only chooses one.

    question -> the nodes it names (RetrieveNode, the exact name) -> every path of up to 3 hops
    those nodes really have, with what its end may return (graphs/cypher/candidates.py)
    -> those whose value can be what the question asks (question_facts: a count, a date)
    -> the `k` nearest the question in meaning (the RetrieveNode embedder) -> the model picks
    one by its number (ChooseReading, one call) -> its query runs (gated, as every query)
    -> the values are the answer; a reading that reads nothing gives way to the next nearest.

The model may answer 0, none of them (a question that compares, counts under a condition or
combines two paths is no single path). Then, where the question names no node, or no reading
reads anything, `fallback` (a module taking
`question`, e.g. Text2Cypher) answers instead, its steps appended.
"""

from __future__ import annotations

import re
from collections import OrderedDict

import dspy
import numpy as np

from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.question_facts import asked, asked_thing, fits
from glm_dspy.signatures import ChooseReading
from glm_dspy.steps import RETRIEVAL_ERROR, UNEXPECTED_OUTPUT, Step, StepLog
from graphs.cypher.candidates import COUNT, Candidate, Start, candidates_from, inverse_relations

DEFAULT_K = 8  # readings shown to the model
PATHS = 24  # paths whose readings are ranked one by one
HOP_COST = 0.03  # of cosine, per hop: of two readings alike in meaning, the shorter first
THING_BONUS = 0.15  # of cosine, to a reading that ends at the node type the question asks for by name
MAX_VALUES = 20  # values joined into an answer
EMBEDDING_CACHE = 20_000  # reading words -> vector
NONE = "none of these: the question asks something else"


class Discriminate(dspy.Module):
    def __init__(self, graph, *, fallback=None, k: int = DEFAULT_K, max_hops: int = 3):
        super().__init__()
        assert k >= 1 and max_hops >= 1
        self.graph, self.fallback, self.k, self.max_hops = graph, fallback, k, max_hops
        self.choose = dspy.Predict(ChooseReading, max_tokens=8)
        self._inverses: set | None = None
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()

    def starts(self, question: str) -> list[Start]:
        from glm_dspy.modules.text2cypher import named_nodes

        starts = []
        store = self.graph.store
        for node_id in named_nodes(self.graph, question):
            type_name = store.type_of(node_id)
            feature = self.graph.schema.node_types[type_name].text_feature if type_name else None
            name = self.graph.retriever.label(node_id)
            if feature and name:
                starts.append(Start(type_name, feature, name, node_id))
        return starts

    def readings(self, question: str) -> list[Candidate]:
        """The `k` readings nearest the question among those whose value can answer it: the
        PATHS paths nearest it first (by their words up to the end's type), then every reading
        of those (by their whole words), so a question's hundreds of readings cost a few hundred
        short embeddings, most of them cached."""
        if self._inverses is None:
            self._inverses = inverse_relations(self.graph.store, self.graph.schema)
        kind = asked(question)
        found = [c for start in self.starts(question)
                 for c in candidates_from(self.graph.store, self.graph.schema, start, max_hops=self.max_hops,
                                          inverses=self._inverses)
                 if fits(kind, c.returns, c.returns == COUNT)]
        if not found:
            return []
        asked_vector = self._embed([question])[0]
        paths = list(dict.fromkeys(c.path_words() for c in found))
        near = {paths[i] for i in np.argsort(-(self._embed(paths) @ asked_vector), kind="stable")[:PATHS]}
        found = [c for c in found if c.path_words() in near]
        scores = self._embed([c.words() for c in found]) @ asked_vector
        thing = asked_thing(question)
        scores = scores - HOP_COST * np.array([len(c.hops) for c in found]) \
            + THING_BONUS * np.array([thing is not None and _end_type(c) == thing for c in found])
        return [found[i] for i in np.argsort(-scores, kind="stable")[: self.k]]

    def _embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.graph.retriever.node_index.embedder.encode(missing)):
                self._vectors[text] = vector
            while len(self._vectors) > EMBEDDING_CACHE:
                self._vectors.popitem(last=False)
        return np.stack([self._vectors[t] for t in texts])

    def forward(self, question: str) -> dspy.Prediction:
        log = StepLog()
        readings = self.readings(question) if self.graph.retriever.node_index is not None else []
        if readings:
            numbered = "\n".join([f"{i}. {c.words()}" for i, c in enumerate(readings, 1)] + [f"0. {NONE}"])
            prediction, step = call_agent("choose", self.choose, question=question, readings=numbered)
            log.add(step)
            if prediction is None:
                return log.prediction(None, UNEXPECTED_OUTPUT, cypher="", readings=numbered)
            picked = _number(prediction.choice, len(readings))
            step.output = numbered
            order = [] if picked == 0 else \
                ([readings[picked - 1]] if picked else []) + [c for i, c in enumerate(readings, 1) if i != picked]
            for reading in order:
                result = self.graph.store.read(reading.cypher)
                values = list(dict.fromkeys(str(next(iter(row.values()))) for row in result.rows
                                            if next(iter(row.values())) is not None))
                log.add(Step("graph", code=result.text, output="\n".join(values[:MAX_VALUES]) or None,
                             error=None if values else "no rows"))
                if values:
                    return log.prediction(", ".join(values[:MAX_VALUES]), None, cypher=result.text,
                                          readings=numbered)
        if self.fallback is None:
            return log.prediction(None, RETRIEVAL_ERROR, cypher="", readings="")
        fallen = self.fallback(question=question)
        for step in fallen.steps:
            log.add(Step(**step))
        return log.prediction(fallen.answer or None, fallen.error_category, cypher=getattr(fallen, "cypher", ""),
                              readings="")


def _end_type(candidate: Candidate) -> str:
    return (candidate.hops[-1].type_name if candidate.hops else candidate.start.type_name).lower()


def _number(text: str, count: int) -> int | None:
    """The reading chosen: 1..count, 0 for none of them, None where the reply names neither."""
    found = re.search(r"\d+", str(text))
    value = int(found.group(0)) if found else None
    return value if value is not None and 0 <= value <= count else None
