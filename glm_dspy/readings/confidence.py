"""How sure the best reading is: a calibrated probability that it answers the question right.

Why: the best fitting reading always exists, and a reading that fits badly still reads rows; a
confident wrong answer is worse than "not sure". The class of questions served: every question a
reading answers with no LLM call. Below the threshold the agents decide (glm_dspy/modules/glm.py),
and where they cannot, the answer says it is not sure and shows the best reading.

The features (`features`) are what the ranking and the run know of the answer: the chosen
reading's score and its margin over the next reading that read other values, whether it had a
rival, how far below the best fitting reading it was (readings before it were refused by the
answer type or read nothing), its hops, its number of values and whether the question asked for
one, and whether the question's wording said what it asks (a kind; a noun the schema knows).
The model (`Confidence`) is a logistic regression fitted by `python -m optimize.calibrate_readings`
on the per-question records of `python -m glm_dspy.bench.readings --out` over questions of at
least two graphs that are not the dev sets it is measured on; the threshold is the lowest
probability at which the fitted sample's answers are right at the target rate. Its file says what
it was fitted on (`glm_dspy/compiled/reading_confidence.json`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

FEATURES = ("score", "margin", "alone", "below_best", "tried", "hops", "values", "many_for_one", "kind_unsaid",
            "noun_unknown")
DEFAULT_FILE = Path(__file__).resolve().parents[1] / "compiled" / "reading_confidence.json"


def features(*, score: float, next_score: float | None, best_score: float, tried: int, hops: int, values: int,
             asks_one: bool, kind_said: bool, noun_unknown: bool) -> dict[str, float]:
    """The features of one answer (module doc); `next_score` None where no other reading read
    other values."""
    return {"score": score, "margin": 0.0 if next_score is None else score - next_score,
            "alone": float(next_score is None), "below_best": best_score - score, "tried": math.log1p(tried),
            "hops": float(hops), "values": math.log1p(values), "many_for_one": float(asks_one and values > 1),
            "kind_unsaid": float(not kind_said), "noun_unknown": float(noun_unknown)}


@dataclass(frozen=True, slots=True)
class Confidence:
    weights: dict[str, float]
    bias: float
    threshold: float
    fitted_on: str = ""

    def probability(self, found: dict[str, float]) -> float:
        z = self.bias + sum(self.weights.get(name, 0.0) * value for name, value in found.items())
        return 1.0 / (1.0 + math.exp(-max(-60.0, min(60.0, z))))

    def sure(self, found: dict[str, float]) -> bool:
        return self.probability(found) >= self.threshold

    @classmethod
    def load(cls, path: Path | str = DEFAULT_FILE) -> "Confidence | None":
        """The fitted model, or None where no file is there (every answer is then given)."""
        path = Path(path)
        if not path.is_file():
            return None
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            return cls({k: float(v) for k, v in raw["weights"].items()}, float(raw["bias"]), float(raw["threshold"]),
                       str(raw.get("fitted_on", "")))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise ValueError(f"{path}: not a reading-confidence file ({error})") from None

    def save(self, path: Path | str, **about) -> None:
        """Write it as JSON; `about` (what it was fitted on, how it does there) goes beside it."""
        Path(path).write_text(json.dumps({"weights": self.weights, "bias": self.bias, "threshold": self.threshold,
                                          "fitted_on": self.fitted_on, **about}, indent=1) + "\n", encoding="utf-8")


def fit(rows: list[tuple[dict[str, float], bool]], *, l2: float = 1.0, target: float = 0.9,
        steps: int = 50) -> tuple[Confidence, dict]:
    """A logistic regression of right on the features (Newton's method, L2 on the weights, the
    features standardised for the fit and folded back), and the lowest threshold at which the
    answers at or above it are right at `target` (of the fitted rows). Also what it gives: the
    share answered and their precision at that threshold."""
    import numpy as np

    if len({right for _, right in rows}) < 2:
        raise ValueError("fitting needs right and wrong answers both")
    x = np.array([[found[name] for name in FEATURES] for found, _ in rows], dtype=float)
    y = np.array([float(right) for _, right in rows])
    mean, std = x.mean(0), x.std(0)
    std[std == 0] = 1.0
    z = np.hstack([np.ones((len(x), 1)), (x - mean) / std])
    w = np.zeros(z.shape[1])
    penalty = np.diag([0.0] + [l2] * len(FEATURES))
    for _ in range(steps):
        p = 1 / (1 + np.exp(-z @ w))
        gradient = z.T @ (p - y) + penalty @ w
        hessian = z.T @ (z * (p * (1 - p))[:, None]) + penalty
        w -= np.linalg.solve(hessian, gradient)
    weights = w[1:] / std
    bias = float(w[0] - (weights * mean).sum())
    model = Confidence(dict(zip(FEATURES, map(float, weights))), bias, 1.0)
    threshold, report = lowest_threshold([model.probability(found) for found, _ in rows], [r for _, r in rows],
                                         target)
    return Confidence(model.weights, bias, threshold), report


def lowest_threshold(probabilities: list[float], rights: list[bool], target: float,
                     z: float = 0.0) -> tuple[float, dict]:
    """The lowest probability at which the answers at or above it are right at `target`, and what
    it gives: the share answered and their precision. `z` > 0: their precision's Wilson lower
    bound at z standard errors must reach `target` (1.645: one-sided 95%), so a handful of right
    answers at the top does not set it. None reach it: a threshold above every probability (1.0 +
    a little: nothing is given), answered 0."""
    import numpy as np

    probabilities, y = np.array(probabilities, dtype=float), np.array(rights, dtype=float)
    threshold, report = float(np.nextafter(1.0, 2.0)), {"answered": 0.0, "precision": None}
    for candidate in sorted(set(probabilities.tolist()), reverse=True):
        kept = probabilities >= candidate
        precision = float(y[kept].mean())
        if wilson_lower(precision, int(kept.sum()), z) >= target:
            threshold, report = float(candidate), {"answered": float(kept.mean()), "precision": precision}
    return threshold, report


def wilson_lower(precision: float, n: int, z: float) -> float:
    """The Wilson score interval's lower end of a share `precision` of `n` (z = 0: the share)."""
    if z <= 0.0 or n == 0:
        return precision
    centre = precision + z * z / (2 * n)
    spread = z * math.sqrt(precision * (1 - precision) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


__all__ = ["FEATURES", "features", "Confidence", "fit", "lowest_threshold", "wilson_lower", "DEFAULT_FILE"]
