"""A constrained choice, and how sure the model was of it: the probability of the option it chose
among the options its grammar allows, read from the sampled token's logprobs (the same one call).

    choose = ConfidentChoice(ChooseReading, "choice", max_tokens=24)
    prediction = choose(question=..., readings=..., options=["0", "1", "2"], config=with_grammar(...))
    prediction.choice, prediction.probability       # "2", 0.71 (None where the LM gives no logprobs)

The probability is P(chosen) / sum of P(o) over the options seen among the token's alternatives
(the in-process engine scores after the grammar's mask, a vLLM server before it: glm_dspy/lm/
transport.py `Chunk`). Logprobs are asked of GLM's own engine and of LMs known to be vLLM
servers (glm_dspy/lm/backend.py); another LM is asked as before, and its choice has no
probability. An option of several tokens ("10") has none either: the choice's token is the first
of the reply that is the whole option.
"""

from __future__ import annotations

import math

import dspy

from glm_dspy.lm.backend import GENERIC, backend_of
from glm_dspy.lm.transport import MAX_LOGPROBS


class ConfidentChoice(dspy.Module):
    def __init__(self, signature, field: str, *, max_tokens: int):
        super().__init__()
        assert field in signature.output_fields, (field, list(signature.output_fields))
        self.predict = dspy.Predict(signature, max_tokens=max_tokens)
        self.field = field

    def forward(self, *, options: list[str], config: dict | None = None, **inputs) -> dspy.Prediction:
        """The predictor's reply to `inputs`, its `field` one of `options` (the grammar in `config`
        makes it so), with `probability` (module doc). Plain values only: a journal records it."""
        config = dict(config or {})
        scored = _scores_logprobs(dspy.settings.lm)
        if scored:
            config.update(logprobs=True, top_logprobs=MAX_LOGPROBS)
        prediction = self.predict(**inputs, config=config)
        chosen = getattr(prediction, self.field)
        probability = choice_probability(_tokens(prediction), str(chosen).strip(), options) if scored else None
        return dspy.Prediction(**{self.field: chosen, "probability": probability})


def choice_probability(tokens: list, chosen: str, options: list[str]) -> float | None:
    """P(chosen) among `options` at the first token of the reply that is `chosen` whole (`tokens`:
    DSPy's logprobs content, each with .token, .logprob, .top_logprobs); None where none is."""
    for token in tokens:
        if str(token.token).strip() != chosen:
            continue
        alternatives = {str(top.token).strip(): top.logprob for top in (token.top_logprobs or ())
                        if str(top.token).strip() in options}
        alternatives[chosen] = token.logprob
        best = max(alternatives.values())
        total = sum(math.exp(lp - best) for lp in alternatives.values())
        return math.exp(token.logprob - best) / total
    return None


def _scores_logprobs(lm) -> bool:
    """Whether `lm` is asked for logprobs: GLM's engine, or a generic LM known to be a vLLM server."""
    backend = backend_of(lm)
    return backend.kind != GENERIC or backend.grammar_route is not None


def _tokens(prediction) -> list:
    logprobs = getattr(prediction, "logprobs", None)
    return list(getattr(logprobs, "content", None) or [])


__all__ = ["ConfidentChoice", "choice_probability"]
