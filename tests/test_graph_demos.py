"""Act demos fitted to a graph (glm_dspy/prompts/graph_demos.py), on the real Nobel and tiny graphs."""

import dspy

from glm_dspy.prompts.fewshot import ACT_DEMOS
from glm_dspy.prompts.graph_demos import MIN_DEMOS, act_demos, written_demos
from glm_dspy.modules.glm import GLM


def test_a_demo_naming_what_the_graph_lacks_is_dropped(nobel_graph):
    demos = act_demos(nobel_graph, ACT_DEMOS)
    requests = [demo.request for demo in demos]
    assert "the co-authors of Ada Lovelace" not in requests  # papers and authors: not in the Nobel graph
    assert [d for d in ACT_DEMOS if d.request != "the co-authors of Ada Lovelace"] == demos
    first_tries = act_demos(nobel_graph, ACT_DEMOS, repairs=False)
    assert not any(demo.previous_code or demo.error for demo in first_tries)  # a repair demo shows as a first try
    assert [demo.code for demo in first_tries] == [demo.code for demo in demos]


def test_a_demo_that_prints_no_result_on_the_graph_is_dropped(nobel_graph):
    for code in ('print(NodeInfo(NeighbourCheck(RetrieveNode("Max Planck"), "student")[99:]))',  # an observation
                 'print(NeighbourCheck(RetrieveNode("Max Planck"), "birth_city")[5:])'):  # []
        lost = dspy.Example(request="the prizes of Nobody", previous_code="", error="", code=code)
        assert lost not in act_demos(nobel_graph, [lost])


def test_written_demos_fill_up_and_each_prints_a_result(tiny_graph):
    demos = act_demos(tiny_graph, [], repairs=False)
    assert len(demos) == min(MIN_DEMOS, len(written_demos(tiny_graph)))
    executor = tiny_graph.executor()
    for demo in demos:
        result = executor.run(demo.code)
        assert result.is_ok and result.output.strip() and not result.is_observation_only, demo
        assert demo.request and not demo.previous_code
    codes = "\n".join(demo.code for demo in demos)
    assert "NodeFeature(" in codes and "len(NeighbourCheck(" in codes  # a lookup and a count
    assert any(demo.code.count("NeighbourCheck(") == 2 for demo in demos)  # a two-hop path


def test_written_demos_are_the_same_every_time(tiny_graph):
    first = [(d.request, d.code) for d in written_demos(tiny_graph)]
    assert first and first == [(d.request, d.code) for d in written_demos(tiny_graph)]  # a stable prompt prefix


def test_glm_uses_the_fitted_demos_when_told_to(nobel_graph):
    fitted = GLM(nobel_graph, readings=None, compiled=None, fitted_demos=True).act.predict.demos
    assert fitted == act_demos(nobel_graph, ACT_DEMOS, repairs=False)
    assert GLM(nobel_graph, readings=None, compiled=None).act.predict.demos == ACT_DEMOS
