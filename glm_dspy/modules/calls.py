"""`call_agent`: one agent call with usage accounting and the parse-error policy.

Every GLM agent call goes through here so that the step log is complete and the prompt
layout stays fixed: DSPy's ChatAdapter falls back to JSONAdapter after a parse error,
which would change the prompt (and lose the cached prefix), so GLM runs its agents under a
ChatAdapter with that fallback off, and handles unparseable output itself: one retry at a
small temperature (the same prompt at temperature 0 would give the same output), then
the call is recorded as "unexpected agent output".

The step records what the engine ran: each call's temperature, and how many outputs stopped at
max_tokens (instead of DSPy's truncation warning, which would print through a progress bar).

In a journaled run (glm_dspy/journal.py) a call the query already completed is replayed from
the journal, with no LLM call, and a new one is journaled once it completes.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import dspy
from dspy.utils.exceptions import AdapterParseError

from glm_dspy.journal import current_run
from glm_dspy.lm.observe import observe_calls
from glm_dspy.steps import UNEXPECTED_OUTPUT, Step

RETRY_TEMPERATURE = 0.3


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
                prediction = predictor(**inputs, config=config)
                error = None
                break
            except AdapterParseError as parse_error:
                error = f"{UNEXPECTED_OUTPUT}: {str(parse_error).splitlines()[0][:300]}"
    prompt, cached, completion, calls = _usage_totals(tracker)
    step = Step(agent, prompt, cached, completion, max(calls, attempts), time.perf_counter() - started, error=error,
                temperatures=tuple(record.temperature for record in observed.records),
                num_truncated=observed.num_truncated)
    if run is not None:
        run.record(key, agent, None if prediction is None else prediction.toDict(), step.as_dict())
    return prediction, step
