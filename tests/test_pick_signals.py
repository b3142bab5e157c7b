"""optimize/pick_signals.py: which signal of the choosers marks handed-on answers that are right."""

from __future__ import annotations

import json

import pytest

from glm_dspy.optimize.pick_signals import main


def _write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _records(tmp_path, name, n_agree, n_other):
    """n_agree questions where the pick and the judge both chose the best reading, which is right;
    n_other where they chose apart and only the judge was right."""
    picks, judges = [], []
    for i in range(n_agree + n_other):
        agree = i < n_agree
        base = {"question": f"q{i}", "handed_on": True, "guess_right": agree}
        picks.append({**base, "model_right": agree, "pick": "A" if agree else "B", "pick_is_best": agree,
                      "pick_probability": 0.2})
        judges.append({**base, "model_right": True, "pick": "A" if agree else "C", "pick_is_best": agree,
                       "pick_probability": 0.7})
    picks.append({"question": "not handed on", "handed_on": False, "guess_right": True})
    return _write(tmp_path / f"{name}.jsonl", picks), _write(tmp_path / f"j_{name}.jsonl", judges)


def test_a_signal_is_trusted_only_where_its_answers_are_right_with_confidence(tmp_path, capsys):
    files = [*_records(tmp_path, "a", 20, 10), *_records(tmp_path, "b", 20, 10)]
    result = main([str(f) for f in files])
    assert result["questions"] == 60  # the question not handed on is left out
    assert result["signals"]["both = best reading"] == {"marks": 40, "best": 40, "pick": 40, "judge": 40,
                                                         "trustworthy": True}
    assert result["signals"]["pick = best reading"]["trustworthy"]
    assert result["signals"]["handed on"]["best"] == 40 and result["signals"]["handed on"]["judge"] == 60
    few = main([str(f) for f in (*_records(tmp_path, "c", 3, 10), *_records(tmp_path, "d", 3, 10))])
    assert "both = best reading" not in few["trustworthy"]  # 6 of 6 right: too few to be sure of 90%


def test_files_come_in_pairs_of_at_least_two_sets(tmp_path):
    pick, judge = _records(tmp_path, "a", 2, 2)
    with pytest.raises(SystemExit, match="pairs"):
        main([str(pick), str(judge), str(pick)])
    with pytest.raises(SystemExit, match="at least two sets"):
        main([str(pick), str(judge)])
