"""bench/readings.py runs on a question file and ends with the JSON line docs/benchmarks.md quotes."""

from __future__ import annotations

import json

from glm_dspy.bench import readings


def test_the_readings_benchmark_counts_what_the_graph_reads(nobel_db, tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "In which city was Marie Curie born?", "answer": "Warsaw",
                                     "kind": "lookup"}) + "\n"
                         + json.dumps({"question": "Is it raining?", "answer": "no", "kind": "yes_no"}) + "\n")
    assert readings.main(["--questions", str(questions), "--db", str(nobel_db)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    last = json.loads(lines[-1])
    assert last["n"] == 2 and last["oracle@k"] == 0.5 and last["nearest"] == 0.5 and last["none"] == 0.5
    assert any(line.startswith("lookup") for line in lines) and last["model"] is None


def test_a_lever_to_turn_off_is_one_discriminate_has(nobel_db, tmp_path):
    import pytest

    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "Who?", "answer": "no"}) + "\n")
    with pytest.raises(SystemExit, match="no lever rankd"):
        readings.main(["--questions", str(questions), "--db", str(nobel_db), "--off", "rankd"])


def test_a_question_of_no_kind_counts_once(nobel_db, tmp_path, capsys):
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"question": "In which city was Marie Curie born?", "answer": "Warsaw"}) + "\n")
    assert readings.main(["--questions", str(questions), "--db", str(nobel_db)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["n"] == 1
