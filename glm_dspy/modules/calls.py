"""`call_agent`: one agent call with usage accounting and the parse-error policy.

Every GLM agent call goes through here so that the step log is complete and the prompt
layout stays fixed: DSPy's ChatAdapter falls back to JSONAdapter after a parse error,
which would change the prompt (and lose the cached prefix), so GLM runs its agents under a
ChatAdapter with that fallback off, and handles unparseable output itself: one retry at a
small temperature (the same prompt at temperature 0 would give the same output), then
the call is recorded as "unexpected agent output".

The step records what the engine ran: each call's temperature, and how many outputs stopped at
max_tokens (instead of DSPy's truncation warning, which would print through a progress bar);
and which kind of LM ran it and whether the cache-tier hints went with it (glm_dspy/lm/backend.py:
on a generic dspy.LM they do not, and the temperatures and truncations are not known).

A call that times out (lm15.TimeoutError anywhere along the exception's causes: the engine's
per-call limit, or the server's per-read one) is asked again, the same prompt and config (its
prefix is cached), after `TIMEOUT_BACKOFF_S[n]` seconds, at most `len(TIMEOUT_BACKOFF_S)` times,
and never past the question's deadline (graphs/deadline.py: the engine cuts each call's timeout
to it, and a call it stopped is a DeadlinePassed, raised as itself);
then the error propagates (GLM.batch restarts the engine and resumes the query). A prompt longer
than the model's context (a notebook or a compiled program's demos grown too long) is refused by
the engine; the call is then recorded as "unexpected agent output" with that reason, like
unparseable output, and the query ends instead of crashing.

In a journaled run (glm_dspy/runs/journal.py) a call the query already completed is replayed from
the journal, with no LLM call, and a new one is journaled once it completes.
"""

from __future__ import annotations

import logging
import time
import uuid
from typing import Any

import dspy
from dspy import lm15
from dspy.utils.exceptions import AdapterParseError

from glm_dspy.runs.journal import current_run
from glm_dspy.lm.backend import backend_of
from glm_dspy.lm.observe import observe_calls
from glm_dspy.graphs.deadline import DeadlinePassed, remaining_s
from glm_dspy.lm.transport import cause_of, timed_out
from glm_dspy.runs.steps import UNEXPECTED_OUTPUT, Step

RETRY_TEMPERATURE = 0.3
TIMEOUT_BACKOFF_S = (1.0, 4.0)  # the wait before each new try of a timed-out call

logger = logging.getLogger(__name__)


def _context_length_error(error: BaseException | None) -> lm15.ContextLengthError | None:
    return cause_of(error, lm15.ContextLengthError)


def _ask(predictor: dspy.Module, inputs: dict[str, Any], config: dict[str, Any]) -> dspy.Prediction:
    """`predictor(**inputs)`, a timed-out call asked again after a backoff (module doc)."""
    for wait in (*TIMEOUT_BACKOFF_S, None):
        try:
            return predictor(**inputs, config=config)
        except Exception as error:
            if (passed := cause_of(error, DeadlinePassed)) is not None:
                raise passed from None  # the question's deadline (DSPy raises its own error from it)
            if wait is None or not timed_out(error):
                raise
            if (left := remaining_s()) is not None and left <= wait:
                raise DeadlinePassed("the question's time ran out: a timed-out LLM call is not asked again") \
                    from error
            logger.warning("an LLM call timed out; asking again in %.0f s: %s", wait, str(error).splitlines()[0])
            time.sleep(wait)
    raise AssertionError("unreachable")


def _usage_totals(tracker) -> tuple[int, int, int, int]:
    """(prompt, cached, completion tokens, calls) over everything `tracker` saw."""
    prompt = cached = completion = calls = 0
    for entries in tracker.usage_data.values():
        for entry in entries:
            calls += 1
            prompt += entry.get("prompt_tokens") or 0
            completion += entry.get("completion_tokens") or 0
            details = entry.get("prompt_tokens_details") or {}
            cached += details.get("cached_tokens") or 0
    return prompt, cached, completion, calls


def call_agent(agent: str, predictor: dspy.Module, *, config: dict[str, Any] | None = None,
               **inputs: Any) -> tuple[dspy.Prediction | None, Step]:
    """Run `predictor(**inputs)` under the LM `config` (e.g. a sampling temperature); return its
    prediction (None if unparseable twice) and the step."""
    started = time.perf_counter()
    prediction, error, attempts = None, None, 0
    config = dict(config or {})
    run = current_run()
    if run is not None:
        key = run.key(agent, inputs, config)
        if (journaled := run.replay(key)) is not None:
            outputs, fields = journaled
            step = Step(**{**fields, "temperatures": tuple(fields.get("temperatures") or ()), "replayed": True})
            return (None if outputs is None else dspy.Prediction(**outputs)), step
    retry = {**config, "temperature": max(config.get("temperature") or 0.0, RETRY_TEMPERATURE),
             "rollout_id": uuid.uuid4().hex}
    with dspy.track_usage() as tracker, observe_calls() as observed:
        for config in (config, retry):
            attempts += 1
            try:
                prediction = _ask(predictor, inputs, config)
                error = None
                break
            except AdapterParseError as parse_error:
                error = f"{UNEXPECTED_OUTPUT}: {str(parse_error).splitlines()[0][:300]}"
            except Exception as failure:  # noqa: BLE001 - only a prompt past the context is the agent's failure
                if (too_long := _context_length_error(failure)) is None:
                    raise
                error = f"{UNEXPECTED_OUTPUT}: the prompt is too long for the model: {str(too_long)[:300]}"
                break  # the same prompt again would be refused again
    prompt, cached, completion, calls = _usage_totals(tracker)
    backend = backend_of(dspy.settings.lm)
    step = Step(agent, prompt, cached, completion, max(calls, attempts), time.perf_counter() - started, error=error,
                temperatures=tuple(record.temperature for record in observed.records),
                num_truncated=observed.num_truncated, backend=backend.kind, hints_sent=backend.hints_sent)
    if run is not None:
        run.record(key, agent, None if prediction is None else prediction.toDict(), step.as_dict())
    return prediction, step
