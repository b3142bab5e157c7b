"""The threshold of the model's pick among the readings: fitted on records of two graphs, saved per
model, read back by the model's name (glm_dspy/readings/pick_confidence.py, optimize/calibrate_pick.py)."""

from __future__ import annotations

import json

import pytest

from glm_dspy.readings.confidence import lowest_threshold
from glm_dspy.readings.pick_confidence import pick_threshold, save_threshold
from glm_dspy.optimize.calibrate_pick import main


def records(path, picks):
    path.write_text("".join(json.dumps({"handed_on": True, "picked": True, "pick_probability": p,
                                        "model_right": right}) + "\n" for p, right in picks)
                    + json.dumps({"handed_on": False, "right": True}) + "\n", encoding="utf-8")
    return path


def test_the_lowest_threshold_keeps_the_target_precision():
    probabilities = [0.95, 0.9, 0.8, 0.7, 0.6, 0.5]
    rights = [True, True, True, False, False, True]
    threshold, report = lowest_threshold(probabilities, rights, 0.9)
    assert threshold == 0.8 and report["answered"] == pytest.approx(0.5) and report["precision"] == 1.0
    never, report = lowest_threshold([0.9, 0.8], [False, False], 0.9)
    assert never > 1.0 and report["answered"] == 0.0  # none reaches it: no pick is given
    # with a confidence bound, three right answers at the top are too few to say 90%
    assert lowest_threshold([0.9, 0.8, 0.7], [True, True, True], 0.9, z=1.645)[0] > 1.0
    assert lowest_threshold([0.9] * 40, [True] * 40, 0.9, z=1.645)[0] == 0.9


def test_calibrate_pick_fits_on_two_graphs_and_saves_per_model(tmp_path, capsys):
    a = records(tmp_path / "a.jsonl", [(0.99, True)] * 15 + [(0.6, False), (0.4, False)])
    b = records(tmp_path / "b.jsonl", [(0.95, True)] * 15 + [(0.7, False), (0.5, True)])
    out = tmp_path / "pick.json"
    assert main([str(a), str(b), "--model", "tiny-model", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # 30 of 30 right at >= 0.95 (lower bound 0.92); at 0.7, 30 of 31 (0.86): below the target
    assert printed["threshold"] == 0.95 and printed["by_file"][str(a)] == {"picks": 17, "right": 15, "given": 15,
                                                                           "given_right": 15}
    assert pick_threshold("tiny-model", out) == 0.95
    assert pick_threshold("vllm/tiny-model", out) == 0.95  # the LM's model string names it too
    assert pick_threshold("another-model", out) is None  # not fitted: every pick is given
    save_threshold("another-model", 0.5, out)
    assert pick_threshold("tiny-model", out) == 0.95 and pick_threshold("another-model", out) == 0.5
    with pytest.raises(SystemExit, match="at least two graphs"):
        main([str(a), "--model", "tiny-model", "--out", str(out)])
    (tmp_path / "bad.json").write_text("[1]", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.json: not a pick-confidence file"):
        pick_threshold("tiny-model", tmp_path / "bad.json")
