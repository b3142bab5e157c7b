"""FastToG (the "Fast Think-on-Graph" paper), the `fasttog` arm of `glm-dspy eval`: reasoning community by community.

    start     the node that best matches the question (the RetrieveNode index, as Graph RAG), a
              one-node start community
    a level   the communities next to the frontier (glm_dspy/retrieval/communities.py: Louvain on the
              neighbourhood, coarse pruning to the top `top_k` by modularity), fine-pruned by the
              LLM to `width` of them (PickCommunities, a "community" step; no call when there are
              no more than `width`); their triples join the facts, and AnswerFromCommunities says
              whether the facts are enough (an "answer" step). If not, the next level starts from
              the chosen communities' nodes, never revisiting a node.
    stop      at an answer judged enough, or after `depth` levels (the last level's answer stands)
The prediction says `depth` (levels explored) and `communities` (how many were read): the
FastToG paper's claim is shorter chains and fewer calls than node-by-node exploration (Graph-CoT).
"""

from __future__ import annotations

import re

import dspy

from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.retrieval.communities import Communities
from glm_dspy.modules.calls import call_agent
from glm_dspy.signatures import AnswerFromCommunities, PickCommunities
from glm_dspy.runs.steps import RETRIEVAL_ERROR, STEP_LIMIT, UNEXPECTED_OUTPUT, Step, StepLog

DEFAULT_WIDTH = 2
DEFAULT_DEPTH = 2
FRONTIER_PER_COMMUNITY = 3  # nodes of a chosen community the next level expands from


class FastToG(dspy.Module):
    def __init__(self, graph, *, width: int = DEFAULT_WIDTH, depth: int = DEFAULT_DEPTH, top_k: int = 4,
                 hops: int = 2, max_tokens: int = 128):
        super().__init__()
        assert width >= 1 and depth >= 1
        self.graph, self.width, self.depth = graph, width, depth
        self.communities = Communities(graph, hops=hops, top_k=top_k)
        self.pick = dspy.Predict(PickCommunities, max_tokens=32)
        self.answer = dspy.Predict(AnswerFromCommunities, max_tokens=max_tokens)
        self.adapter = GLMAdapter()

    def forward(self, question: str) -> dspy.Prediction:
        log = StepLog()
        retriever = self.graph.retriever
        if retriever.node_index is None:
            raise ValueError("FastToG needs a graph with a RetrieveNode index (glm-dspy build)")
        start = retriever.node_index.search(question, 1)
        if not start:
            return log.prediction(None, RETRIEVAL_ERROR, depth=0, communities=0)
        start_id = start[0][0]
        facts = [f"(the question is about {retriever.label(start_id) or start_id})"]
        visited, frontier = {start_id}, [start_id]
        answer, category, num_read, level = None, STEP_LIMIT, 0, 0
        with dspy.context(adapter=self.adapter):
            for level in range(1, self.depth + 1):
                candidates = [c for node in frontier for c in self.communities.around(node, frozenset(visited - {node}))]
                candidates = list({c.nodes: c for c in candidates}.values())  # the same community from two nodes
                log.add(Step("graph", code=f"communities around {', '.join(frontier)}",
                             output="\n\n".join(c.text(5) for c in candidates)))
                if not candidates:
                    category = category if answer else RETRIEVAL_ERROR
                    break
                chosen = self._fine_prune(question, candidates, log)
                if chosen is None:
                    return log.prediction(answer, UNEXPECTED_OUTPUT, depth=level, communities=num_read)
                num_read += len(chosen)
                facts += [c.text() for c in chosen]
                prediction, step = call_agent("answer", self.answer, facts="\n".join(facts), question=question)
                log.add(step)
                if prediction is None:
                    return log.prediction(answer, UNEXPECTED_OUTPUT, depth=level, communities=num_read)
                answer = prediction.answer.strip() or answer
                if prediction.enough and answer:
                    category = None
                    break
                visited |= {n for c in chosen for n in c.nodes}
                frontier = [n for c in chosen for n in sorted(c.nodes)[:FRONTIER_PER_COMMUNITY]]
            else:
                category = None if answer else STEP_LIMIT  # the deepest level's best answer stands
        return log.prediction(answer, category if not answer else None, depth=level, communities=num_read)

    def _fine_prune(self, question: str, candidates, log: StepLog):
        """The `width` communities the LLM ranks first (coarse order where it names fewer); None if unreadable."""
        if len(candidates) <= self.width:
            return candidates
        numbered = "\n\n".join(f"Community {i}:\n{c.text(8)}" for i, c in enumerate(candidates, 1))
        prediction, step = call_agent("community", self.pick, question=question, communities=numbered)
        log.add(step)
        if prediction is None:
            return None
        picked = []
        for number in re.findall(r"\d+", prediction.choice or ""):
            index = int(number) - 1
            if 0 <= index < len(candidates) and candidates[index] not in picked:
                picked.append(candidates[index])
        for candidate in candidates:  # fill up in modularity order
            if len(picked) >= self.width:
                break
            if candidate not in picked:
                picked.append(candidate)
        return picked[: self.width]
