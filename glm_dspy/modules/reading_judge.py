"""One yes/no judgement a reading: the model's probability that each of the first readings shown
answers what the question asks, read from the sampled token's logprobs.

Why: where the best reading is not sure, a chooser among the readings shown either picks one by
number in one call (ChooseReading; the shipped 0.5B's pick is near uniform over the numbers,
docs/benchmarks.md) or judges each reading on its own (this module: JUDGED calls, the question
and instructions a shared prefix the engine caches, only the reading differs). The class of
questions served: those the readings hold but do not rank right with confidence. The reading
with the highest P(yes) is the judge's pick; its P(yes) is what its threshold is fitted on
(glm_dspy/readings/pick_confidence.py, chooser "judge").
"""

from __future__ import annotations

import dspy

from glm_dspy.grammar.ebnf import choice
from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.lm.structured import with_grammar
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.confident_choice import ConfidentChoice
from glm_dspy.runs.steps import StepLog
from glm_dspy.signatures import JudgeReading

JUDGED = 4  # readings judged, best first: the first four held the gold 38 times of 47 where fitted
SHOWN_VALUES = 5  # a reading's values in its words
YES, NO = "yes", "no"


GRAMMAR = reply_grammar(JudgeReading, field_rules={"fits": "fits"}, rules=[f"fits ::= {choice([YES, NO])}"])


class ReadingJudge(dspy.Module):
    def __init__(self):
        super().__init__()
        self.judge = ConfidentChoice(JudgeReading, "fits", max_tokens=16)

    def forward(self, question: str, shown: list, log: StepLog) -> list[float | None]:
        """P(yes) of each of the first JUDGED of `shown` ((reading, values, query) each, best
        first), one call each; None where a call failed or the LM gives no logprobs."""
        yes = []
        for reading, values, _ in shown[:JUDGED]:
            said = f"{reading.words()} = {', '.join(values[:SHOWN_VALUES])}" + (" ..." if len(values) > SHOWN_VALUES else "")
            prediction, step = call_agent("judge", self.judge, question=question, reading=said, options=[YES, NO],
                                          config=with_grammar(None, GRAMMAR))
            probability = None if prediction is None else prediction.get("probability")
            if probability is not None:
                probability = probability if str(prediction.fits).strip() == YES else 1.0 - probability
            step.output = f"{said}\n-> {prediction and prediction.fits}" + (
                "" if probability is None else f" (P(yes) {probability:.2f})")
            log.add(step)
            yes.append(probability)
        return yes


def best_judged(yes: list[float | None]) -> int | None:
    """The index of the reading with the highest P(yes), the first of a tie; None where none has one."""
    scored = [(p, -i) for i, p in enumerate(yes) if p is not None]
    return -max(scored)[1] if scored else None


__all__ = ["ReadingJudge", "best_judged", "JUDGED"]
