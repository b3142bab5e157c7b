"""The A-agent: write the snippet that retrieves the missing information (GLM §4.1, §4.3).

The graph's function docs and schema summary are appended to the signature's instructions
at call time, so they sit in the system message — the stable prefix — rather than being
repeated in every demo and every request. Optimizers still see and rewrite only the
signature's own instructions. On a schema too large for every prompt (PQL: 726 relations)
the summary lists only the request's nearest relations: the function docs before it stay
the shared prefix.
"""

from collections import OrderedDict
from collections.abc import Callable

import dspy

from glm_dspy.prompts.fewshot import ACT_DEMOS
from glm_dspy.signatures import Act

SIGNATURES_KEPT = 64  # Act signatures with a request's own context, the most recent


class ActAgent(dspy.Module):
    def __init__(self, graph_context: str | Callable[[str], str] = "", max_tokens: int = 256):
        """`graph_context`: the text appended to the instructions, or a function of the request
        that writes it (a large schema pruned to each request's relations, GLM.act_relations)."""
        super().__init__()
        self.predict = dspy.Predict(Act, max_tokens=max_tokens)
        self.predict.demos = list(ACT_DEMOS)
        self.graph_context = graph_context
        self._signatures: OrderedDict[tuple[str, str], type[dspy.Signature]] = OrderedDict()

    def context(self, request: str) -> str:
        return self.graph_context(request) if callable(self.graph_context) else self.graph_context

    def signature(self, request: str = "") -> type[dspy.Signature]:
        """The Act signature with the graph's context appended to the (possibly optimized) instructions."""
        key = (self.predict.signature.instructions, self.context(request))
        if (signature := self._signatures.get(key)) is None:
            instructions, context = key
            full = f"{instructions}\n\n{context}" if context else instructions
            signature = self._signatures[key] = self.predict.signature.with_instructions(full)
            while len(self._signatures) > SIGNATURES_KEPT:
                self._signatures.popitem(last=False)
        return signature

    def forward(self, request: str, previous_code: str = "", error: str = "",
                config: dict | None = None) -> dspy.Prediction:
        return self.predict(request=request, previous_code=previous_code, error=error,
                            signature=self.signature(request), config=dict(config or {}))
