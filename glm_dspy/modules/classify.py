"""The C-agent: is a question deterministic (one snippet answers it) or not (GLM §4.1)?"""

import dspy

from glm_dspy.prompts.fewshot import CLASSIFY_DEMOS
from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.lm.structured import with_grammar
from glm_dspy.signatures import Classify


class ClassifyAgent(dspy.Module):
    def __init__(self, max_tokens: int = 24, constrained: bool = False):
        super().__init__()
        # with `constrained`, the reply is decoded under its output fields' grammar (glm_dspy/grammar/reply.py)
        self.grammar = reply_grammar(Classify) if constrained else None
        self.predict = dspy.Predict(Classify, max_tokens=max_tokens)
        self.predict.demos = list(CLASSIFY_DEMOS)

    def forward(self, question: str, config: dict | None = None) -> dspy.Prediction:
        return self.predict(question=question, config=with_grammar(config, self.grammar))
