"""The retrieval baselines of the GLM paper's comparisons (§6): Base LLM, Text RAG, Graph RAG.

Each is one LLM call under the same adapter, LM client and retriever as GLM, and returns the
`dspy.Prediction` every arm returns (`StepLog.prediction`: answer, steps, error_category,
num_calls, token counts) plus the `context` it sent, so `glm-dspy eval` treats every arm alike.

    Base LLM    the question alone
    Text RAG    the top-k nodes by embedding similarity to the question, each as its
                feature line (`[Node:<id> {...}]`, no neighbours), before the question
    Graph RAG   the best-matching node and its ego graph linearized as vertex chunks:
                1 hop = the node's chunk with `num_neighbours` neighbours; 2 hops = also the
                chunks of those neighbours
"""

from __future__ import annotations

import dspy

from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.modules.calls import call_agent
from glm_dspy.signatures import Answer, AnswerFromContext
from glm_dspy.runs.steps import RETRIEVAL_ERROR, UNEXPECTED_OUTPUT, StepLog
from glm_dspy.graphs.node_info import node_records, render_vertex_chunk


class _OneCall(dspy.Module):
    def __init__(self, signature, max_tokens: int):
        super().__init__()
        self.predict = dspy.Predict(signature, max_tokens=max_tokens)
        self.adapter = GLMAdapter()

    def _answer(self, **inputs) -> dspy.Prediction:
        log = StepLog()
        with dspy.context(adapter=self.adapter):
            prediction, step = call_agent("answer", self.predict, **inputs)
        log.add(step)
        if prediction is None:
            return log.prediction(None, UNEXPECTED_OUTPUT, context=inputs.get("context", ""))
        return log.prediction(prediction.answer.strip(), None, context=inputs.get("context", ""))


class BaseLLM(_OneCall):
    def __init__(self, max_tokens: int = 128):
        super().__init__(Answer, max_tokens)

    def forward(self, question: str) -> dspy.Prediction:
        return self._answer(question=question)


class TextRAG(_OneCall):
    def __init__(self, graph, *, k: int = 5, max_tokens: int = 128):
        super().__init__(AnswerFromContext, max_tokens)
        self.graph, self.k = graph, k

    def forward(self, question: str) -> dspy.Prediction:
        retriever = self.graph.retriever
        if retriever.node_index is None:
            raise ValueError("TextRAG needs a graph with a RetrieveNode index (glm-dspy build)")
        ids = [node_id for node_id, _ in retriever.node_index.search(question, self.k)]
        context = _chunks(self.graph, ids, num_neighbours=0)
        if not context:
            return StepLog().prediction(None, RETRIEVAL_ERROR, context="")
        return self._answer(context=context, question=question)


class GraphRAG(_OneCall):
    def __init__(self, graph, *, hops: int = 1, num_neighbours: int = 10, max_tokens: int = 128):
        super().__init__(AnswerFromContext, max_tokens)
        assert hops in (1, 2), hops
        self.graph, self.hops, self.num_neighbours = graph, hops, num_neighbours

    def forward(self, question: str) -> dspy.Prediction:
        retriever = self.graph.retriever
        if retriever.node_index is None:
            raise ValueError("GraphRAG needs a graph with a RetrieveNode index (glm-dspy build)")
        hits = retriever.node_index.search(question, 1)
        ids = [hits[0][0]] if hits else []
        if ids and self.hops == 2:
            store = self.graph.store
            (record,) = node_records(store, [(store.type_of(ids[0]), ids[0])], k=self.num_neighbours)
            ids += [neighbour.id for _, neighbour in record.neighbours]
        context = _chunks(self.graph, ids, num_neighbours=self.num_neighbours)
        if not context:
            return StepLog().prediction(None, RETRIEVAL_ERROR, context="")
        return self._answer(context=context, question=question)


def _chunks(graph, ids: list[str], *, num_neighbours: int) -> str:
    """The vertex chunks of `ids` with `num_neighbours` neighbours each; with 0, only each
    chunk's node line."""
    store = graph.store
    typed = [(store.type_of(node_id), node_id) for node_id in ids]
    typed = [(t, i) for t, i in typed if t is not None]
    if not typed:
        return ""
    text_features = {t: n.text_feature for t, n in store.schema.node_types.items()}
    records = node_records(store, typed, k=num_neighbours)
    chunks = [render_vertex_chunk(r, text_features) for r in records if r is not None]
    return "\n".join(chunk if num_neighbours else chunk.splitlines()[0] for chunk in chunks)
