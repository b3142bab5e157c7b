"""The Text2Cypher module: its set-up, the stages in order (`forward`), the answer and its cache.

The stages' methods are mixins, one file each (the package doc lists them); they share this
module's state, set in `__init__`."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections import OrderedDict
from pathlib import Path

import dspy

from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.copyable_lock import CopyableLock
from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.modules.text2cypher.answer_type import answer_type_problem
from glm_dspy.modules.text2cypher.examples import Examples
from glm_dspy.modules.text2cypher.names import Names
from glm_dspy.modules.text2cypher.paths import Paths
from glm_dspy.modules.text2cypher.rewrites import Rewrites
from glm_dspy.modules.text2cypher.rows import MAX_ROWS, _rows_text, _value_text
from glm_dspy.modules.text2cypher.validation import TYPE_PROBLEM, Validation, _canonical
from glm_dspy.modules.text2cypher.walk import Walks
from glm_dspy.signatures import AnswerFromRows, GenerateCypher
from glm_dspy.runs.steps import CODE_ERROR, RETRIEVAL_ERROR, TIME_LIMIT, UNEXPECTED_OUTPUT, Step, StepLog
from glm_dspy.graphs.deadline import DeadlinePassed, deadline, remaining_s

DEFAULT_K = 3
DEFAULT_MAX_RELATIONS = 8
DEFAULT_MAX_REPAIRS = 3
DEFAULT_QUESTION_TIMEOUT_S = 120.0  # one question's deadline over all its stages
UNKNOWN_TABLE = re.compile(r"Binder exception: Table rel_\w+ does not exist")


# the mixins hold the stages' methods, one file each; all of them share the state `__init__` sets, and
# the predictors (`generate`, `answer_from_rows`) are this class's alone, so saved programs load as before
class Text2Cypher(Examples, Names, Rewrites, Paths, Walks, Validation, dspy.Module):
    def __init__(self, graph, *, examples: Path | str | None = "default", k: int = DEFAULT_K,
                 max_relations: int = DEFAULT_MAX_RELATIONS, max_repairs: int = DEFAULT_MAX_REPAIRS,
                 cache_size: int = 256, max_tokens: int = 256, ground: bool = True,
                 order_weight: float = 0.0, distinct_shapes: bool = False, hold_out_own: bool = False,
                 hold_out_family: bool = False, spelled_paths: bool = True,
                 question_timeout_s: float = DEFAULT_QUESTION_TIMEOUT_S):
        """`examples`: a JSON Lines file of {"question", "cypher"}; "default" the dataset's own
        (graphs/cypher_examples.py), None none. `ground`: hold the query's name literals to the
        names the question mentions (`ground_names`). `order_weight` (e.g. ORDER_WEIGHT),
        `distinct_shapes`: how the `k` examples are chosen (`choose_examples`); off by default:
        one example per shape cost Nobel 0.976 -> 0.570 EM (the 0.5B model mixes the shapes;
        `python -m glm_dspy.bench.examples` measures both rules).
        `hold_out_own`: show no example that names one of the question's own names. The bank is
        the train split, so a training question would see its own query (and its rewordings');
        an optimizer (optimize/compile.py) must see the program as a dev question does.
        `hold_out_family`: a question that is in the bank is shown no example of its own template
        family (the bank's "family"), as a question of a shape the bank does not hold would be
        (graphs/unseen_shapes.py); `glm_dspy.optimize.compile --new-shapes` trains on that.
        `spelled_paths`: rebuild a chain the question's relation words spell otherwise
        (`_spelled_path`), where the bank shows the graph's questions spell their paths.
        `question_timeout_s`: one deadline over all of a question's stages (`forward`)."""
        super().__init__()
        assert k >= 0 and max_relations >= 1 and max_repairs >= 0 and cache_size >= 0
        assert question_timeout_s > 0, question_timeout_s
        self.question_timeout_s = question_timeout_s
        self.graph, self.k, self.max_relations, self.max_repairs = graph, k, max_relations, max_repairs
        self.generate = dspy.Predict(GenerateCypher, max_tokens=max_tokens)
        self.answer_from_rows = dspy.Predict(AnswerFromRows, max_tokens=128)
        self.adapter = GLMAdapter()
        self.cache_size = cache_size
        self.ground = ground
        self.order_weight, self.distinct_shapes = order_weight, distinct_shapes
        self.hold_out_own, self.hold_out_family = hold_out_own, hold_out_family
        self._schema_text = graph.schema.summary()  # part of every answer-cache key
        self._cache: OrderedDict[str, dict] = OrderedDict()
        self._cache_lock = CopyableLock()
        self.cache_hits = self.cache_misses = 0
        self.examples = self._read_examples(examples)
        self.relation_words = RelationWords.learn(self.examples, graph.schema.relations) \
            if spelled_paths and self.examples else None
        self._example_vectors = self._example_forms = self._example_shapes = self._example_names = None
        self._form_vectors = None
        self._relation_vectors = None
        self._relation_name_vectors = None
        self._kinds: dict[str, bool] = {}  # `_kind`'s answers, by name

    def forward(self, question: str) -> dspy.Prediction:
        """The question's answer, all of its stages (generation, validation, execution, walks,
        repairs) inside one deadline of `question_timeout_s`: no graph query starts after it,
        each is cut to the time left, and no generation starts once it has passed."""
        stages: dict[str, float] = {}
        log = StepLog()
        with deadline(time.monotonic() + self.question_timeout_s):
            try:
                return self._forward(question, log, stages)
            except DeadlinePassed as error:
                log.add(Step("graph", error=f"the question's time limit ({self.question_timeout_s:g} s) passed: {error}"))
                return log.prediction(None, TIME_LIMIT, cypher="", stages=stages, cache_hit=False)

    def _forward(self, question: str, log: StepLog, stages: dict[str, float]) -> dspy.Prediction:

        def timed(stage: str, started: float) -> None:
            stages[stage] = stages.get(stage, 0.0) + time.perf_counter() - started

        started = time.perf_counter()
        key = self._cache_key(question)
        with self._cache_lock:
            cached = self._cache.get(key)
            if cached is not None:
                self._cache.move_to_end(key)
                self.cache_hits += 1
            else:
                self.cache_misses += 1
        timed("cache", started)
        if cached is not None:
            return log.prediction(cached["answer"], cached["error_category"], cypher=cached["cypher"],
                                  stages=stages, cache_hit=True)

        started = time.perf_counter()
        schema = self.prune(question)
        timed("pruning", started)
        started = time.perf_counter()
        examples = self.nearest_examples(question)
        timed("examples", started)
        previous, error, category, rows, cypher = "", "", None, None, ""
        with dspy.context(adapter=self.adapter):
            for attempt in range(1 + self.max_repairs):
                if (left := remaining_s()) is not None and left <= 0:
                    raise DeadlinePassed(f"before generation {attempt + 1}")
                started = time.perf_counter()
                prediction, step = call_agent("cypher", self.generate, tables=schema, examples=examples,
                                              question=question, previous_query=previous, error=error)
                step.attempt, step.ok = attempt, False
                log.add(step, settled=False)  # told once its query ran: its `ok` is known then
                timed("generation", started)
                if prediction is None:
                    return self._finish(key, log, None, UNEXPECTED_OUTPUT, cypher, stages)
                started = time.perf_counter()
                fired: list[dict] = []
                step.raw = prediction.cypher
                step.code = cypher = _canonical(self.post_process(prediction.cypher, question, fired))
                step.rewrites = tuple(fired)
                timed("post-processing", started)
                if previous and cypher == previous:  # the repair repeats the query that failed: stop here
                    step.error = "repeated the failing query; not run again"
                    return self._finish(key, log, None, category, cypher, stages)
                started = time.perf_counter()
                problem = self.validate(cypher, question)
                if problem is not None and (bound := self._bind_unbound(cypher, problem)) is not None \
                        and (bound_problem := self.validate(bound, question)) is None:
                    step.rewrites += ({"name": "bind unbound", "before": cypher, "after": _canonical(bound)},)
                    step.code = cypher = _canonical(bound)
                    problem = bound_problem
                log.add(Step("graph", code=f"EXPLAIN {cypher}", error=problem,
                             latency_s=time.perf_counter() - started))
                timed("validation", started)
                if problem is None:
                    started = time.perf_counter()
                    result, problem = self.run(cypher)
                    rows = result.rows if result is not None else None
                    shown = _rows_text(rows) if rows is not None else None
                    if result is not None and result.truncated:
                        shown += f"\n(stopped reading: {result.truncated})"
                    log.add(Step("graph", code=cypher, output=shown, error=problem,
                                 latency_s=time.perf_counter() - started))
                    timed("execution", started)
                    if problem is None and not rows:
                        walked, problem = self.walk(cypher)
                        if walked is not None and (rows := self._run_walked(walked, question, log)):
                            step.error, cypher = problem, walked
                            break
                    if problem is None:
                        problem = answer_type_problem(question, rows)
                    if problem is None:
                        step.ok = True
                        break
                    category = RETRIEVAL_ERROR
                else:
                    # `rel_darling`, near no relation, so post-processing kept it: walked; else the words' chain
                    walked = self.walk(cypher)[0] if UNKNOWN_TABLE.search(problem) or problem.startswith(TYPE_PROBLEM) \
                        else None
                    if (walked := walked or self._from_words(question)) is not None \
                            and (rows := self._run_walked(walked, question, log)):
                        step.error, cypher = problem, walked
                        break
                    category = CODE_ERROR
                step.error = problem
                log.settle(step)
                previous, error = cypher, problem
            else:
                return self._finish(key, log, None, category, cypher, stages)
            log.settle(step)
            # the query that ran is what the call says it wrote: an optimizer's bootstrapped demo
            # (DSPy's trace holds this prediction) shows it, not the model's text before the fixes
            prediction.cypher = cypher
            started = time.perf_counter()
            answer = self._answer(question, cypher, rows, log)
            timed("answer", started)
        return self._finish(key, log, answer, None if answer else UNEXPECTED_OUTPUT, cypher, stages)

    def _cache_key(self, question: str) -> str:
        """What an answer depends on: the question, the schema, the LM and the predictors' state
        (an optimizer's copies of this module, with other demos or instructions, share no answers)."""
        lm = dspy.settings.lm
        state = json.dumps([self.generate.dump_state(), self.answer_from_rows.dump_state()], sort_keys=True, default=str)
        text = f"{question}\n{self._schema_text}\n{getattr(lm, 'model', lm)!s}\n{state}"
        return hashlib.sha256(text.encode()).hexdigest()

    def _answer(self, question: str, cypher: str, rows: list[dict], log: StepLog) -> str | None:
        if len(rows[0]) == 1:
            values = [_value_text(next(iter(row.values()))) for row in rows[:MAX_ROWS]]
            return ", ".join(dict.fromkeys(v for v in values if v))
        prediction, step = call_agent("answer", self.answer_from_rows, question=question, cypher=cypher,
                                      rows=_rows_text(rows))
        log.add(step)
        return prediction.answer.strip() if prediction is not None else None

    def _finish(self, key: str, log: StepLog, answer, category, cypher: str, stages: dict) -> dspy.Prediction:
        if self.cache_size and answer:  # only answers are cached: a failure may go better next time
            with self._cache_lock:
                self._cache[key] = {"answer": answer, "error_category": category, "cypher": cypher}
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
        return log.prediction(answer, category, cypher=cypher, stages=stages, cache_hit=False)
