"""GLM: the multi-agent Graph-CoT program (GLM paper, Algorithm 1).

    kind = Classify(question)
    deterministic:      Act(question) -> run -> the printed output is the answer
    non-deterministic:  notebook = []; repeat up to max_steps:
                            Reason(notebook, question) -> finished? answer : missing information
                            Act(missing information) -> run -> notebook += output

A snippet that fails (an error, nothing printed, or only graph-function observations such
as "no node with id ...") goes back to Act with its code and error, at most `max_repairs`
times (paper §6.1). Reason asking again for something that could not be found ends the
loop (no progress) instead of spending the remaining steps. A deterministic question whose snippet
still fails falls back to the notebook loop. Unparseable agent output is retried once
(`call_agent`), then the query ends as "unexpected agent output".
"""

from __future__ import annotations

import uuid

import dspy

from glm_dspy.adapter import GLMAdapter
from glm_dspy.function_docs import graph_context
from glm_dspy.modules.act import ActAgent
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.classify import ClassifyAgent
from glm_dspy.modules.reason import ReasonAgent
from glm_dspy.notebook import Notebook
from glm_dspy.lm.query import query_context
from glm_dspy.retriever import is_observation
from glm_dspy.steps import CODE_ERROR, RETRIEVAL_ERROR, STEP_LIMIT, UNEXPECTED_OUTPUT, StepLog

DEFAULT_MAX_STEPS = 10
DEFAULT_MAX_REPAIRS = 2


class GLM(dspy.Module):
    def __init__(self, graph=None, *, max_steps: int = DEFAULT_MAX_STEPS, max_repairs: int = DEFAULT_MAX_REPAIRS,
                 executor=None):
        super().__init__()
        assert max_steps >= 1 and max_repairs >= 0
        self.classify = ClassifyAgent()
        self.reason = ReasonAgent()
        self.act = ActAgent(graph_context(graph.schema) if graph is not None else "")
        self.max_steps = max_steps
        self.max_repairs = max_repairs
        self.graph = graph
        self.executor = executor
        # ChatAdapter without the JSON fallback (the prompt layout must not change on a parse
        # error) and with lenient bool fields (glm_dspy/adapter.py)
        self.adapter = GLMAdapter()

    def _executor(self):
        if self.executor is None:
            if self.graph is None:
                raise ValueError("GLM needs a graph (glm_dspy.open_graph(DIR)) or an executor to run snippets")
            self.executor = self.graph.executor(num_workers=2)
        return self.executor

    def forward(self, question: str) -> dspy.Prediction:
        log = StepLog()
        notebook = Notebook()
        query_id = uuid.uuid4().hex
        with dspy.context(adapter=self.adapter), query_context(query_id):
            kind = self._classify(question, log)
            answer, category = None, None
            if kind == "deterministic":
                output, category = self._act(question, log)
                if category is None:
                    answer = output
            if answer is None and category != UNEXPECTED_OUTPUT:
                answer, category = self._iterate(question, notebook, log)
        return dspy.Prediction(answer=answer or "", kind=kind, notebook=notebook.text, query_id=query_id,
                               steps=[s.as_dict() for s in log.steps], error_category=category,
                               num_calls=log.num_calls, prompt_tokens=log.prompt_tokens,
                               cached_tokens=log.cached_tokens, completion_tokens=log.completion_tokens)

    def _classify(self, question: str, log: StepLog) -> str:
        prediction, step = call_agent("classify", self.classify, question=question)
        log.add(step)
        # an unreadable classification costs nothing worse than the general path
        return prediction.kind if prediction is not None else "non_deterministic"

    def _iterate(self, question: str, notebook: Notebook, log: StepLog) -> tuple[str | None, str | None]:
        """The notebook loop; returns (answer, error category)."""
        last_problem, failed_requests = None, set()
        for _ in range(self.max_steps):
            prediction, step = call_agent("reason", self.reason, notebook=notebook.text, question=question)
            log.add(step)
            if prediction is None:
                return None, UNEXPECTED_OUTPUT
            if prediction.finished and prediction.answer.strip():
                return prediction.answer.strip(), None
            request = prediction.missing_information.strip() or question
            if request in failed_requests:  # asking again for what could not be found: no progress
                return None, last_problem
            output, problem = self._act(request, log)
            if problem == UNEXPECTED_OUTPUT:
                return None, UNEXPECTED_OUTPUT
            if problem is not None:
                last_problem = problem
                failed_requests.add(request)
            notebook.append(output if problem is None else f"(nothing found for: {request})")
        return None, last_problem if last_problem == RETRIEVAL_ERROR else STEP_LIMIT

    def _act(self, request: str, log: StepLog) -> tuple[str | None, str | None]:
        """Write and run a snippet for `request`, repairing it on failure; (output, error category)."""
        previous_code, error = "", ""
        category = None
        for _ in range(1 + self.max_repairs):
            prediction, step = call_agent("act", self.act, request=request, previous_code=previous_code, error=error)
            log.add(step)
            if prediction is None:
                return None, UNEXPECTED_OUTPUT
            result = self._executor().run(prediction.code)
            output = result.output.strip()
            step.code, step.output, step.error = prediction.code, output, result.error
            if result.is_ok and output and not is_observation(output):
                return output, None
            previous_code = prediction.code
            if not result.is_ok:
                error, category = result.error, CODE_ERROR
            elif not output:
                error, category = "the snippet printed nothing; print the result", CODE_ERROR
            else:
                error, category = f"the graph functions answered: {output[:300]}", RETRIEVAL_ERROR
        return None, category
