"""The A-agent: write the snippet that retrieves the missing information (GLM §4.1, §4.3).

The graph's function docs and schema summary are appended to the signature's instructions
at call time, so they sit in the system message — the stable prefix — rather than being
repeated in every demo and every request. Optimizers still see and rewrite only the
signature's own instructions.

With a `grammar` (glm_dspy/grammar/snippet.py `act_grammar`, built once per graph) every
call, repairs included, is decoded under it: the snippet can name only the graph's own
features and neighbour types, the graph functions and the executor's builtins.
"""

import dspy

from glm_dspy.fewshot import ACT_DEMOS
from glm_dspy.lm.structured import with_grammar
from glm_dspy.signatures import Act


class ActAgent(dspy.Module):
    def __init__(self, graph_context: str = "", max_tokens: int = 256, grammar: str | None = None,
                 demos: list[dspy.Example] | None = None):
        super().__init__()
        self.grammar = grammar
        self.predict = dspy.Predict(Act, max_tokens=max_tokens)
        self.predict.demos = list(ACT_DEMOS if demos is None else demos)  # glm_dspy/graph_demos.py fits them to a graph
        self.graph_context = graph_context
        self._signature_cache: tuple[str, type[dspy.Signature]] | None = None

    def signature(self) -> type[dspy.Signature]:
        """The Act signature with this graph's context appended to the (possibly optimized) instructions."""
        instructions = self.predict.signature.instructions
        if self._signature_cache is None or self._signature_cache[0] != instructions:
            full = f"{instructions}\n\n{self.graph_context}" if self.graph_context else instructions
            self._signature_cache = (instructions, self.predict.signature.with_instructions(full))
        return self._signature_cache[1]

    def forward(self, request: str, previous_code: str = "", error: str = "",
                config: dict | None = None) -> dspy.Prediction:
        return self.predict(request=request, previous_code=previous_code, error=error,
                            signature=self.signature(), config=with_grammar(config, self.grammar))
