"""Exact match with a 95% bootstrap interval, over all questions and per question kind.

The interval is a percentile bootstrap over questions: draw as many questions as were asked,
with replacement, `num_resamples` times; the interval is the 2.5th and 97.5th percentiles of
the EM of those draws. It says how much the EM would move on other questions like these
(an EM of 0.62 [0.54, 0.70] on 100 questions), not how far the program is from the truth on
these. Two arms whose intervals overlap widely are not shown apart by this run. The generator
is seeded, so the same records always give the same interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from glm_dspy.graphs.questions import TIERS

NUM_RESAMPLES = 2000
CONFIDENCE = 0.95
UNTIERED = "untiered"  # the kind, in summaries, of questions with neither a tier nor a kind of their own


def bootstrap_interval(values, *, num_resamples: int = NUM_RESAMPLES, confidence: float = CONFIDENCE,
                       seed: int = 0) -> tuple[float, float]:
    """The percentile-bootstrap `confidence` interval of the mean of `values` (one per question)."""
    values = np.asarray(values, dtype=float)
    assert values.ndim == 1 and values.size >= 1, "the interval of no questions is undefined"
    assert num_resamples >= 1 and 0 < confidence < 1, (num_resamples, confidence)
    draws = np.random.default_rng(seed).integers(0, values.size, size=(num_resamples, values.size))
    means = values[draws].mean(axis=1)
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return float(lo), float(hi)


def em_interval(records: list[dict[str, Any]], *, seed: int = 0) -> dict[str, float | int]:
    """{em, lo, hi, n} of `records` (eval records with an `em` verdict each; at least one)."""
    correct = [bool(r["em"]) for r in records]
    lo, hi = bootstrap_interval(correct, seed=seed)
    return {"em": float(np.mean(correct)), "lo": lo, "hi": hi, "n": len(correct)}


def kind_of(record: dict[str, Any]) -> str:
    """The record's question kind as summaries name it: its tier (one of TIERS), else the kind its
    question file gave it (`Question.meta["kind"]`, e.g. natural_dev's "lookup" or "set"), else UNTIERED."""
    return record.get("tier") or record.get("kind") or UNTIERED


def in_kind_order(kinds) -> list[str]:
    """The distinct `kinds` in the order summaries show them: TIERS in order, then any other kinds
    by name, then UNTIERED (the same order for every run, whatever order its questions finish in)."""
    found = set(kinds)
    return [kind for kind in (*TIERS, *sorted(found - {*TIERS, UNTIERED}), UNTIERED) if kind in found]


def em_by_kind(records: list[dict[str, Any]], *, seed: int = 0) -> dict[str, dict[str, float | int]]:
    """Kind -> `em_interval` of its records, for the kinds that have any, `in_kind_order`."""
    return {kind: em_interval([r for r in records if kind_of(r) == kind], seed=seed)
            for kind in in_kind_order(kind_of(r) for r in records)}


def interval_cell(row: dict[str, float | int], *, with_n: bool = True) -> str:
    """An EM with its interval for a table: "0.620 [0.540, 0.700] (n=100)"."""
    text = f"{row['em']:.3f} [{row['lo']:.3f}, {row['hi']:.3f}]"
    return f"{text} (n={row['n']})" if with_n else text
