"""Graph Counselor (the paper "Graph Counselor: Adaptive Graph Exploration via Multi-Agent Synergy
to Enhance LLM Reasoning") as a module around GLM: the `counselor` arm of `glm-dspy eval`.

    round 1 .. 1 + max_reflections:
        plan       = Plan(the graph's schema, question, the last reflection)   its Planning Agent
        attempt    = GLM(question, guidance="Follow this plan: ...")           Algorithm 1 follows it
        Judge(question, the attempt's notebook, its answer) -> right: stop     its judgment
        reflection = Reflect(question, notebook, answer) -> the next plan      its multi-perspective
                                                                               Self-Reflection
The last round is not judged, no answer is never right, and an unreadable verdict stops. One
deadline, the GLM's `question_timeout_s`, bounds all rounds; every call is of one query (the
cache hints, a journaled batch). The prediction is the last attempt's, with every round's steps,
`rounds` and `reflections`.

Graph Counselor has no readings: wrap a GLM with `readings=False`, as the arm does, or a reading
that answers makes the plan go unread and every round read the same answer.
"""

from __future__ import annotations

import time
import uuid

import dspy

from glm_dspy.prompts.function_docs import schema_summary
from glm_dspy.runs.journal import current_run
from glm_dspy.lm.query import query_context
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.glm import GLM, field_text
from glm_dspy.signatures import Judge, Plan, Reflect
from glm_dspy.runs.steps import UNEXPECTED_OUTPUT, StepLog, listening
from glm_dspy.graphs.deadline import deadline, remaining_s

DEFAULT_MAX_REFLECTIONS = 2  # the counselor arm's, as measured (docs/benchmarks.md)
REFLECTION_PARTS = (("Recap", "recap"), ("Analysis", "analysis"), ("Refinement", "refinement"),
                    ("Backward check", "backward_check"))


class GraphCounselor(dspy.Module):
    def __init__(self, glm: GLM, *, max_reflections: int = DEFAULT_MAX_REFLECTIONS):
        """`glm`: the program each round runs (its compiled program, Act and limits are its own).
        `max_reflections`: rounds judged wrong that get another round, with a reflection."""
        super().__init__()
        assert max_reflections >= 0, max_reflections
        self.glm, self.max_reflections = glm, max_reflections
        self.plan = dspy.Predict(Plan, max_tokens=160)
        self.judge = dspy.Predict(Judge, max_tokens=16)
        self.reflection = dspy.Predict(Reflect, max_tokens=320)

    @property
    def program_path(self):
        """The compiled program the wrapped GLM loaded, if any (eval records name it)."""
        return self.glm.program_path

    def forward(self, question: str) -> dspy.Prediction:
        log, reflections = StepLog(), []
        run = current_run()
        query_id = run.query_id if run is not None else uuid.uuid4().hex
        with dspy.context(adapter=self.glm.adapter), query_context(query_id), \
                deadline(time.monotonic() + self.glm.question_timeout_s):
            for round_ in range(1 + self.max_reflections):
                plan = self._plan(question, reflections[-1] if reflections else "", log)
                with listening(log.add):  # the attempt's steps join this log as they complete
                    attempt = self.glm(question=question, guidance=f"Follow this plan:\n{plan}" if plan else "")
                if round_ == self.max_reflections or attempt.error_category == UNEXPECTED_OUTPUT \
                        or _time_is_up() or self._judged_right(question, attempt, log):
                    break
                reflection = self._reflect(question, attempt, log)
                if reflection is None:
                    break
                reflections.append(reflection)
        return log.prediction(attempt.answer, attempt.error_category, kind=attempt.kind, notebook=attempt.notebook,
                              query_id=query_id, rounds=len(reflections) + 1, reflections=reflections)

    def _plan(self, question: str, reflection: str, log: StepLog) -> str:
        graph = self.glm.graph
        prediction, step = call_agent("plan", self.plan, graph=schema_summary(graph, question) if graph else "",
                                      question=question, reflection=reflection)
        log.add(step)
        return field_text(prediction.plan) if prediction is not None else ""

    def _judged_right(self, question: str, attempt: dspy.Prediction, log: StepLog) -> bool:
        if not attempt.answer:
            return False
        prediction, step = call_agent("judge", self.judge, question=question,
                                      retrieved=attempt.notebook or "(nothing)", answer=attempt.answer)
        log.add(step)
        return bool(prediction.correct) if prediction is not None else True  # an unreadable verdict stops

    def _reflect(self, question: str, attempt: dspy.Prediction, log: StepLog) -> str | None:
        prediction, step = call_agent("reflect", self.reflection, question=question,
                                      attempt=attempt.notebook or "(nothing)", answer=attempt.answer)
        log.add(step)
        if prediction is None:
            return None
        return "\n".join(f"{label}: {field_text(getattr(prediction, field))}" for label, field in REFLECTION_PARTS
                         if field_text(getattr(prediction, field)))


def _time_is_up() -> bool:
    return (left := remaining_s()) is not None and left <= 0
