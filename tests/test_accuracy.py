"""EM with a percentile-bootstrap interval, overall and per question tier or kind (glm_dspy/evaluation/accuracy.py)."""

import numpy as np
import pytest

from glm_dspy.evaluation.accuracy import (UNTIERED, bootstrap_interval, em_by_kind, em_interval, in_kind_order,
                                          interval_cell)


def records(*pairs):
    """Eval records from (tier, em) pairs."""
    return [{"tier": tier, "em": em} for tier, em in pairs]


def test_unanimous_questions_have_a_zero_width_interval():
    assert bootstrap_interval([1] * 7) == (1.0, 1.0)
    assert bootstrap_interval([0] * 3) == (0.0, 0.0)
    assert bootstrap_interval([True]) == (1.0, 1.0)


def test_a_fixed_seed_gives_the_same_interval_every_time():
    # 13 of 20 right: these numbers are the seeded draws' 2.5th and 97.5th percentiles
    assert bootstrap_interval([1] * 13 + [0] * 7) == (0.45, 0.85)
    assert bootstrap_interval([1] * 13 + [0] * 7) == bootstrap_interval([1] * 13 + [0] * 7, seed=0)
    assert bootstrap_interval([1] * 7 + [0] * 3) == (0.4, 1.0)
    assert bootstrap_interval([1] * 7 + [0] * 3, seed=1) == (0.4, 0.9)  # another seed, other draws


def test_the_interval_is_the_percentiles_of_resampled_means():
    values = np.array([1] * 62 + [0] * 38, dtype=float)
    draws = np.random.default_rng(0).integers(0, 100, size=(2000, 100))
    expected = tuple(float(x) for x in np.percentile(values[draws].mean(axis=1), [2.5, 97.5]))
    assert bootstrap_interval(values) == expected == (0.53, 0.71)  # about 0.62 +- 1.96 * sqrt(.62 * .38 / 100)
    lo, hi = bootstrap_interval(values, confidence=0.5)
    assert 0.53 < lo < 0.62 < hi < 0.71  # a lower confidence is a narrower interval


@pytest.mark.parametrize("num_questions", [1, 2, 5, 17, 40])
def test_the_interval_contains_the_point_estimate(num_questions):
    for num_right in range(num_questions + 1):
        lo, hi = bootstrap_interval([1] * num_right + [0] * (num_questions - num_right))
        assert lo <= num_right / num_questions <= hi


def test_no_questions_have_no_interval():
    with pytest.raises(AssertionError, match="no questions"):
        bootstrap_interval([])


def test_em_per_tier_counts_each_tiers_questions():
    rows = records(("single_hop", True), ("multi_hop", False), ("single_hop", False), ("", True),
                   ("aggregation", True), ("single_hop", True))
    tiers = em_by_kind(rows)
    assert list(tiers) == ["single_hop", "multi_hop", "aggregation", UNTIERED]  # TIERS in order, then untiered
    assert {t: (cell["em"], cell["n"]) for t, cell in tiers.items()} == {
        "single_hop": (2 / 3, 3), "multi_hop": (0.0, 1), "aggregation": (1.0, 1), UNTIERED: (1.0, 1)}
    assert (tiers["multi_hop"]["lo"], tiers["multi_hop"]["hi"]) == (0.0, 0.0)
    overall = em_interval(rows)
    assert (overall["em"], overall["n"]) == (4 / 6, 6) and overall["lo"] < 4 / 6 < overall["hi"]
    assert em_by_kind(records(("multi_hop", True))) == {"multi_hop": {"em": 1.0, "lo": 1.0, "hi": 1.0, "n": 1}}


def test_records_without_a_tier_are_untiered():
    assert list(em_by_kind([{"em": True}, {"tier": "", "em": False}])) == [UNTIERED]


def test_a_question_without_a_tier_counts_under_its_own_kind():
    # natural_dev's kinds (Question.meta["kind"], copied into the record): two are also tier names
    rows = [{"tier": "", "kind": "set", "em": False}, {"tier": "", "kind": "lookup", "em": True},
            {"tier": "", "kind": "multi_hop", "em": False}, {"tier": "", "kind": "lookup", "em": False},
            {"tier": "single_hop", "kind": "lookup", "em": True},  # a tier wins over a kind
            {"tier": "", "kind": "", "em": True}, {"kind": "aggregation", "em": True}]
    kinds = em_by_kind(rows)
    # TIERS in order, then other kinds by name, then untiered: the same order however records arrive
    assert list(kinds) == ["single_hop", "multi_hop", "aggregation", "lookup", "set", UNTIERED]
    assert {k: (cell["em"], cell["n"]) for k, cell in kinds.items()} == {
        "single_hop": (1.0, 1), "multi_hop": (0.0, 1), "aggregation": (1.0, 1), "lookup": (0.5, 2), "set": (0.0, 1),
        UNTIERED: (1.0, 1)}
    assert list(em_by_kind(rows[::-1])) == list(kinds)
    assert in_kind_order(["set", UNTIERED, "lookup", "set", "aggregation"]) == ["aggregation", "lookup", "set", UNTIERED]


def test_interval_cell():
    cell = {"em": 0.62, "lo": 0.54, "hi": 0.7, "n": 100}
    assert interval_cell(cell) == "0.620 [0.540, 0.700] (n=100)"
    assert interval_cell(cell, with_n=False) == "0.620 [0.540, 0.700]"
