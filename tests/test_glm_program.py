"""GLM's control flow (Algorithm 1) with scripted DummyLM outputs, over the real tiny graph.

DummyLM proves branching and stopping only; nothing here says anything about answer quality.
"""

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.modules.glm import GLM, SAMPLE_TEMPERATURE
from glm_dspy.runs.steps import RETRIEVAL_ERROR, STEP_LIMIT, UNEXPECTED_OUTPUT, act_first_tries

P1_YEAR = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'


GHOST = {"code": 'print(NodeInfo("ghost"))'}  # a snippet that finds nothing


@pytest.fixture
def program(tiny_graph):
    return GLM(tiny_graph, readings=False, max_steps=3, samples=0)


def run(program, answers, question="q?"):
    lm = DummyLM(answers)
    with dspy.context(lm=lm):
        return program(question=question), lm


def reason(finished, answer="", missing=""):
    return {"finished": finished, "answer": answer, "missing_information": missing}


def agents(prediction):
    return [step["agent"] for step in prediction.steps]


def last_user_message(lm, call):
    return lm.history[call]["messages"][-1]["content"]


def test_deterministic_path_prints_the_answer(program):
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": P1_YEAR}])
    assert prediction.answer == "1843" and prediction.kind == "deterministic"
    assert agents(prediction) == ["classify", "act"] and prediction.num_calls == 2
    assert prediction.steps[1]["output"] == "1843" and prediction.error_category is None


def test_a_deterministic_snippet_that_prints_a_chunk_leaves_the_answer_to_reason(program, tiny_graph):
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": 'print(NodeInfo("p1"))'},
                                  reason(True, answer="1843")])
    assert agents(prediction) == ["classify", "act", "reason"] and prediction.answer == "1843"
    assert prediction.notebook == tiny_graph.retriever.node_info("p1")


def test_act_first_opens_the_loop_with_act_on_the_question(tiny_graph):
    question = "Who wrote Notes on the Analytical Engine, and when?"
    prediction, lm = run(GLM(tiny_graph, readings=False, samples=0), [
        {"kind": "non_deterministic"},
        {"code": 'print(NodeInfo(RetrieveNode("Notes on the Analytical Engine")))'},
        reason(True, answer="Ada Lovelace, 1843"),
    ], question=question)
    assert agents(prediction) == ["classify", "act", "reason"] and prediction.num_calls == 3
    assert question in last_user_message(lm, 1)  # Act's request is the question itself
    assert prediction.notebook == tiny_graph.retriever.node_info("p1")
    assert prediction.answer == "Ada Lovelace, 1843"


def test_iterative_path_grows_the_notebook(program, tiny_graph):
    prediction, lm = run(program, [
        {"kind": "non_deterministic"},
        {"code": 'print(NodeInfo("p1"))'},  # Act on the question opens the loop
        reason(False, missing="author a3"),
        {"code": 'print(NodeInfo("a3"))'},
        reason(True, answer="Ada Lovelace"),
    ])
    assert prediction.answer == "Ada Lovelace"
    assert agents(prediction) == ["classify", "act", "reason", "act", "reason"]
    p1, a3 = tiny_graph.retriever.node_info("p1"), tiny_graph.retriever.node_info("a3")
    assert prediction.notebook == f"{p1}\n\n{a3}"
    # the notebook comes first in Reason's input and only grows: each prompt extends the last
    first, second = (last_user_message(lm, i) for i in (2, 4))
    assert first.startswith(f"[[ ## notebook ## ]]\n{p1}")
    assert second.startswith(f"[[ ## notebook ## ]]\n{p1}\n\n{a3}")
    assert lm.history[2]["messages"][:-1] == lm.history[4]["messages"][:-1]


def test_a_failing_snippet_says_why_and_the_notebook_loop_takes_over(program):
    broken = 'print(NodeFeature("p1", "year") + undefined)'  # nothing autofix can mend
    prediction, lm = run(program, [{"kind": "deterministic"}, {"code": broken}, reason(True, answer="unknown")])
    assert agents(prediction) == ["classify", "act", "reason"] and prediction.answer == "unknown"
    assert "NameError" in prediction.steps[1]["error"] and prediction.steps[1]["ok"] is False
    assert len(lm.history) == 3  # Act is not asked to repair its snippet


def test_failed_lookup_leaves_the_chunks_of_the_nodes_it_found(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0)
    wrong_feature = {"code": 'ada = RetrieveNode("Ada Lovelace")\nprint(NodeFeature(ada, "colour"))'}
    prediction, lm = run(program, [{"kind": "deterministic"}, wrong_feature, reason(True, answer="1815")])
    ada = tiny_graph.retriever.node_info(tiny_graph.retriever.retrieve_node("Ada Lovelace"))
    assert agents(prediction) == ["classify", "act", "graph", "reason"]
    assert "has no feature 'colour'" in prediction.steps[1]["output"]
    assert prediction.steps[2]["num_calls"] == 0 and prediction.steps[2]["output"] == ada
    assert prediction.notebook == ada
    assert last_user_message(lm, 2).startswith(f"[[ ## notebook ## ]]\n{ada}")
    assert prediction.answer == "1815" and prediction.num_calls == 3


def test_one_deadline_ends_the_question_and_the_step_log_says_so(tiny_graph):
    """A Reason that never finishes and a Python Act whose snippets take time: the question ends
    at its deadline, not after max_steps, with the deadline's step last."""
    program = GLM(tiny_graph, readings=False, max_steps=50, samples=0, question_timeout_s=1.0)
    slow = 'for i in range(3000000):\n    pass\nprint(NodeInfo("a1"))'
    steps = [[reason(False, missing=f"more {n}"), {"code": slow}] for n in range(50)]
    import time

    started = time.monotonic()
    prediction, _ = run(program, [{"kind": "non_deterministic"}, {"code": slow}, *sum(steps, [])])
    assert time.monotonic() - started < 1.0 + 5  # the snippet running at the deadline ends by its own limit
    assert prediction.error_category == "time limit exceeded" and prediction.answer == ""
    assert "time limit (1 s) passed" in prediction.steps[-1]["error"]
    assert agents(prediction).count("reason") < 50


def test_step_limit(program):
    steps = [[reason(False, missing=f"more {n}"), {"code": f'print(NodeInfo("a{n}"))'}] for n in (1, 2, 3)]
    prediction, _ = run(program, [{"kind": "non_deterministic"}, {"code": 'print(NodeInfo("p1"))'}, *sum(steps, [])])
    assert prediction.error_category == STEP_LIMIT and prediction.answer == ""
    assert agents(prediction).count("reason") == 3


def test_unparseable_output_is_retried_once_then_recorded(program):
    garbage = {"nonsense": "I think the answer is 42"}
    prediction, _ = run(program, [{"kind": "deterministic"}, garbage, garbage])
    assert prediction.error_category == UNEXPECTED_OUTPUT and prediction.answer == ""
    assert prediction.steps[-1]["num_calls"] == 2
    assert prediction.steps[-1]["error"].startswith(UNEXPECTED_OUTPUT)


def test_unreadable_classification_takes_the_general_path(program):
    prediction, _ = run(program, [{"nonsense": "?"}, {"nonsense": "?"}, {"code": P1_YEAR}, reason(True, answer="x")])
    assert prediction.kind == "non_deterministic" and prediction.answer == "x"


def test_snippet_that_prints_nothing_is_an_error(program):
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": "x = 1"}, reason(True, answer="a")])
    assert prediction.steps[1]["output"] == "" and prediction.steps[1]["error"].startswith("the snippet printed nothing")
    assert agents(prediction) == ["classify", "act", "reason"]


def test_retrieval_error_is_categorized_and_recorded(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, max_steps=1)
    prediction, _ = run(program, [{"kind": "non_deterministic"}, GHOST, reason(False, missing="m"), GHOST])
    assert prediction.error_category == RETRIEVAL_ERROR and prediction.answer == ""
    assert "no node with id 'ghost'" in prediction.steps[-1]["error"]  # the step says what the graph answered
    assert prediction.notebook == "(nothing found for: q?)\n\n(nothing found for: m)"


def test_an_observation_in_an_f_string_is_still_an_observation(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, max_steps=1)
    labelled = {"code": 'print(f"year: {NodeFeature(\'p1\', \'colour\')}")'}
    prediction, _ = run(program, [{"kind": "deterministic"}, labelled, reason(False, missing="m"), labelled])
    assert prediction.steps[1]["output"].startswith("year: paper node p1 has no feature 'colour'")
    assert agents(prediction) == ["classify", "act", "reason", "act"]  # not taken as the answer


def test_a_result_that_reads_like_an_observation_is_the_answer(program):
    code = 'print(NodeFeature("a1", "name") + " has no feature films; no node with id \'x\'")'
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": code}])
    assert prediction.answer == "Ada Lovelace has no feature films; no node with id 'x'"
    assert agents(prediction) == ["classify", "act"] and prediction.error_category is None


def test_asking_again_for_what_failed_stops_the_loop(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, max_steps=5)
    prediction, _ = run(program, [{"kind": "non_deterministic"}, GHOST, reason(False, missing="m"), GHOST,
                                  reason(False, missing="m")])
    assert agents(prediction) == ["classify", "act", "reason", "act", "reason"]
    assert prediction.error_category == RETRIEVAL_ERROR


def test_an_answer_with_nothing_left_to_retrieve_ends_the_loop(program):
    prediction, _ = run(program, [{"kind": "non_deterministic"}, GHOST, reason(False, answer="Ada", missing="None")])
    assert prediction.answer == "Ada" and agents(prediction) == ["classify", "act", "reason"]


def test_asking_again_for_what_was_found_takes_the_answer_given(program):
    step = [reason(False, answer="Ada", missing="author a3"), {"code": 'print(NodeInfo("a3"))'}]
    prediction, _ = run(program, [{"kind": "non_deterministic"}, GHOST, *step, step[0]])
    assert prediction.answer == "Ada" and prediction.error_category is None
    assert agents(prediction) == ["classify", "act", "reason", "act", "reason"]


def test_an_answer_found_in_the_notebook_ends_the_loop(program, tiny_graph):
    chunk = tiny_graph.retriever.node_info("p1")
    year = tiny_graph.retriever.node_feature("p1", "year")
    prediction, _ = run(program, [
        {"kind": "non_deterministic"}, GHOST,
        reason(False, answer="1900", missing="the paper"),  # not in the notebook: go on
        {"code": 'print(NodeInfo("p1"))'},
        reason(False, answer=str(year), missing="more about the paper"),
    ])
    assert str(year) in chunk and prediction.answer == str(year)
    assert agents(prediction) == ["classify", "act", "reason", "act", "reason"]


def test_a_value_is_labelled_with_what_was_asked(tiny_graph):
    question = "When was Notes on the Analytical Engine published?"
    prediction, lm = run(GLM(tiny_graph, readings=False, samples=0), [
        {"kind": "non_deterministic"}, {"code": P1_YEAR}, reason(True, answer="1843"),
    ], question=question)
    assert prediction.notebook == f"{question} -> 1843"
    assert last_user_message(lm, 2).startswith(f"[[ ## notebook ## ]]\n{question} -> 1843")


def test_the_same_output_asked_for_in_other_words_goes_in_once(program, tiny_graph):
    prediction, _ = run(program, [
        {"kind": "non_deterministic"}, {"code": 'print(NodeInfo("p1"))'},
        reason(False, missing="the paper p1"), {"code": 'print(NodeInfo("p1"))'},
        reason(True, answer="x"),
    ])
    assert prediction.notebook == tiny_graph.retriever.node_info("p1")


def test_an_answer_found_only_in_a_request_is_not_grounded(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, max_steps=2)
    prediction, _ = run(program, [
        {"kind": "non_deterministic"}, GHOST,
        reason(False, missing="the year of Notes on the Analytical Engine"), {"code": P1_YEAR},
        reason(False, answer="Notes on the Analytical Engine", missing="its author"),
        {"code": 'print(1/0)'},
    ])
    # the answer appears in the notebook only as part of what was asked: not accepted
    assert agents(prediction) == ["classify", "act", "reason", "act", "reason", "act"]



def test_a_given_kind_skips_classify(tiny_graph):
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=0, kind="deterministic"), [{"code": P1_YEAR}])
    assert agents(prediction) == ["act"] and prediction.answer == "1843" and prediction.kind == "deterministic"
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=0, kind="non_deterministic"), [{"code": P1_YEAR}, reason(True, answer="1843")])
    assert agents(prediction) == ["act", "reason"]


def attempts(prediction):
    """(agent, attempt, ok) of every step."""
    return [(step["agent"], step["attempt"], step["ok"]) for step in prediction.steps]


def test_act_steps_say_which_try_they_are_and_whether_it_printed_a_result(program):
    broken = 'print(NodeFeature("p1", "year") + undefined)'
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": broken}, reason(True, answer="x")])
    assert attempts(prediction) == [("classify", 0, None), ("act", 0, False), ("reason", 0, None)]
    assert act_first_tries(prediction.steps) == (1, 0)  # one request; its first snippet failed
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": P1_YEAR}])
    assert act_first_tries(prediction.steps) == (1, 1)


def test_first_tries_count_each_new_request(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, max_steps=3)
    prediction, _ = run(program, [
        {"kind": "non_deterministic"},
        GHOST,                                   # the question: found nothing
        reason(False, missing="the paper p1"),
        {"code": 'print(NodeInfo("p1"))'},       # a new request, right the first time
        reason(False, missing="its year"),
        {"code": "print(1/0)"},                  # an error
        reason(True, answer="1843"),
    ])
    assert [a for a in attempts(prediction) if a[0] == "act"] == [("act", 0, False), ("act", 0, True), ("act", 0, False)]
    assert act_first_tries(prediction.steps) == (3, 1)


def test_unparseable_act_output_is_a_failed_first_try(program):
    garbage = {"nonsense": "I think the answer is 42"}
    prediction, _ = run(program, [{"kind": "deterministic"}, garbage, garbage])
    assert attempts(prediction)[-1] == ("act", 0, False) and act_first_tries(prediction.steps) == (1, 0)


def test_steps_recorded_before_attempts_existed_are_not_counted():
    old = {"agent": "act", "code": "print(1)", "output": "1", "error": None}
    graph = {"agent": "graph", "attempt": 0, "ok": None}
    assert act_first_tries([old, graph]) == (0, 0)
    assert act_first_tries([old | {"attempt": 0, "ok": True}, old | {"attempt": 1, "ok": True}]) == (1, 1)


def test_a_mechanical_mistake_is_fixed_without_an_llm_call(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0)
    broken = 'paper = RetrieveNode("Notes on the Analytical Engine")\nprint(NodeFeatur(papers, "years"))'
    prediction, lm = run(program, [{"kind": "deterministic"}, {"code": broken}])
    assert prediction.answer == "1843" and agents(prediction) == ["classify", "act", "graph"]
    assert prediction.num_calls == 2 and len(lm.history) == 2
    assert prediction.steps[2]["code"] == ("paper = RetrieveNode('Notes on the Analytical Engine')\n"
                                          "print(NodeFeature(paper, 'year'))")
    assert act_first_tries(prediction.steps) == (1, 0)  # Act's own first try still failed


@pytest.mark.parametrize("code", ["print([])", "print(set())\nprint(None)",
                                  'print(NodeFeature(RetrieveNode("Ada Lovelace"), "name"))',
                                  'for _ in range(2):\n    print(NodeFeature(RetrieveNode("Ada Lovelace"), "name"))'])
def test_an_empty_result_or_the_requests_own_words_is_not_an_answer(tiny_graph, code):
    program = GLM(tiny_graph, readings=False, samples=0)
    question = "Which papers did Ada Lovelace review?"
    prediction, _ = run(program, [{"kind": "deterministic"}, {"code": code}, reason(True, answer="none found")],
                        question=question)
    assert agents(prediction)[:2] == ["classify", "act"] and prediction.steps[1]["ok"] is False
    assert prediction.answer == "none found"  # Reason answered, from the chunks of what was found, if anything


def test_a_choice_among_the_requests_own_words_is_an_answer(tiny_graph):
    code = 'print(NodeFeature(RetrieveNode("Ada Lovelace"), "name"))'
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=0), [{"kind": "deterministic"}, {"code": code}],
                        question="Who wrote more papers, Ada Lovelace or Charles Babbage?")
    assert prediction.answer == "Ada Lovelace"


def test_values_printed_one_per_line_are_one_list_answer(tiny_graph):
    code = 'for author in ["a1", "a2", "a1"]:\n    print(NodeFeature(author, "name"))'
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=0), [{"kind": "deterministic"}, {"code": code}])
    assert prediction.answer == "Ada Lovelace, Charles Babbage"


YEAR_OF_P1 = 'print(NodeFeature("p1", "year"))'


def test_a_failed_first_snippet_is_sampled_again_and_the_most_printed_output_kept(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=3, kind="deterministic")
    prediction, lm = run(program, [{"code": "print(1/0)"},
                                   {"code": YEAR_OF_P1}, {"code": 'print("1815")'}, {"code": YEAR_OF_P1}])
    assert prediction.answer == "1843" and prediction.num_calls == 4
    assert sorted(attempt for _, attempt, _ in attempts(prediction)) == [0, 1, 2, 3]
    assert [ok for _, attempt, ok in attempts(prediction) if attempt == 0] == [False]
    assert [step["sampled"] for step in prediction.steps] == [False, True, True, True]
    kept = [step for step in prediction.steps if step["ok"]]
    assert len(kept) == 1 and kept[0]["code"] == YEAR_OF_P1 and kept[0]["output"] == "1843"
    assert act_first_tries(prediction.steps) == (1, 0)  # the samples are later tries, not first ones
    sampled = [call["kwargs"] for call in lm.history[1:]]
    assert {kwargs["temperature"] for kwargs in sampled} == {SAMPLE_TEMPERATURE}
    assert len({kwargs["rollout_id"] for kwargs in sampled}) == 3  # three draws, not one cached reply
    # a sample gets the request alone, as the first try did: no failing code, no error
    assert all(last_user_message(lm, call).startswith("[[ ## request ## ]]\nq?\n\n[[ ## previous_code ## ]]\n\n")
               for call in (1, 2, 3))


def test_samples_that_print_nothing_real_fall_back_to_the_chunks(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=2, kind="deterministic")
    wrong_feature = {"code": 'ada = RetrieveNode("Ada Lovelace")\nprint(NodeFeature(ada, "colour"))'}
    prediction, _ = run(program, [wrong_feature, {"code": "print([])"}, {"code": "x = 1"},
                                  reason(True, answer="1815")])
    assert agents(prediction) == ["act", "act", "act", "graph", "reason"] and prediction.answer == "1815"
    assert not any(step["ok"] for step in prediction.steps if step["agent"] == "act")
    # only the first try's lookups leave chunks: a sample that wandered elsewhere adds nothing
    assert prediction.notebook == tiny_graph.retriever.node_info(tiny_graph.retriever.retrieve_node("Ada Lovelace"))


def test_no_samples_when_the_first_snippet_runs(tiny_graph):
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=3, kind="deterministic"), [{"code": YEAR_OF_P1}])
    assert prediction.answer == "1843" and prediction.num_calls == 1


def test_only_the_question_itself_is_sampled_not_reasons_requests(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=2, max_steps=2)
    failing = {"code": "print(1/0)"}
    prediction, _ = run(program, [
        {"kind": "non_deterministic"},
        failing, failing, {"code": YEAR_OF_P1},        # the question: a first try, then two samples
        reason(False, missing="the year of p1"),
        failing,                                       # Reason's request: one try, no samples
        reason(True, answer="1843"),
    ])
    acts = [(attempt, ok) for agent, attempt, ok in attempts(prediction) if agent == "act"]
    assert [attempt for attempt, _ in acts] == [0, 1, 2, 0]
    assert [ok for _, ok in acts].count(True) == 1 and acts[1][1] != acts[2][1]  # which sample printed: a race
    assert prediction.answer == "1843"


def test_a_neighbour_type_one_step_further_is_reached_through_the_retrieved_entitys_relation(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, kind="deterministic")
    venue_of_ada = 'ada = RetrieveNode("Ada Lovelace")\nprint(", ".join(NodeFeature(NeighbourCheck(ada, "venue"), "name")))'
    prediction, _ = run(program, [{"code": venue_of_ada}])
    assert agents(prediction) == ["act", "graph"] and prediction.answer == "Scientific Memoirs"
    assert "NeighbourCheck(NeighbourCheck(ada, 'paper'), 'venue')" in prediction.steps[1]["code"]
    # a paper's "name" is its authors' or its venue's: two ways, so no guess; the chunk goes to Reason
    name_of_paper = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "name"))'
    prediction, _ = run(program, [{"code": name_of_paper}, reason(True, answer="x")])
    assert agents(prediction) == ["act", "graph", "reason"]


def test_printed_node_ids_are_not_an_answer_but_their_chunks_go_to_reason(tiny_graph):
    program = GLM(tiny_graph, readings=False, samples=0, kind="deterministic")
    papers_of_ada = 'print(NeighbourCheck(RetrieveNode("Ada Lovelace"), "paper"))'
    prediction, _ = run(program, [{"code": papers_of_ada}, reason(True, answer="Notes on the Analytical Engine")])
    assert agents(prediction) == ["act", "graph", "reason"] and prediction.steps[0]["ok"] is False
    assert "[Node:p1 " in prediction.notebook and "[Node:p2 " in prediction.notebook
    assert tiny_graph.retriever.label("p1") == "Notes on the Analytical Engine"
    assert tiny_graph.retriever.label("ghost") is None and tiny_graph.retriever.label("") is None


def test_ids_that_are_their_nodes_names_are_an_answer(tiny_graph, monkeypatch):
    # PathQuestion's ids are its names written as ids (santa_barbara): printing them answers
    monkeypatch.setattr(tiny_graph.retriever, "label", lambda node_id: {"p1": "P1"}.get(node_id))
    code = 'print(NeighbourCheck("a2", "paper")[0])'
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=0, kind="deterministic"), [{"code": code}])
    assert prediction.answer == "p1" and prediction.steps[0]["ok"] is True


def test_a_snippet_that_reads_nothing_from_the_graph_is_no_answer(tiny_graph):
    """A sampled snippet once printed a sentence of its own after a RetrieveNode alone; what no
    graph read gave is not a result, and its step says so."""
    code = 'ada = RetrieveNode("Ada Lovelace")\nprint("Ada wrote about engines")'
    program = GLM(tiny_graph, readings=False, samples=0, kind="deterministic")
    prediction, _ = run(program, [{"code": code}, reason(True, answer="Analytical Society")])
    assert prediction.answer == "Analytical Society" and agents(prediction) == ["act", "graph", "reason"]
    assert prediction.steps[0]["ok"] is False and "without reading the graph" in prediction.steps[0]["error"]


def test_a_printed_value_of_another_kind_than_the_question_asks_is_no_answer(tiny_graph):
    """A snippet once printed a laureate's birth date for "which laureate was born in X": the
    printed values' kind is held to what the question asks (a name for which/who/where), and
    its step says what it printed."""
    count = 'print(NodeDegree(RetrieveNode("Ada Lovelace"), "paper"))'
    program = GLM(tiny_graph, readings=False, samples=0, kind="deterministic")
    prediction, _ = run(program, [{"code": count}, reason(True, answer="Analytical Society")],
                        question="Which organization was Ada Lovelace part of?")
    assert prediction.answer == "Analytical Society" and prediction.steps[0]["ok"] is False
    assert "but the snippet printed numbers" in prediction.steps[0]["error"]
    # a question that does not say what it asks takes any kind
    prediction, _ = run(GLM(tiny_graph, readings=False, samples=0, kind="deterministic"), [{"code": count}],
                        question="Tell me about Ada Lovelace's papers")
    assert prediction.answer == "2"
