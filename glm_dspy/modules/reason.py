"""The R-agent: answer from the notebook, or say what is missing (GLM §4.1)."""

import dspy

from glm_dspy.prompts.fewshot import REASON_DEMOS
from glm_dspy.signatures import Reason


class ReasonAgent(dspy.Module):
    def __init__(self, max_tokens: int = 160):
        super().__init__()
        self.predict = dspy.Predict(Reason, max_tokens=max_tokens)
        self.predict.demos = list(REASON_DEMOS)

    def forward(self, notebook: str, question: str, config: dict | None = None) -> dspy.Prediction:
        return self.predict(notebook=notebook, question=question, config=dict(config or {}))
