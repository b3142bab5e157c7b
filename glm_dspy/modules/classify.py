"""The C-agent: is a question deterministic (one snippet answers it) or not (GLM §4.1)?"""

import dspy

from glm_dspy.prompts.fewshot import CLASSIFY_DEMOS
from glm_dspy.signatures import Classify


class ClassifyAgent(dspy.Module):
    def __init__(self, max_tokens: int = 24):
        super().__init__()
        self.predict = dspy.Predict(Classify, max_tokens=max_tokens)
        self.predict.demos = list(CLASSIFY_DEMOS)

    def forward(self, question: str, config: dict | None = None) -> dspy.Prediction:
        return self.predict(question=question, config=dict(config or {}))
