"""glm_dspy.optimize.metric: EM plus Classify's label and Act's first-try success, read off GLM's step log."""

import dspy

from glm_dspy.optimize.metric import Signals, act_attempts, feedback_score, score, signals

GOOD = 'print(NodeFeature(RetrieveNode("Marie Curie"), "birth_date"))'
BAD = 'print(NodeFeature(RetrieveNode("Marie Curie"), "born"))'
# one deterministic try that failed and was repaired, then (non-deterministic path) a request whose
# only snippet printed an observation and fell back to the chunks, then a clean request
STEPS = [
    {"agent": "classify"},
    {"agent": "act", "code": BAD, "output": "", "error": "NameError: x"},
    {"agent": "act", "code": GOOD, "output": "1867-11-07", "error": None},
    {"agent": "reason"},
    {"agent": "act", "code": BAD, "output": "feature 'born' not found; features: birth_date", "error": None},
    {"agent": "graph", "code": "print(NodeInfo(['l1']))", "output": "[Node:l1 ...]", "error": None},
    {"agent": "reason"},
    {"agent": "act", "code": GOOD, "output": "1867-11-07", "error": None},
]


def example(tier="single_hop"):
    return dspy.Example(question="When was Marie Curie born?", answer="1867-11-07",
                        golds=["1867-11-07", "7 November 1867"], tier=tier).with_inputs("question")


def prediction(answer="7 November 1867", kind="deterministic", steps=STEPS):
    return dspy.Prediction(answer=answer, kind=kind, steps=steps)


def test_act_attempts_groups_repairs_under_their_request_and_reads_fallbacks_as_failures():
    assert act_attempts(STEPS) == [[False, True], [False], [True]]
    assert act_attempts([{"agent": "classify"}]) == []
    repeated = [{"agent": "act", "code": BAD, "output": "", "error": "x"},
                {"agent": "act", "code": BAD, "output": None, "error": "repeated the failing snippet; not run again"}]
    assert act_attempts(repeated) == [[False, False]]


def test_signals_em_against_any_gold_label_from_the_tier_and_act_first_try():
    assert signals(example(), prediction()) == Signals(em=True, classify_ok=True, act_first_try=1 / 3)
    assert signals(example(), prediction(answer="1868", kind="non_deterministic")) == Signals(False, False, 1 / 3)
    assert signals(example(tier=""), prediction()).classify_ok is None  # no tier, no label to check
    no_classify = [s for s in STEPS if s["agent"] != "classify"]
    assert signals(example(), prediction(steps=no_classify)).classify_ok is None  # GLM(kind=...) skips Classify
    assert signals(example(), None) == Signals(False, None, None)  # a run that raised


def test_score_weighs_em_and_gives_a_missing_signal_to_em():
    assert Signals(True, True, 1.0).score == 1.0
    assert Signals(True, None, None).score == 1.0
    assert Signals(True, False, 0.5).score == 0.85
    assert Signals(False, True, 1.0).score == 0.2
    assert Signals(False, None, 0.5).score == 0.05
    assert score(example(), prediction()) == round(0.8 + 0.1 + 0.1 / 3, 6)


def test_with_a_trace_only_clean_runs_pass():
    clean = [{"agent": "classify"}, {"agent": "act", "code": GOOD, "output": "1867-11-07", "error": None}]
    assert score(example(), prediction(steps=clean), trace=[]) is True
    assert score(example(), prediction(), trace=[]) is False  # right answer, but snippets failed on the way
    assert score(example(), prediction(steps=clean, kind="non_deterministic"), trace=[]) is False
    assert score(example(), prediction(answer="1868", steps=clean), trace=[]) is False


def test_feedback_names_what_the_agent_got_wrong():
    wrong = prediction(answer="1868", kind="non_deterministic")
    act = feedback_score(example(), wrong, None, "act.predict", None)
    assert act.score == score(example(), wrong)
    assert "wrong; the expected answer is '1867-11-07'" in act.feedback
    assert f"Snippet:\n{BAD}\n-> failed (NameError: x)" in act.feedback
    assert f"Snippet:\n{GOOD}\n-> ran and returned a result; output: '1867-11-07'" in act.feedback
    classify = feedback_score(example(), wrong, None, "classify.predict", None)
    assert "The right kind is deterministic; the label given was non_deterministic." in classify.feedback
    assert "Snippet" not in classify.feedback


# Act in Cypher: steps that say their attempt and outcome (glm_dspy.runs.steps.Step)
QUERY = "MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.birth_date"
CYPHER_STEPS = [
    {"agent": "classify"},
    {"agent": "cypher", "attempt": 0, "ok": False, "code": "MATCH (l:laureate) RETURN l.born", "error": "Binder exception"},
    {"agent": "cypher", "attempt": 1, "ok": True, "code": QUERY, "error": None},
    {"agent": "graph", "code": f"EXPLAIN {QUERY}", "output": ""},
    {"agent": "graph", "code": QUERY, "output": "l.birth_date: 1867-11-07"},
    {"agent": "cypher", "attempt": 0, "ok": True, "code": QUERY, "error": None},
]


def test_tries_that_say_their_outcome_are_read_as_eval_reads_them():
    from glm_dspy.runs.steps import act_first_tries

    assert act_attempts(CYPHER_STEPS) == [[False, True], [True]]
    requests = act_attempts(CYPHER_STEPS)
    assert (len(requests), sum(r[0] for r in requests)) == act_first_tries(CYPHER_STEPS)
    assert signals(example(), prediction(steps=CYPHER_STEPS)).act_first_try == 0.5


def test_feedback_on_a_cypher_agent_shows_each_query_and_its_rows():
    from glm_dspy.optimize.metric import agent_of

    assert agent_of("program.cypher.generate") == "cypher" and agent_of("act.predict") == "act"
    assert agent_of("program.plan") == ""
    found = feedback_score(example(), prediction(answer="1868", steps=CYPHER_STEPS), None, "program.cypher.generate")
    assert "Cypher query:\nMATCH (l:laureate) RETURN l.born\n-> failed (Binder exception)" in found.feedback
    assert f"Cypher query:\n{QUERY}\n-> ran and returned a result; output: 'l.birth_date: 1867-11-07'" in found.feedback
