"""`glm-dspy serve`: GLM as an HTTP JSON service (FastAPI on uvicorn), every query journaled.

    glm-dspy serve --db data/nobel [--server URL] [--port 8000] [--journal runs/service.sqlite]

Endpoints (`create_app`):
  POST /v1/ask {"question": "..."}     -> the answer: query_id, answer, kind, error_category, steps,
                                          num_calls, prompt/cached/completion tokens, resumed; with
                                          the graph, its evidence: the subgraph it was read from
                                          (glm_dspy/evidence) and evidence_svg, its drawing
  POST /v1/ask/stream {"question"}     -> server-sent events: "query" (its id) at once, a "step" per
  GET  /v1/ask/stream?question=...        completed step, then "answer" (the /v1/ask body); the GET form
                                          is for the browser's EventSource
  GET  /v1/queries/{query_id}          -> the journal's state: status (pending, running, done, failed),
                                          runs, journaled calls, the answer once done, the error if failed
  GET  /health                         -> 200 {"status": "ok"}; 503 when the engine is lost
  GET  /metrics                        -> Prometheus text: questions in flight and answered, latency,
                                          tokens, the prefix cache hit rate
  GET  /                               -> a page to ask a question and watch its steps arrive

Every question is a journaled query (glm_dspy/runs/journal.py) run by `answer_query` (glm_dspy/runs/batch.py)
on a pool of `concurrency` worker threads over one program, one engine and one graph: vLLM
batches the concurrent requests' calls; a lost or hung engine is restarted and the query
resumed. When the service starts on a journal that has unfinished queries (it was killed), it
finishes them in the background; their state is at /v1/queries/{id}.

What the service guarantees:
* every error is JSON {"error": "..."}: an empty or too long question (422), malformed JSON
  (422), a body over MAX_BODY_BYTES (413, refused before it is read whole), a full work queue
  (503 with Retry-After), an unknown query id or path (404), a question the program failed on
  (500, with its query_id; journaled `failed` with the error, which /v1/queries/{id} shows);
* a question runs at most `max_runs` times (MAX_RUNS): one that was still running when the
  process stopped that many times is not resumed again but journaled `failed` as a poison
  question, and the start's log names it; so a question that kills the process cannot kill
  every start after it;
* at most `concurrency` questions run and `max_queued` wait (glm_dspy/serving/limits.py); the
  event loop never waits on the journal (SQLite runs in threads).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

import dspy
from pydantic import BaseModel, Field, field_validator

from glm_dspy.runs.batch import DEFAULT_MAX_RECOVERIES, Recovery, answer_query, error_text
from glm_dspy.runs.journal import MAX_RUNS, Journal, poison_error
from glm_dspy.serving.limits import Admission, BodyLimit, Overloaded
from glm_dspy.runs.steps import Step, listening

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000
MAX_BODY_BYTES = 64 * 1024  # a question of MAX_QUESTION_CHARS, every character \u-escaped, is 12 KB
MAX_QUEUED = 64  # questions waiting for a worker, beyond the `concurrency` running
ANSWER_FIELDS = ("query_id", "answer", "kind", "error_category", "notebook", "steps", "num_calls", "prompt_tokens",
                 "cached_tokens", "completion_tokens", "resumed", "runs")


class Ask(BaseModel):
    """The body of POST /v1/ask and /v1/ask/stream."""

    question: str = Field(description=f"the question, 1 to {MAX_QUESTION_CHARS} characters")

    @field_validator("question")
    @classmethod
    def _sensible(cls, question: str) -> str:
        return checked_question(question)


class QuestionFailed(Exception):
    """The program raised while answering journaled query `query_id` (journaled failed with `error`)."""

    def __init__(self, query_id: str, error: str):
        super().__init__(error)
        self.query_id, self.error = query_id, error


class Service:
    """The state behind the app: program, LM, journal, worker pool, admission and metrics.

    Every question taken holds a place in `admission` from before it is journaled until its
    pool task ends (or is cancelled); a question that ends is journaled done or failed."""

    def __init__(self, program, lm, journal: Journal, *, concurrency: int = 4,
                 max_recoveries: int = DEFAULT_MAX_RECOVERIES, max_queued: int = MAX_QUEUED,
                 max_runs: int = MAX_RUNS, graph=None):
        """`graph` (glm_dspy.graph.Graph): each answer carries its evidence drawn from it; None: none."""
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        if max_runs < 1:
            raise ValueError(f"max_runs must be at least 1, got {max_runs}")
        self.program, self.lm, self.journal, self.max_runs = program, lm, journal, max_runs
        self.graph = graph
        self.recovery = Recovery(lm, max_recoveries)
        self.admission = Admission(concurrency, max_queued)
        self.pool = ThreadPoolExecutor(concurrency, thread_name_prefix="glm-query")
        self.registry = CollectorRegistry()
        self.in_flight = Gauge("glm_questions_in_flight", "questions being answered", registry=self.registry)
        self.answered = Counter("glm_questions", "questions finished, by outcome", ["outcome"],
                                registry=self.registry)
        self.latency = Histogram("glm_question_latency_seconds", "time to answer a question",
                                 buckets=(0.5, 1, 2, 5, 10, 20, 40, 80, 160), registry=self.registry)
        self.tokens = Counter("glm_tokens", "LLM tokens of finished questions", ["kind"], registry=self.registry)
        self.hit_rate = Gauge("glm_prefix_cache_hit_rate", "cached / prompt tokens over finished questions",
                              registry=self.registry)
        self.resumed = Counter("glm_questions_resumed", "questions finished after a restart or a lost engine",
                               registry=self.registry)
        self.refused = Counter("glm_questions_refused", "questions refused because the work queue was full",
                               registry=self.registry)
        self._lock = threading.Lock()
        self.num_in_flight = 0
        self._prompt_tokens = self._cached_tokens = 0
        self._num_timed, self._total_latency_s = 0, 0.0

    def submit(self, question: str) -> str:
        return self.journal.submit([question], batch=uuid.uuid4().hex[:16])[0]

    def run(self, query_id: str, question: str, on_step=None) -> dict:
        """Answer the journaled query in this thread; its answer body (ANSWER_FIELDS). Raises
        QuestionFailed, the query journaled failed, when the program raises."""
        started = time.perf_counter()
        self._count_in_flight(+1)
        try:
            # no DSPy call history: the journal keeps every call, and DSPy's lists (10,000 entries
            # globally, per LM and per module) only grew a long-running service's memory (glm_dspy.bench.soak)
            with dspy.context(lm=self.lm, disable_history=True), listening(on_step or (lambda step: None)):
                prediction = answer_query(self.program, self.journal, query_id, question, self.recovery)
        except Exception as error:  # noqa: BLE001 - any error fails this question, not the service
            self.answered.labels("failed").inc()
            self.journal.fail(query_id, error_text(error))  # answer_query did, unless the engine was lost
            logger.error("query %s failed: %s", query_id, error_text(error))
            raise QuestionFailed(query_id, self.journal.state(query_id).error or error_text(error)) from error
        finally:
            self._count_in_flight(-1)
        elapsed_s = time.perf_counter() - started
        self.latency.observe(elapsed_s)
        self.answered.labels("answered" if prediction.answer else "no_answer").inc()
        self.resumed.inc(bool(prediction.resumed))
        for kind in ("prompt_tokens", "cached_tokens", "completion_tokens"):
            self.tokens.labels(kind.removesuffix("_tokens")).inc(prediction.get(kind) or 0)
        with self._lock:
            self._num_timed, self._total_latency_s = self._num_timed + 1, self._total_latency_s + elapsed_s
            self._prompt_tokens += prediction.get("prompt_tokens") or 0
            self._cached_tokens += prediction.get("cached_tokens") or 0
            self.hit_rate.set(self._cached_tokens / self._prompt_tokens if self._prompt_tokens else 0.0)
        body = {field: prediction.get(field) for field in ANSWER_FIELDS}
        if self.graph is not None:
            body.update(self._evidence(prediction))
        return body

    def _evidence(self, prediction) -> dict:
        """{"evidence", "evidence_svg"} of an answer; a failure to draw it is logged, never the answer's."""
        from glm_dspy.evidence import drawn_evidence

        try:
            drawn = drawn_evidence(prediction.get("steps") or [], prediction.get("answer") or "", self.graph)
        except Exception as error:  # noqa: BLE001 - the answer stands without its drawing
            logger.warning("query %s: its evidence could not be drawn: %s", prediction.get("query_id"),
                           error_text(error))
            return {"evidence": None, "evidence_svg": None}
        return {"evidence": drawn["evidence"], "evidence_svg": drawn["svg"]}

    def _count_in_flight(self, change: int) -> None:
        with self._lock:
            self.num_in_flight += change
            self.in_flight.set(self.num_in_flight)

    async def take(self, question: str, on_step=None) -> tuple[str, asyncio.Future]:
        """Take `question`: a place in the queue (else Overloaded), its journaled query id, and the
        future of its answer body; the question runs to its end even if the caller stops waiting."""
        with self._lock:
            mean_latency_s = self._total_latency_s / self._num_timed if self._num_timed else None
        try:
            self.admission.take(mean_latency_s)
        except Overloaded:
            self.refused.inc()
            raise
        try:
            query_id = await asyncio.to_thread(self.submit, question)
        except BaseException:
            self.admission.give_back()
            raise
        answered = asyncio.wrap_future(self._start(query_id, question, on_step))
        answered.add_done_callback(_retrieved)  # a caller gone away leaves no "exception never retrieved"
        return query_id, answered

    async def answer(self, question: str, on_step=None) -> dict:
        _, answered = await self.take(question, on_step)
        return await asyncio.shield(answered)

    def _start(self, query_id: str, question: str, on_step=None):
        """Run the query on the pool; its place in the queue is given back when it ends or is cancelled."""
        future = self.pool.submit(contextvars.copy_context().run, self.run, query_id, question, on_step)
        future.add_done_callback(self.admission.give_back)
        return future

    def resume_unfinished(self) -> tuple[list[str], list[str]]:
        """Start every query the journal has not finished (the service was stopped mid-way), except
        those already run `max_runs` times: those are journaled failed as poison questions.
        (resumed ids, given-up ids)."""
        resumed, given_up = [], []
        for state in self.journal.unfinished():
            if state.status == "running" and state.runs >= self.max_runs:
                self.journal.fail(state.id, poison_error(state, self.max_runs))
                logger.error("giving up on query %s %r: %s", state.id, state.question[:80],
                             poison_error(state, self.max_runs))
                given_up.append(state.id)
                continue
            self.admission.take(force=True)
            self._start(state.id, state.question)
            resumed.append(state.id)
        if resumed or given_up:
            logger.warning("%s: resuming %d unfinished queries%s; gave up on %d poison questions%s",
                           self.journal.path, len(resumed), f" ({', '.join(resumed)})" if resumed else "",
                           len(given_up), f" ({', '.join(given_up)})" if given_up else "")
        return resumed, given_up

    def engine_alive(self) -> bool:
        transport = getattr(getattr(self.lm, "engine", None), "transport", None)
        return transport is None or getattr(transport, "is_alive", lambda: True)()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=False)


def _retrieved(future) -> None:
    if not future.cancelled():
        future.exception()


def _error(message: str, status_code: int, headers: dict | None = None, **fields):
    from fastapi.responses import JSONResponse

    return JSONResponse({"error": message, **fields}, status_code=status_code, headers=headers)


def _refusal(error: Overloaded):
    return _error(str(error), 503, headers={"Retry-After": str(error.retry_after_s)})


def _failure(error: QuestionFailed):
    return _error(f"the question failed: {error.error}. It is journaled failed: GET /v1/queries/{error.query_id}",
                  500, query_id=error.query_id)


def _step_event(step: Step) -> dict:
    fields = step.as_dict()
    return {"event": "step", "data": json.dumps({key: fields[key] for key in (
        "agent", "attempt", "sampled", "code", "output", "error", "ok", "replayed", "num_calls", "prompt_tokens",
        "cached_tokens", "completion_tokens", "latency_s", "raw", "rewrites")}, default=str)}


def create_app(service: Service, *, resume: bool = True):
    """The FastAPI app over `service` (module doc); `resume`: finish the journal's unfinished queries at start."""
    from fastapi import FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse, Response
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
    from sse_starlette.sse import EventSourceResponse
    from starlette.exceptions import HTTPException

    @asynccontextmanager
    async def lifespan(app):
        if resume:
            app.state.resumed, app.state.given_up = await asyncio.to_thread(service.resume_unfinished)
        yield
        await asyncio.to_thread(service.close)

    app = FastAPI(title="GLM", description="Graph Chain-of-Thought question answering over a knowledge graph",
                  lifespan=lifespan)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    app.state.resumed, app.state.given_up = [], []

    @app.exception_handler(HTTPException)
    async def _http_error(request: Request, error: HTTPException):
        return _error(f"{error.detail}: {request.method} {request.url.path}", error.status_code,
                      headers=getattr(error, "headers", None))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, error: Exception):
        # Starlette still raises it after this answer, so uvicorn logs its traceback
        return _error(f"internal error at {request.url.path}: {error_text(error)}", 500)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError):
        problems = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: "
                             f"{e.get('msg', '').removeprefix('Value error, ')}" for e in error.errors())
        return JSONResponse({"error": f"bad request to {request.url.path}: {problems}"}, status_code=422)

    @app.post("/v1/ask")
    async def ask(body: Ask):
        try:
            return await service.answer(body.question)
        except Overloaded as error:
            return _refusal(error)
        except QuestionFailed as error:
            return _failure(error)

    async def stream(question: str):
        loop = asyncio.get_running_loop()
        events: asyncio.Queue = asyncio.Queue()

        def on_step(step: Step) -> None:
            loop.call_soon_threadsafe(events.put_nowait, _step_event(step))

        try:
            query_id, task = await service.take(question, on_step)
        except Overloaded as error:
            return _refusal(error)

        async def produce():
            yield {"event": "query", "data": json.dumps({"query_id": query_id})}
            while not (task.done() and events.empty()):
                getter = asyncio.ensure_future(events.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            if task.exception() is not None:
                yield {"event": "failed", "data": json.dumps({"error": str(task.exception()), "query_id": query_id})}
                return
            yield {"event": "answer", "data": json.dumps(task.result(), default=str)}

        return EventSourceResponse(produce())

    @app.post("/v1/ask/stream")
    async def ask_stream(body: Ask):
        return await stream(body.question)

    @app.get("/v1/ask/stream")
    async def ask_stream_get(question: str = Query(..., description="the question")):
        try:
            question = checked_question(question)
        except ValueError as error:
            return JSONResponse({"error": f"bad request to /v1/ask/stream: question: {error}"}, status_code=422)
        return await stream(question)

    @app.get("/v1/queries/{query_id}")
    async def query(query_id: str):
        try:
            state = await asyncio.to_thread(service.journal.state, query_id)
        except KeyError:
            return JSONResponse({"error": f"no query {query_id!r}: ask with POST /v1/ask; ids are in its answer"},
                                status_code=404)
        body = {"query_id": state.id, "question": state.question, "status": state.status, "runs": state.runs,
                "resumed": state.resumed, "journaled_calls": state.num_calls}
        if state.error is not None:
            body["error"] = state.error
        if state.prediction is not None:
            body.update({field: state.prediction.get(field) for field in ANSWER_FIELDS if field in state.prediction})
        return body

    @app.get("/health")
    async def health():
        if not service.engine_alive():
            return JSONResponse({"status": "engine lost", "in_flight": service.num_in_flight}, status_code=503)
        return {"status": "ok", "in_flight": service.num_in_flight}

    @app.get("/metrics")
    async def metrics():
        return Response(generate_latest(service.registry), media_type=CONTENT_TYPE_LATEST)

    @app.get("/", response_class=HTMLResponse)
    async def page():
        return resources.files("glm_dspy.serving").joinpath("page.html").read_text(encoding="utf-8")

    return app


def checked_question(question: str) -> str:
    question = question.strip() if isinstance(question, str) else question
    if not isinstance(question, str) or not question:
        raise ValueError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise ValueError(f"the question is {len(question):,} characters; at most {MAX_QUESTION_CHARS:,}")
    return question


def _warm(warm) -> None:
    """Start the engine ahead of the first call; a failure is logged, and the first call tries again."""
    try:
        warm()
    except Exception:  # noqa: BLE001 - reported, never fatal: the call that needs the engine raises it
        logger.exception("the in-process engine did not start in the background")


def serve(db: Path, *, model: str | None = None, server: str | None = None, server_kind: str = "auto",
          api_key: str | None = None, host: str = "127.0.0.1", port: int = 8000,
          journal: Path = Path("runs/service.sqlite"), concurrency: int = 4, compiled: str | None = "default") -> None:
    """Open the graph and the journal, configure the LM (or connect to `server`: `server_kind`,
    `api_key` as glm_dspy.configure takes them) and serve until stopped; the in-process engine is
    started in the background, and questions the readings answer need not wait for it."""
    import uvicorn

    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM

    with open_graph(db) as graph, Journal(journal) as opened:
        lm = configure(model, server=server, server_kind=server_kind, api_key=api_key)
        program = GLM(graph, compiled=compiled, executor=graph.executor(num_workers=max(2, concurrency)))
        service = Service(program, lm, opened, concurrency=concurrency, graph=graph)
        warm = getattr(getattr(getattr(lm, "engine", None), "transport", None), "warm", None)
        if warm is not None:  # the in-process engine starts in the background; readings answer meanwhile
            threading.Thread(target=_warm, args=(warm,), name="glm-engine-warm", daemon=True).start()
        uvicorn.run(create_app(service), host=host, port=port, log_level="warning")
