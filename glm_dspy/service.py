"""`glm-dspy serve`: GLM as an HTTP JSON service (FastAPI on uvicorn), every query journaled.

    glm-dspy serve --db data/nobel [--server URL] [--port 8000] [--journal runs/service.sqlite]

Endpoints (`create_app`):
  POST /v1/ask {"question": "..."}     -> the answer: query_id, answer, kind, error_category, steps,
                                          num_calls, prompt/cached/completion tokens, resumed
  POST /v1/ask/stream {"question"}     -> server-sent events: "query" (its id) at once, a "step" per
  GET  /v1/ask/stream?question=...        completed step, then "answer" (the /v1/ask body); the GET form
                                          is for the browser's EventSource
  GET  /v1/queries/{query_id}          -> the journal's state: status (pending, running, done), runs,
                                          journaled calls, and the answer once done
  GET  /health                         -> 200 {"status": "ok"}; 503 when the engine is lost
  GET  /metrics                        -> Prometheus text: questions in flight and answered, latency,
                                          tokens, the prefix cache hit rate
  GET  /                               -> a page to ask a question and watch its steps arrive

Every question is a journaled query (glm_dspy/journal.py) run by `answer_query` (glm_dspy/batch.py)
on a pool of `concurrency` worker threads over one program, one engine and one graph: vLLM
batches the concurrent requests' calls; a lost or hung engine is restarted and the query
resumed. When the service starts on a journal that has unfinished queries (it was killed), it
finishes them in the background, each once; their state is at /v1/queries/{id}.

Bad input gets a 4xx with {"error": "..."}: an empty or too long question (422), malformed JSON
(422), an unknown query id (404).
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

from glm_dspy.batch import DEFAULT_MAX_RECOVERIES, Recovery, answer_query
from glm_dspy.journal import Journal
from glm_dspy.steps import Step, listening

logger = logging.getLogger(__name__)

MAX_QUESTION_CHARS = 2000
ANSWER_FIELDS = ("query_id", "answer", "kind", "error_category", "notebook", "steps", "num_calls", "prompt_tokens",
                 "cached_tokens", "completion_tokens", "resumed", "runs")


class Ask(BaseModel):
    """The body of POST /v1/ask and /v1/ask/stream."""

    question: str = Field(description=f"the question, 1 to {MAX_QUESTION_CHARS} characters")

    @field_validator("question")
    @classmethod
    def _sensible(cls, question: str) -> str:
        return checked_question(question)


class Service:
    """The state behind the app: program, LM, journal, worker pool and metrics."""

    def __init__(self, program, lm, journal: Journal, *, concurrency: int = 4,
                 max_recoveries: int = DEFAULT_MAX_RECOVERIES):
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {concurrency}")
        self.program, self.lm, self.journal = program, lm, journal
        self.recovery = Recovery(lm, max_recoveries)
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
        self._lock = threading.Lock()
        self.num_in_flight = 0
        self._prompt_tokens = self._cached_tokens = 0

    def submit(self, question: str) -> str:
        return self.journal.submit([question], batch=uuid.uuid4().hex[:16])[0]

    def run(self, query_id: str, question: str, on_step=None) -> dict:
        """Answer the journaled query in this thread; its answer body (ANSWER_FIELDS)."""
        started = time.perf_counter()
        self._count_in_flight(+1)
        try:
            # no DSPy call history: the journal keeps every call, and DSPy's lists (10,000 entries
            # globally, per LM and per module) only grew a long-running service's memory (bench.soak)
            with dspy.context(lm=self.lm, disable_history=True), listening(on_step or (lambda step: None)):
                prediction = answer_query(self.program, self.journal, query_id, question, self.recovery)
        except Exception:
            self.answered.labels("failed").inc()
            raise
        finally:
            self._count_in_flight(-1)
        self.latency.observe(time.perf_counter() - started)
        self.answered.labels("answered" if prediction.answer else "no_answer").inc()
        self.resumed.inc(bool(prediction.resumed))
        for kind in ("prompt_tokens", "cached_tokens", "completion_tokens"):
            self.tokens.labels(kind.removesuffix("_tokens")).inc(prediction.get(kind) or 0)
        with self._lock:
            self._prompt_tokens += prediction.get("prompt_tokens") or 0
            self._cached_tokens += prediction.get("cached_tokens") or 0
            self.hit_rate.set(self._cached_tokens / self._prompt_tokens if self._prompt_tokens else 0.0)
        return {field: prediction.get(field) for field in ANSWER_FIELDS}

    def _count_in_flight(self, change: int) -> None:
        with self._lock:
            self.num_in_flight += change
            self.in_flight.set(self.num_in_flight)

    async def answer(self, question: str, on_step=None) -> dict:
        query_id = self.submit(question)
        return await self._in_pool(self.run, query_id, question, on_step)

    async def _in_pool(self, function, *args):
        context = contextvars.copy_context()
        return await asyncio.wrap_future(self.pool.submit(context.run, function, *args))

    def resume_unfinished(self) -> list[str]:
        """Start every query the journal has not finished (the service was stopped mid-way); their ids."""
        unfinished = [state for state in self.journal.states() if state.status != "done"]
        for state in unfinished:
            future = self.pool.submit(contextvars.copy_context().run, self.run, state.id, state.question)
            future.add_done_callback(_log_failure(state.id))
        if unfinished:
            logger.warning("resuming %d unfinished queries from %s", len(unfinished), self.journal.path)
        return [state.id for state in unfinished]

    def engine_alive(self) -> bool:
        transport = getattr(getattr(self.lm, "engine", None), "transport", None)
        return transport is None or getattr(transport, "is_alive", lambda: True)()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=False)


def _log_failure(query_id: str):
    def done(future) -> None:
        if future.exception() is not None:
            logger.error("query %s failed: %s", query_id, future.exception())
    return done


def _step_event(step: Step) -> dict:
    fields = step.as_dict()
    return {"event": "step", "data": json.dumps({key: fields[key] for key in (
        "agent", "attempt", "sampled", "code", "output", "error", "ok", "replayed", "num_calls", "prompt_tokens",
        "cached_tokens", "completion_tokens", "latency_s")}, default=str)}


def create_app(service: Service, *, resume: bool = True):
    """The FastAPI app over `service` (module doc); `resume`: finish the journal's unfinished queries at start."""
    from fastapi import FastAPI, Query, Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import HTMLResponse, JSONResponse, Response
    from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
    from sse_starlette.sse import EventSourceResponse

    @asynccontextmanager
    async def lifespan(app):
        if resume:
            app.state.resumed = service.resume_unfinished()
        yield
        await asyncio.to_thread(service.close)

    app = FastAPI(title="GLM", description="Graph Chain-of-Thought question answering over a knowledge graph",
                  lifespan=lifespan)
    app.state.resumed = []

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, error: RequestValidationError):
        problems = "; ".join(f"{'.'.join(str(p) for p in e.get('loc', ()) if p != 'body') or 'body'}: "
                             f"{e.get('msg', '').removeprefix('Value error, ')}" for e in error.errors())
        return JSONResponse({"error": f"bad request to {request.url.path}: {problems}"}, status_code=422)

    @app.post("/v1/ask")
    async def ask(body: Ask) -> dict:
        return await service.answer(body.question)

    async def stream(question: str):
        loop = asyncio.get_running_loop()
        events: asyncio.Queue = asyncio.Queue()
        query_id = service.submit(question)

        def on_step(step: Step) -> None:
            loop.call_soon_threadsafe(events.put_nowait, _step_event(step))

        async def produce():
            yield {"event": "query", "data": json.dumps({"query_id": query_id})}
            task = asyncio.ensure_future(service._in_pool(service.run, query_id, question, on_step))
            while not (task.done() and events.empty()):
                getter = asyncio.ensure_future(events.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if getter.done():
                    yield getter.result()
                else:
                    getter.cancel()
            if task.exception() is not None:
                yield {"event": "failed", "data": json.dumps({"error": str(task.exception())})}
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
            state = service.journal.state(query_id)
        except KeyError:
            return JSONResponse({"error": f"no query {query_id!r}: ask with POST /v1/ask; ids are in its answer"},
                                status_code=404)
        body = {"query_id": state.id, "question": state.question, "status": state.status, "runs": state.runs,
                "resumed": state.resumed, "journaled_calls": state.num_calls}
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
        return resources.files("glm_dspy").joinpath("page.html").read_text(encoding="utf-8")

    return app


def checked_question(question: str) -> str:
    question = question.strip() if isinstance(question, str) else question
    if not isinstance(question, str) or not question:
        raise ValueError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise ValueError(f"the question is {len(question):,} characters; at most {MAX_QUESTION_CHARS:,}")
    return question


def serve(db: Path, *, model: str | None = None, server: str | None = None, host: str = "127.0.0.1",
          port: int = 8000, journal: Path = Path("runs/service.sqlite"), concurrency: int = 4,
          compiled: str | None = "default") -> None:
    """Start the engine (or connect to `server`), open the graph and the journal, and serve until stopped."""
    import uvicorn

    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM

    with open_graph(db) as graph, Journal(journal) as opened:
        lm = configure(model, server=server)
        program = GLM(graph, compiled=compiled, executor=graph.executor(num_workers=max(2, concurrency)))
        service = Service(program, lm, opened, concurrency=concurrency)
        uvicorn.run(create_app(service), host=host, port=port, log_level="warning")
