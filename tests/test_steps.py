"""glm_dspy/runs/steps.py: what a StepLog tells its listener, and when."""

from glm_dspy.runs.steps import Step, StepLog, listening


def test_a_step_is_told_when_the_next_is_added_and_an_unsettled_one_holds_back_the_rest_until_settled():
    told = []
    with listening(lambda step: told.append((step.agent, step.ok))):
        log = StepLog()
    log.add(Step("classify"))
    writer = log.add(Step("cypher", ok=False), settled=False)
    assert told == [("classify", None)]
    log.add(Step("graph", code="EXPLAIN ..."))
    log.add(Step("graph", code="MATCH ..."))
    assert told == [("classify", None)]  # the writer's `ok` is not known yet, nor is anything after it told
    writer.ok = True
    log.settle(writer)
    assert told == [("classify", None), ("cypher", True), ("graph", None)]  # the last is told with the prediction
    log.prediction("x", None)
    assert len(told) == 4


def test_a_module_run_inside_another_joins_its_log_and_each_step_is_told_once():
    told = []
    with listening(lambda step: told.append(step.agent)):
        outer = StepLog()
        outer.add(Step("classify"))
        with listening(outer.add):  # as GLM runs Text2Cypher
            inner = StepLog()
            inner.add(Step("cypher", ok=True))
            inner.add(Step("graph", code="MATCH ..."))
            inner.prediction("x", None)
        outer.add(Step("reason"))
        prediction = outer.prediction("x", None)
    assert told == [s["agent"] for s in prediction.steps] == ["classify", "cypher", "graph", "reason"]
