"""The eval harness: records, resume, summary and headline (DummyLM for control flow), and a
short real-model eval (3 questions x 2 arms, slow)."""

import json

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.cli import main
from glm_dspy.cli import eval_tables
from glm_dspy.evaluation.evaluate import (busy_seconds, headline, judge_cell, make_program, read_results, run_eval,
                                          summarize, write_charts)
from glm_dspy.modules.glm import DEFAULT_SAMPLES
from glm_dspy.graphs.questions import Question

QUESTIONS = [Question("q1", "When was the paper Notes on the Analytical Engine published?", "1843"),
             Question("q2", "Who wrote it?", "Ada Lovelace")]


def test_records_resume_and_summary(tiny_graph, tmp_path):
    with dspy.context(lm=DummyLM([{"answer": "1843"}, {"answer": "Babbage"}])):
        records = run_eval(QUESTIONS, ["base"], tiny_graph, tmp_path)
    assert [(r["qid"], r["answer"], r["em"]) for r in records] == [("q1", "1843", True), ("q2", "Babbage", False)]
    # no judge LM: no verdict (not "wrong"); DummyLM reports no engine calls, so no temperatures are claimed
    assert [(r["judge"], r["temperatures"], r["truncated_calls"]) for r in records] == [(None, [], 0)] * 2
    # untiered questions; the base arm writes no snippets: no Act requests
    assert [(r["tier"], r["act_requests"], r["act_first_try_ok"]) for r in records] == [("", 0, 0)] * 2
    assert all(r["started_at"] <= r["finished_at"] for r in records)
    # a torn last line (interrupted write) is dropped, and only missing pairs are run again
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    (tmp_path / "results.jsonl").write_text(lines[0] + "\n" + lines[1][:20])
    assert len(read_results(tmp_path / "results.jsonl")) == 1
    lm = DummyLM([{"answer": "Ada Lovelace"}])
    with dspy.context(lm=lm):
        records = run_eval(QUESTIONS, ["base"], tiny_graph, tmp_path)
    assert len(lm.history) == 1 and [r["em"] for r in records] == [True, True]
    rows = summarize(records, ["base"])
    assert rows["base"]["em"] == 1.0 and rows["base"]["calls"] == 1.0 and rows["base"]["n"] == 2
    assert (rows["base"]["em_lo"], rows["base"]["em_hi"], rows["base"]["first_try"]) == (1.0, 1.0, None)
    assert rows["base"]["em_by_tier"] == {"untiered": {"em": 1.0, "lo": 1.0, "hi": 1.0, "n": 2}}
    assert (rows["base"]["judge"], rows["base"]["judged"], judge_cell(rows["base"])) == (None, 0, "- (0/2)")
    assert headline({"glm": rows["base"]})["judge_glm"] is None
    assert headline(rows)["tokens_ratio"] is None  # no GLM / Graph-CoT arm
    assert all(p.exists() for p in write_charts(rows, tmp_path))


def test_a_failing_program_is_recorded_not_raised(tiny_graph, tmp_path):
    judge = DummyLM([])
    with dspy.context(lm=DummyLM([{"nonsense": "x"}] * 4)):
        records = run_eval(QUESTIONS, ["base"], tiny_graph, tmp_path, judge_lm=judge)
    assert all(r["error_category"] == "unexpected agent output" and r["answer"] == "" for r in records)
    assert [r["judge"] for r in records] == [False, False] and judge.history == []  # empty: wrong, without asking


def test_a_server_that_refuses_connections_stops_the_run_and_records_nothing(tiny_graph, tmp_path):
    """A dead server is no question's fault: the run stops (to be resumed), instead of recording
    every remaining question as an error."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    lm = dspy.LM("openai/any", api_base=f"http://127.0.0.1:{port}/v1", api_key="none", num_retries=0, cache=False)
    with dspy.context(lm=lm), pytest.raises(RuntimeError, match="run the same command again"):
        run_eval(QUESTIONS, ["base"], tiny_graph, tmp_path)
    assert read_results(tmp_path / "results.jsonl") == []


def test_judge_score_is_over_the_questions_with_a_verdict():
    records = [{"arm": "glm", "judge": verdict, "em": False, "rouge_l": 0.0, "latency_s": 1.0, "started_at": 0.0,
                "finished_at": 1.0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "calls": 1,
                "error_category": None} for verdict in (True, False, None, True)]
    row = summarize(records, ["glm"])["glm"]
    assert (row["judge"], row["judged"], judge_cell(row)) == (2 / 3, 3, "0.667 (3/4)")


def test_questions_per_second_is_over_wall_time_not_summed_latency():
    def record(started_at, latency_s):
        return {"arm": "glm", "judge": None, "em": False, "rouge_l": 0.0, "latency_s": latency_s,
                "started_at": started_at, "finished_at": started_at + latency_s, "prompt_tokens": 0,
                "completion_tokens": 0, "cached_tokens": 0, "calls": 1, "error_category": None}

    # --concurrency 2: four 2 s questions, two at a time, in 4.5 s of wall time (summed latency: 8 s)
    concurrent = [record(0, 2), record(0, 2), record(2, 2), record(2.5, 2)]
    assert summarize(concurrent, ["glm"])["glm"]["qps"] == 4 / 4.5
    # one at a time (with a pause between, e.g. another arm's question): the summed latencies
    assert summarize([record(0, 1), record(5, 1)], ["glm"])["glm"]["qps"] == 2 / 2
    # records written before `started_at` existed: started = finished - latency
    old = [{k: v for k, v in r.items() if k != "started_at"} for r in concurrent]
    assert summarize(old, ["glm"])["glm"]["qps"] == 4 / 4.5


def test_busy_seconds_is_the_length_of_the_union():
    assert busy_seconds([]) == 0.0
    assert busy_seconds([(0, 2), (1, 3), (5, 6), (5.5, 5.75)]) == 4.0
    assert busy_seconds([(3, 4), (0, 10)]) == 10.0


def test_headline_ratios():
    glm_tiers = {"single_hop": {"em": 2 / 3, "lo": 1 / 3, "hi": 1.0, "n": 3}}
    rows = {"glm": {"tokens": 100.0, "calls": 2.0, "p50_s": 1.0, "judge": 0.5, "em": 0.5, "em_lo": 0.25,
                    "em_hi": 0.75, "n": 4, "em_by_tier": glm_tiers, "first_try": 2 / 3, "prompt_tokens": 90.0,
                    "num_right": 2, "prompt_tokens_per_right": 180.0},
            "graphcot": {"tokens": 1000.0, "calls": 10.0, "p50_s": 4.0, "judge": 0.25, "em": 0.0, "em_lo": 0.0,
                         "em_hi": 0.0, "n": 4, "em_by_tier": {}, "first_try": None, "prompt_tokens": 950.0,
                         "num_right": 0, "prompt_tokens_per_right": None}}
    assert headline(rows) == {"tokens_ratio": 0.1, "calls_glm": 2.0, "calls_graphcot": 10.0, "latency_ratio": 0.25,
                              "judge_glm": 0.5, "judge_graphcot": 0.25, "em_glm": 0.5, "em_graphcot": 0.0,
                              "em_interval": {"glm": {"em": 0.5, "lo": 0.25, "hi": 0.75, "n": 4},
                                              "graphcot": {"em": 0.0, "lo": 0.0, "hi": 0.0, "n": 4}},
                              "em_by_tier": {"glm": {"single_hop": {"em": 0.6667, "lo": 0.3333, "hi": 1.0, "n": 3}},
                                             "graphcot": {}},
                              "first_try": {"glm": 0.6667, "graphcot": None},
                              "costs": {"glm": {"calls": 2.0, "prompt_tokens": 90.0, "num_right": 2,
                                                "prompt_tokens_per_right": 180.0},
                                        "graphcot": {"calls": 10.0, "prompt_tokens": 950.0, "num_right": 0,
                                                     "prompt_tokens_per_right": None}}}


def test_costs_per_arm_prompt_tokens_per_right_answer():
    def record(arm, em, calls, prompt_tokens):
        return {"arm": arm, "tier": "", "kind": "lookup", "em": em, "judge": None, "rouge_l": 0.0, "latency_s": 1.0,
                "started_at": 0.0, "finished_at": 1.0, "prompt_tokens": prompt_tokens, "completion_tokens": 7,
                "cached_tokens": 0, "calls": calls, "error_category": None}

    # glm: 1000 prompt tokens over 4 questions, 2 of them right; base: right on none
    records = [record("glm", True, 1, 100), record("glm", False, 2, 200), record("glm", True, 3, 300),
               record("glm", False, 4, 400), record("base", False, 1, 50), record("base", False, 1, 70)]
    rows = summarize(records, ["glm", "base"])
    assert {k: rows["glm"][k] for k in ("calls", "prompt_tokens", "num_right", "prompt_tokens_per_right", "tokens")} == {
        "calls": 2.5, "prompt_tokens": 250.0, "num_right": 2, "prompt_tokens_per_right": 500.0, "tokens": 257.0}
    assert (rows["base"]["prompt_tokens"], rows["base"]["num_right"], rows["base"]["prompt_tokens_per_right"]) == (
        60.0, 0, None)  # none right: no figure (not 0, not a division by zero)
    costs = headline(rows)["costs"]
    assert costs == {"glm": {"calls": 2.5, "prompt_tokens": 250.0, "num_right": 2, "prompt_tokens_per_right": 500.0},
                     "base": {"calls": 1.0, "prompt_tokens": 60.0, "num_right": 0, "prompt_tokens_per_right": None}}
    assert json.loads(json.dumps(headline(rows)))["costs"] == costs  # the last line stays plain JSON


def test_alternative_answers_count_as_exact_matches(tiny_graph, tmp_path):
    question = Question("q1", "Which nation?", "united_kingdom", ("united_kingdom", "england"))
    with dspy.context(lm=DummyLM([{"answer": "England"}])):
        [record] = run_eval([question], ["base"], tiny_graph, tmp_path)
    assert record["em"] and record["rouge_l"] == 1.0


def test_records_from_before_tiers_resume_with_the_tier_of_their_question(tiny_graph, tmp_path):
    tiered = [Question("q1", QUESTIONS[0].question, "1843", tier="single_hop"),
              Question("q2", QUESTIONS[1].question, "Ada Lovelace", tier="multi_hop")]
    old = {"qid": "q1", "arm": "glm", "question": tiered[0].question, "gold": "1843", "answer": "1843", "em": True,
           "rouge_l": 1.0, "judge": None, "latency_s": 1.0, "error_category": None, "prompt_tokens": 10,
           "cached_tokens": 0, "completion_tokens": 1, "calls": 2, "started_at": 0.0, "finished_at": 1.0}
    (tmp_path / "results.jsonl").write_text(json.dumps(old) + "\n")
    ghost = {"code": 'print(NodeInfo("ghost"))'}
    lm = DummyLM([{"kind": "deterministic"}, ghost, *[ghost] * DEFAULT_SAMPLES,  # the first try, then its samples
                  {"finished": True, "answer": "Ada Lovelace", "missing_information": ""}])
    with dspy.context(lm=lm):
        records = run_eval(tiered, ["glm"], tiny_graph, tmp_path)
    assert len(lm.history) == 3 + DEFAULT_SAMPLES  # only q2 was asked
    assert [(r["qid"], r["tier"], r.get("act_requests"), r.get("act_first_try_ok")) for r in records] == [
        ("q1", "single_hop", None, None), ("q2", "multi_hop", 1, 0)]  # q2: its snippet failed, Reason answered
    row = summarize(records, ["glm"])["glm"]
    # the old record counts for EM but not for the first-try share (its Act steps are unknown)
    assert row["em"] == 1.0 and (row["first_try"], row["act_requests"]) == (0.0, 1)
    assert {t: c["n"] for t, c in row["em_by_tier"].items()} == {"single_hop": 1, "multi_hop": 1}


def test_records_keep_the_kind_their_question_file_gives(tiny_graph, tmp_path):
    # natural_dev's questions have no tier but a "kind" (kept in Question.meta); a record from before
    # kinds were recorded takes its question's on resume
    kinded = [Question("q1", QUESTIONS[0].question, "1843", meta={"kind": "lookup", "shape": "year"}),
              Question("q2", QUESTIONS[1].question, "Ada Lovelace", meta={"kind": "set"})]
    old = {"qid": "q1", "arm": "base", "tier": "", "question": kinded[0].question, "gold": "1843", "answer": "1843",
           "em": True, "rouge_l": 1.0, "judge": None, "latency_s": 1.0, "error_category": None, "prompt_tokens": 10,
           "cached_tokens": 0, "completion_tokens": 1, "calls": 1, "started_at": 0.0, "finished_at": 1.0}
    (tmp_path / "results.jsonl").write_text(json.dumps(old) + "\n")
    with dspy.context(lm=DummyLM([{"answer": "Babbage"}])):
        records = run_eval(kinded, ["base"], tiny_graph, tmp_path)
    assert [(r["qid"], r["tier"], r["kind"]) for r in records] == [("q1", "", "lookup"), ("q2", "", "set")]
    assert read_results(tmp_path / "results.jsonl")[1]["kind"] == "set"  # written with the record
    cells = summarize(records, ["base"])["base"]["em_by_tier"]
    assert {kind: (cell["em"], cell["n"]) for kind, cell in cells.items()} == {"lookup": (1.0, 1), "set": (0.0, 1)}


def test_glm_questions_at_concurrency_4_are_each_recorded_once(tiny_graph, tmp_path):
    # six questions, one per node; the scripted reply is picked by the question in the prompt, so
    # it does not depend on which thread asks first. Classify, Act and Reason each read their fields.
    features = {"a1": ("name", "Ada Lovelace"), "a2": ("name", "Charles Babbage"), "a3": ("name", "O'Brien, Pat"),
                "p1": ("title", "Notes on the Analytical Engine"), "p2": ("title", "On Bernoulli Numbers"),
                "v1": ("name", "Scientific Memoirs")}
    tiers = ["single_hop", "multi_hop", "aggregation", "", "single_hop", "single_hop"]
    questions = [Question(f"q-{node_id}", f"What is the {feature} of node {node_id}?", answer, tier=tier)
                 for (node_id, (feature, answer)), tier in zip(features.items(), tiers)]
    replies = {f"node {node_id}?": {"kind": "deterministic", "code": f'print(NodeFeature("{node_id}", "{feature}"))'}
               for node_id, (feature, _) in features.items()}
    # one question whose snippet finds nothing: its repair repeats it, and Reason gives up
    questions.append(Question("q-ghost", "What is the name of node ghost?", "nobody"))
    replies["node ghost?"] = {"kind": "deterministic", "code": 'print(NodeFeature("ghost", "name"))',
                              "finished": "True", "answer": "unknown", "missing_information": ""}
    with dspy.context(lm=DummyLM(replies)):
        records = run_eval(questions, ["glm"], tiny_graph, tmp_path, concurrency=4)
    written = read_results(tmp_path / "results.jsonl")
    assert sorted(r["qid"] for r in written) == sorted(q.qid for q in questions)  # each once
    by_qid = {r["qid"]: r for r in records}
    for question in questions:  # no answer went to another question's record
        record = by_qid[question.qid]
        assert (record["question"], record["tier"]) == (question.question, question.tier)
        assert record["em"] == (question.qid != "q-ghost") and record["act_requests"] == 1
    assert by_qid["q-ghost"]["act_first_try_ok"] == 0 and by_qid["q-p1"]["act_first_try_ok"] == 1
    row = summarize(records, ["glm"])["glm"]
    assert row["first_try"] == 6 / 7 and row["em"] == 6 / 7
    assert {t: c["n"] for t, c in row["em_by_tier"].items()} == {"single_hop": 3, "multi_hop": 1, "aggregation": 1,
                                                                  "untiered": 2}
    # one snippet worker per concurrent question (they start on first use)
    assert make_program("glm", tiny_graph, concurrency=4).executor._slots.qsize() == 4
    assert make_program("glm", tiny_graph).executor._slots.qsize() == 2  # GLM's own default
    # the on/off arms: the same GLM with one option changed
    assert make_program("glm-greedy", tiny_graph).samples == 0 and make_program("glm", tiny_graph).samples > 0


def test_eval_tables_show_the_interval_first_try_and_tiers():
    from rich.console import Console

    records = [{"arm": arm, "tier": tier, "em": em, "judge": None, "rouge_l": 0.0, "latency_s": 1.0,
                "started_at": 0.0, "finished_at": 1.0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0,
                "calls": 1, "error_category": None, "act_requests": requests, "act_first_try_ok": ok}
               for arm, requests, ok in (("glm", 2, 1), ("base", 0, 0))
               for tier, em in (("single_hop", True), ("single_hop", True), ("multi_hop", False))]
    console = Console(width=200, record=True)
    for table in eval_tables(summarize(records, ["glm", "base"]), "t"):
        console.print(table)
    text = console.export_text()
    assert "0.667 [0.000, 1.000]" in text and "50.0% of 6" in text  # glm: EM, then 3 of 6 first tries
    assert "1.000 [1.000, 1.000] (n=2)" in text and "0.000 [0.000, 0.000] (n=1)" in text
    assert "aggregation" not in text and "untiered" not in text  # only the tiers asked


def test_eval_tables_show_costs_and_each_kind():
    from rich.console import Console

    # glm right on 2 of 3 at 1,200 prompt tokens each: 1,800 per right answer; base right on none
    records = [{"arm": arm, "tier": tier, "kind": kind, "em": arm == "glm" and kind != "set", "judge": None,
                "rouge_l": 0.0, "latency_s": 1.0, "started_at": 0.0, "finished_at": 1.0, "prompt_tokens": tokens,
                "completion_tokens": 0, "cached_tokens": 0, "calls": 3, "error_category": None}
               for arm, tokens in (("glm", 1200), ("base", 300))
               for tier, kind in (("", "set"), ("", "lookup"), ("multi_hop", ""))]
    console = Console(width=250, record=True)
    for table in eval_tables(summarize(records, ["glm", "base"]), "t"):
        console.print(table)
    lines = console.export_text().splitlines()
    [glm_row] = [line for line in lines if line.startswith("│ glm ") and "%" in line]
    [base_row] = [line for line in lines if line.startswith("│ base ") and "%" in line]
    assert "prompt/q" in "".join(lines) and "prompt/right" in "".join(lines)
    assert [cell.strip() for cell in glm_row.split("│")[8:10]] == ["1,200", "1,800"]  # prompt/q, prompt/right
    assert [cell.strip() for cell in base_row.split("│")[8:10]] == ["300", "-"]
    [header] = [line for line in lines if "multi_hop" in line]
    assert header.index("multi_hop") < header.index("lookup") < header.index("set")  # tiers first, kinds by name


@pytest.mark.slow
def test_real_model_eval_three_questions_two_arms(nobel_db, tmp_path, capsys):
    # Algorithm 1 (the readings, GLM's default, may answer with no call at all)
    code = main(["eval", "--dataset", "nobel", "--db", str(nobel_db), "--programs", "glm-no-readings,base", "--limit", "3",
                 "--judge-model", "qwen2.5-coder-0.5b", "--out", str(tmp_path)])
    assert code == 0
    head = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    # the Nobel graph has example queries: GLM's Act answers in Cypher, one call where its query works
    assert head["costs"]["glm-no-readings"]["calls"] >= 1 and head["tokens_ratio"] is None
    records = read_results(tmp_path / "results.jsonl")
    assert len(records) == 6 and {r["arm"] for r in records} == {"glm-no-readings", "base"}
    assert all(r["prompt_tokens"] > 0 for r in records)
    assert (tmp_path / "accuracy.png").exists()


def test_a_record_traces_each_step_and_marks_the_samples(tiny_graph, tmp_path):
    question = Question("q1", QUESTIONS[0].question, "1843")
    year = {"code": 'print(NodeFeature("p1", "year"))'}
    lm = DummyLM([{"kind": "deterministic"}, {"code": "print(1/0)"}, *[year] * DEFAULT_SAMPLES])
    with dspy.context(lm=lm):  # Algorithm 1's steps: the readings (GLM's default) would answer first
        [record] = run_eval([question], ["glm-no-readings"], tiny_graph, tmp_path)
    assert record["em"] and [step["agent"] for step in record["trace"]] == ["classify", "act", *["act"] * DEFAULT_SAMPLES]
    assert "ZeroDivisionError" in record["trace"][1]["error"] and "sampled" not in record["trace"][1]
    assert all(step["sampled"] and step["output"] == "1843" for step in record["trace"][2:])
