"""What the optimizers maximize: exact match, plus a signal for each agent.

Per question (`Signals`, read off the prediction GLM returns, never off the trace, so that
every optimizer sees the same numbers):

- em: the answer matches a gold answer (glm_dspy.evaluation.metrics.exact_match, as `glm-dspy eval`).
- classify_ok: Classify's label is the one the question's tier implies (`EXPECTED_KIND`:
  single_hop, multi_hop and aggregation questions are read off the graph by one program, so
  "deterministic" in glm_dspy.signatures.Classify's terms); None where the question has no
  tier or GLM did not call Classify.
- act_first_try: the share of requests for code (Act's snippets, or its Cypher queries on a
  graph with example queries) whose first try worked: read as `glm-dspy eval` reads it
  (`act_attempts`); None where no code was written.

`score` (for searches that average a number: random search, MIPROv2, SIMBA, GEPA) weighs EM
0.8 and each agent signal 0.1; a missing signal gives its weight to EM, so a perfect run
scores 1.0. Called with a trace (BootstrapFewShot deciding whether a run's calls become
demos) it is strict: True only for a right answer from a run with no failed snippet and a
right label, so no demo teaches a snippet that failed.
"""

from __future__ import annotations

from dataclasses import dataclass

import dspy

from glm_dspy.evaluation.metrics import exact_match
from glm_dspy.runs.steps import WRITERS

EXPECTED_KIND = {"single_hop": "deterministic", "multi_hop": "deterministic", "aggregation": "deterministic"}
EM_WEIGHT, AGENT_WEIGHT = 0.8, 0.1
AGENTS = ("classify", "reason", "act", "cypher")  # the agents whose predictors an optimizer tunes
MAX_FEEDBACK_SNIPPETS = 4


@dataclass(frozen=True, slots=True)
class Signals:
    em: bool
    classify_ok: bool | None
    act_first_try: float | None

    def __post_init__(self):
        assert self.act_first_try is None or 0.0 <= self.act_first_try <= 1.0, self.act_first_try

    @property
    def score(self) -> float:
        total = EM_WEIGHT * self.em
        for signal in (self.classify_ok, self.act_first_try):
            total += AGENT_WEIGHT * (self.em if signal is None else float(signal))
        return round(total, 6)

    @property
    def is_clean(self) -> bool:
        """A right answer with every snippet right the first time and the right label."""
        return self.em and self.classify_ok is not False and self.act_first_try in (None, 1.0)


def golds(example: dspy.Example) -> tuple[str, ...]:
    return tuple(example.get("golds") or (example.answer,))


def act_attempts(steps: list[dict]) -> list[list[bool]]:
    """Per request for code (Act's snippets, Act's Cypher queries), the outcome of each try in
    order: the first, then its repairs and samples.

    Steps that say so (`attempt`, `ok`: glm_dspy.runs.steps.Step, every GLM run since they exist) are
    read as `glm-dspy eval` reads them (glm_dspy.runs.steps.act_first_tries): a try with attempt 0
    opens a request. Older logs are read off their order: an act step succeeded when it has
    no error, printed something, and is not followed by a repair (another act step) or by the
    chunk fallback (a graph step)."""
    if any(step.get("agent") in WRITERS and step.get("ok") is not None for step in steps):
        requests: list[list[bool]] = []
        for step in steps:
            if step.get("agent") not in WRITERS or step.get("ok") is None:
                continue
            if step.get("attempt", 0) == 0 or not requests:
                requests.append([])
            requests[-1].append(bool(step["ok"]))
        return requests
    requests = []
    previous_failed = False
    for i, step in enumerate(steps):
        if step.get("agent") != "act":
            previous_failed = False
            continue
        following = steps[i + 1].get("agent") if i + 1 < len(steps) else None
        ok = not step.get("error") and bool((step.get("output") or "").strip()) and following not in ("act", "graph")
        if previous_failed:
            requests[-1].append(ok)
        else:
            requests.append([ok])
        previous_failed = not ok
    return requests


def _rows(steps: list[dict], i: int) -> str:
    """What the query of writer step `i` printed or returned (a Cypher query's rows are the output
    of the graph step that ran it)."""
    step = steps[i]
    if step.get("agent") != "cypher":
        return step.get("output") or ""
    for later in steps[i + 1:]:
        if later.get("agent") in WRITERS:
            break
        if later.get("agent") == "graph" and later.get("code") == step.get("code"):
            return later.get("output") or ""
    return ""


def agent_of(pred_name: str | None) -> str:
    """The agent a predictor name belongs to ("program.cypher.generate" -> "cypher"), "" if none."""
    parts = (pred_name or "").split(".")
    return next((part for part in parts if part in AGENTS), "")


def signals(example: dspy.Example, prediction) -> Signals:
    answer = (prediction.get("answer") if prediction is not None else "") or ""
    em = bool(answer) and any(exact_match(answer, gold) for gold in golds(example))
    steps = (prediction.get("steps") if prediction is not None else None) or []
    expected = EXPECTED_KIND.get(example.get("tier") or "")
    classified = any(step.get("agent") == "classify" for step in steps)
    classify_ok = None if expected is None or not classified else prediction.get("kind") == expected
    requests = act_attempts(steps)
    act_first_try = sum(r[0] for r in requests) / len(requests) if requests else None
    return Signals(em, classify_ok, act_first_try)


def score(example: dspy.Example, prediction, trace=None) -> float | bool:
    """The optimizer metric (module doc): a float, or with a trace, whether the run is clean."""
    found = signals(example, prediction)
    return found.is_clean if trace is not None else found.score


def feedback_score(gold: dspy.Example, pred, trace=None, pred_name: str | None = None,
                   pred_trace=None) -> dspy.Prediction:
    """GEPA's metric: `score` with a text saying what the named agent did wrong (or right)."""
    found = signals(gold, pred)
    steps = (pred.get("steps") if pred is not None else None) or []
    answer = (pred.get("answer") if pred is not None else "") or "(no answer)"
    verdict = "right" if found.em else f"wrong; the expected answer is {gold.answer!r}"
    lines = [f"Question: {gold.question}", f"The program answered {answer!r}: {verdict}."]
    agent = agent_of(pred_name)
    if agent == "classify":
        expected = EXPECTED_KIND.get(gold.get("tier") or "")
        lines.append(f"The right kind is {expected}; the label given was {pred.get('kind')}." if expected
                     else "This question's kind is not known; judge by the answer only.")
    elif agent in WRITERS or agent == "":
        writers = [i for i, step in enumerate(steps) if step.get("agent") in WRITERS][:MAX_FEEDBACK_SNIPPETS]
        outcomes = [ok for request in act_attempts(steps) for ok in request]
        for i, ok in zip(writers, outcomes):
            step = steps[i]
            kind = "Cypher query" if step.get("agent") == "cypher" else "Snippet"
            what = ("ran and returned a result" if ok
                    else f"failed ({step.get('error') or 'returned no usable result'})")
            lines.append(f"{kind}:\n{step.get('code') or ''}\n-> {what}; output: {_rows(steps, i)[:200]!r}")
    return dspy.Prediction(score=found.score, feedback="\n".join(lines))
