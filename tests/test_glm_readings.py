"""GLM's first lever (issue 31): the graph's readings of a question answer it before Algorithm 1.
Control flow only, with scripted DummyLM outputs over the real Nobel graph; what the levers are
worth is measured by `glm-dspy eval` (docs/benchmarks.md)."""

from __future__ import annotations

import math

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.modules.glm import GLM

QUESTION = "In which city was Marie Curie born?"


def run(program, answers, question=QUESTION):
    with dspy.context(lm=DummyLM(answers)):
        return program(question=question)


def reading_first(program):
    """`program` with its readings first whatever the bank holds."""
    program.bank_match = 2.0  # above any cosine
    return program


def agents(prediction):
    return [step["agent"] for step in prediction.steps]


def test_the_nearest_reading_answers_without_a_call(nobel_graph):
    prediction = run(reading_first(GLM(nobel_graph, compiled=None)), [])
    assert prediction.answer == "Warsaw" and prediction.num_calls == 0 and prediction.error_category is None
    assert agents(prediction) == ["graph", "graph"] and "rel_birth_city" in prediction.steps[-1]["code"]


def test_readings_off_is_algorithm_1_alone(nobel_graph):
    assert GLM(nobel_graph, compiled=None).readings is not None  # on by default
    program = GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0,
                  readings=False)
    prediction = run(program, [{"code": 'print("Paris")'}])
    assert agents(prediction)[0] == "act" and program.readings is None


def test_a_bank_form_question_whose_query_fails_takes_the_readings_next(nobel_graph):
    program = GLM(nobel_graph, compiled=None, act="cypher", samples=0, max_steps=1)
    assert not program._reads(QUESTION)  # the bank holds its form: generation first
    program.cypher.max_repairs = 0
    date = "MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.birth_date"  # a date for "in which city"
    every = {"cypher": date, "code": "print(1/0)", "answer": "", "missing_information": "more", "finished": False}
    prediction = run(program, [every] * 8)
    assert prediction.answer == "Warsaw" and agents(prediction)[0] == "cypher"
    assert "rel_birth_city" in prediction.steps[-1]["code"]  # the reading that answered
    # ... before any more generation: no Python snippet, no Reason
    assert not {"act", "reason"} & set(agents(prediction)) and prediction.num_calls == 1


def test_a_question_the_bank_holds_in_its_form_goes_to_algorithm_1(nobel_graph):
    program = GLM(nobel_graph, compiled=None, act="cypher")
    assert program.cypher.form_similarity(QUESTION) > program.bank_match  # the bank asks "In which city was X born?"
    assert not program._reads(QUESTION)
    assert program._reads("Name the town Marie Curie came into the world in, please.")


def test_an_unknown_readings_option_is_refused(nobel_graph):
    for stale in ("nearest", "model", None):  # the chooser is not GLM's to pick; off is False
        with pytest.raises(ValueError, match="readings must be True or False"):
            GLM(nobel_graph, compiled=None, readings=stale)


def test_a_part_reason_asks_for_is_answered_by_a_reading_without_a_call(nobel_graph):
    question = "Was Marie Curie a good teacher?"  # one stated thing: no reading answers the whole question
    ask = {"code": 'print("x")', "answer": "", "missing_information": QUESTION, "finished": False}
    done = {"code": 'print("x")', "answer": "no", "missing_information": "", "finished": True}
    program = reading_first(GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0))
    prediction = run(program, [ask, ask, done], question)
    assert agents(prediction) == ["act", "reason", "graph", "graph", "reason"]  # the part read, no Act call
    assert "Warsaw" in prediction.notebook and prediction.answer == "no"


def test_a_printed_truth_answers_a_yes_no_question_in_its_words(nobel_graph):
    program = GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0, readings=False)
    code = 'print(len(NeighbourCheck(RetrieveNode("Marie Curie"), "prize")) > 5)'
    prediction = run(program, [{"code": code}], "Did Marie Curie win more than five prizes?")
    assert prediction.answer == "no" and prediction.error_category is None
    assert run(program, [{"code": code}], "How did Marie Curie fare?").answer == "False"  # not a yes/no question


def test_a_reading_that_is_not_sure_hands_the_question_to_the_agents_then_says_not_sure(nobel_graph):
    """Below the confidence's threshold the agents decide (glm_dspy/readings/confidence.py); where
    they answer nothing, the answer is "not sure" with the best reading's guess, never the guess
    as a fact. Control flow: a confidence no answer reaches, scripted agents."""
    from glm_dspy.readings.confidence import FEATURES, Confidence

    program = reading_first(GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0,
                                max_steps=1, unsure="agents"))
    program.readings.confidence = Confidence(dict.fromkeys(FEATURES, 0.0), 0.0, threshold=0.99)  # p = 0.5
    nothing = {"code": 'print("")', "answer": "", "missing_information": "all", "finished": False}
    prediction = run(program, [nothing] * 8)
    assert prediction.answer == "" and prediction.error_category == "not sure"
    assert prediction.guess == "Warsaw" and "act" in agents(prediction)
    assert any("not sure: the best reading" in (step.get("output") or "") for step in prediction.steps)

    paris = {"code": 'print("Paris")', "answer": "Paris", "missing_information": "", "finished": True}
    answered = run(program, [paris] * 8)  # the agents answer: theirs, the difference said
    assert answered.answer == "Paris" and answered.error_category is None and answered.guess is None
    assert any("differs from the best reading's" in (step.get("output") or "") for step in answered.steps)

    program.readings.confidence = Confidence(dict.fromkeys(FEATURES, 0.0), 0.0, threshold=0.4)  # p = 0.5: sure
    assert run(program, []).answer == "Warsaw"


def test_a_reading_that_is_not_sure_is_first_chosen_among_the_readings_by_the_model(nobel_graph):
    """Below the threshold, by default, the model picks among the readings shown (one constrained
    call; glm_dspy/modules/discriminate.py `choose_among`): its pick answers, with no agent; "none of
    these" (0) hands the question to the agents. Control flow: scripted replies."""
    from glm_dspy.readings.confidence import FEATURES, Confidence

    program = reading_first(GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0,
                                max_steps=1))
    program.readings.confidence = Confidence(dict.fromkeys(FEATURES, 0.0), 0.0, threshold=0.99)  # p = 0.5
    chosen = run(program, [{"choice": "1"}])
    assert chosen.answer == "Warsaw" and chosen.num_calls == 1 and chosen.error_category is None
    assert agents(chosen)[-2:] == ["choose", "graph"] and chosen.kind == "chosen"
    assert any("the model chose reading 1" in (step.get("output") or "") for step in chosen.steps)

    paris = {"code": 'print("Paris")', "answer": "Paris", "missing_information": "", "finished": True}
    none = run(program, [{"choice": "0"}] + [paris] * 8)
    assert none.answer == "Paris" and "act" in agents(none) and none.kind == "deterministic"
    assert any("chose none of the readings" in (step.get("output") or "") for step in none.steps)


def test_a_pick_the_model_is_not_sure_of_says_not_sure_with_the_pick_beside_it(nobel_graph, monkeypatch):
    """A pick below the model's fitted threshold (glm_dspy/readings/pick_confidence.py) is not
    given as a fact: "not sure", the pick as the guess, no agents. At or above it, it answers.
    Control flow: the pick's probability scripted (the engine's is tested in test_end_to_end)."""
    import glm_dspy.modules.discriminate as discriminate
    from glm_dspy.readings.confidence import FEATURES, Confidence

    class Scripted(dspy.Module):
        def __init__(self, probability):
            super().__init__()
            self.probability = probability

        def forward(self, *, options, config=None, **inputs):
            assert options == [str(i) for i in range(len(options))]
            return dspy.Prediction(choice="1", probability=self.probability)

    program = reading_first(GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0,
                                max_steps=1))
    program.readings.confidence = Confidence(dict.fromkeys(FEATURES, 0.0), 0.0, threshold=0.99)  # p = 0.5
    monkeypatch.setattr(discriminate, "pick_threshold", lambda model, **_: 0.6)
    program.readings.choose = Scripted(0.3)
    unsure = run(program, [])
    assert unsure.answer == "" and unsure.error_category == "not sure" and unsure.guess == "Warsaw"
    assert "act" not in agents(unsure) and unsure.kind == "chosen"
    assert any("not sure: the model picked" in (step.get("output") or "") for step in unsure.steps)
    program.readings.choose = Scripted(0.8)
    sure = run(program, [])
    assert sure.answer == "Warsaw" and sure.error_category is None
    assert any("below its threshold" not in (step.get("output") or "") and "0.80" in (step.get("output") or "")
               for step in sure.steps)


def test_the_probability_of_a_choice_is_among_the_options_only():
    from types import SimpleNamespace as T

    from glm_dspy.modules.confident_choice import choice_probability

    header = T(token="[[", logprob=0.0, top_logprobs=[])
    digit = T(token="2", logprob=math.log(0.5), top_logprobs=[
        T(token="2", logprob=math.log(0.5)), T(token="1", logprob=math.log(0.25)), T(token="$", logprob=math.log(0.2))])
    # "$" is not an option (a server scores before the grammar's mask): 0.5 / (0.5 + 0.25)
    assert choice_probability([header, digit], "2", ["0", "1", "2"]) == pytest.approx(2 / 3)
    assert choice_probability([header, digit], "1", ["0", "1", "2"]) is None  # no token of the reply is "1"
    assert choice_probability([header, T(token="2", logprob=-0.1, top_logprobs=None)], "2", ["0", "2"]) == 1.0


def test_an_unknown_unsure_option_is_refused(nobel_graph):
    with pytest.raises(ValueError, match="unsure must be"):
        GLM(nobel_graph, compiled=None, unsure="guess")


def test_a_model_whose_picks_cannot_be_sure_is_not_asked_to_pick(nobel_graph, monkeypatch):
    """Where no pick of the model reached the target where it was fitted (its threshold above 1,
    glm_dspy/readings/pick_confidence.py), an unsure best reading answers "not sure" with the best
    reading beside it, and no LLM is called (the scripted LM holds no reply: a call would fail)."""
    import glm_dspy.modules.discriminate as discriminate
    from glm_dspy.readings.confidence import FEATURES, Confidence

    program = reading_first(GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0,
                                max_steps=1))
    program.readings.confidence = Confidence(dict.fromkeys(FEATURES, 0.0), 0.0, threshold=0.99)  # p = 0.5
    monkeypatch.setattr(discriminate, "picks_can_be_sure", lambda model, **_: False)
    unsure = run(program, [])
    assert unsure.answer == "" and unsure.error_category == "not sure" and unsure.guess == "Warsaw"
    assert set(agents(unsure)) == {"graph"}  # the readings only: no agent, no call
    assert any("is not asked to pick" in (step.get("output") or "") for step in unsure.steps)


def test_picks_can_be_sure_reads_the_fitted_threshold(tmp_path):
    from glm_dspy.readings.pick_confidence import picks_can_be_sure, save_threshold

    out = tmp_path / "pick.json"
    assert picks_can_be_sure("tiny-model", out)  # nothing fitted: picks are given
    save_threshold("tiny-model", math.nextafter(1.0, 2.0), out)
    save_threshold("other-model", 0.4, out)
    assert not picks_can_be_sure("tiny-model", out) and picks_can_be_sure("other-model", out)


def test_the_judge_picks_the_reading_it_finds_likeliest(nobel_graph, monkeypatch):
    """unsure="judge": one yes/no judgement for each of the first readings shown, the one of
    highest P(yes) the pick, at that probability against the judge's own threshold. Control flow:
    the judgements scripted (their logprobs on the real engine: test_end_to_end)."""
    import glm_dspy.modules.discriminate as discriminate
    from glm_dspy.modules.reading_judge import JUDGED, best_judged
    from glm_dspy.readings.confidence import FEATURES, Confidence

    asked = []

    class Scripted(dspy.Module):
        def forward(self, *, options, config=None, question, reading):
            assert options == ["yes", "no"]
            asked.append(reading)
            # the second reading judged likeliest; the third said "no" at 0.9: P(yes) 0.1
            return dspy.Prediction(fits="no" if len(asked) == 3 else "yes",
                                   probability={2: 0.8, 3: 0.9}.get(len(asked), 0.6))

    program = reading_first(GLM(nobel_graph, compiled=None, act="python", kind="deterministic", samples=0,
                                max_steps=1, unsure="judge"))
    program.readings.confidence = Confidence(dict.fromkeys(FEATURES, 0.0), 0.0, threshold=0.99)  # p = 0.5
    program.readings.judge_each.judge = Scripted()
    chooser = []
    monkeypatch.setattr(discriminate, "pick_threshold", lambda model, chooser_=None, **kw: chooser.append(kw) or 0.7)
    judged = run(program, [])
    assert 2 <= len(asked) <= JUDGED and chooser == [{"chooser": "judge"}]
    shown = program.readings.judge(QUESTION, __import__("glm_dspy.runs.steps", fromlist=["StepLog"]).StepLog()).shown
    assert asked[1].startswith(shown[1][0].words())  # each reading in its words, best first
    assert judged.kind == "chosen" and judged.error_category is None and judged.answer == ", ".join(shown[1][1][:discriminate.MAX_VALUES])
    assert any("chose reading 2" in (step.get("output") or "") and "0.80" in step["output"] for step in judged.steps)
    assert best_judged([0.6, None, 0.6]) == 0 and best_judged([None, None]) is None and best_judged([0.1, 0.3]) == 1
