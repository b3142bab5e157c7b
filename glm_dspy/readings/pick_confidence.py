"""How sure the model's pick among the readings must be for GLM to give it (Discriminate.choose_among).

Why: where the best reading is not sure, the model picks among the readings shown (one
constrained call); a pick it is unsure of is more often wrong than right, and a confident wrong
answer is worse than "not sure". The class of questions served: every question the readings hand
on and the model picks a reading for. The pick's probability is the model's own
(glm_dspy/modules/confident_choice.py); the threshold is the lowest at which the picks of a
sample at or above it were right at the target rate, fitted per model by `python -m
optimize.calibrate_pick` on the records of `python -m glm_dspy.bench.readings --model M --out`
over questions of at least two graphs that are not the dev sets it is measured on. A model with
no threshold in the file gives every pick (its probability is shown in the steps); a model whose
threshold is above 1 (none reached the target) is not asked to pick (`picks_can_be_sure`).
"""

from __future__ import annotations

import json
from pathlib import Path

DEFAULT_FILE = Path(__file__).resolve().parents[1] / "compiled" / "pick_confidence.json"


PICK, JUDGE = "pick", "judge"  # the choosers: a number among the readings, or a yes/no a reading


def key(model: str, chooser: str = PICK) -> str:
    """The file's entry of `model` (its name as `glm_dspy.configure` takes it, or a path whose
    last part is that name) choosing by `chooser`."""
    name = Path(str(model)).name
    return name if chooser == PICK else f"{name} ({chooser})"


def pick_threshold(model: str | None, path: Path | str = DEFAULT_FILE, chooser: str = PICK) -> float | None:
    """The fitted threshold of `model` choosing by `chooser` (`key`), or None: no file, or no
    threshold fitted for it."""
    path = Path(path)
    if model is None or not path.is_file():
        return None
    try:
        fitted = json.loads(path.read_text(encoding="utf-8"))
        entry = fitted.get(key(model, chooser))
        return None if entry is None else float(entry["threshold"])
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"{path}: not a pick-confidence file ({error})") from None


def picks_can_be_sure(model: str | None, path: Path | str = DEFAULT_FILE, chooser: str = PICK) -> bool:
    """Whether a pick of `model` can be sure: not where its fitted threshold is above every
    probability (no threshold made its picks right at the target where it was fitted; then the
    model is not asked to pick: the question is "not sure", with the best reading)."""
    threshold = pick_threshold(model, path, chooser)
    return threshold is None or threshold <= 1.0


def save_threshold(model: str, threshold: float, path: Path | str = DEFAULT_FILE, chooser: str = PICK,
                   **about) -> None:
    """Write `model`'s threshold (and `about` it: what it was fitted on, how it does there) into
    the file, keeping the other models'."""
    path = Path(path)
    fitted = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    fitted[key(model, chooser)] = {"threshold": threshold, **about}
    path.write_text(json.dumps(fitted, indent=1, sort_keys=True) + "\n", encoding="utf-8")


__all__ = ["PICK", "JUDGE", "key", "pick_threshold", "picks_can_be_sure", "save_threshold", "DEFAULT_FILE"]
