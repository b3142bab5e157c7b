"""autofix: GLM's own repairs of mechanical mistakes in a snippet, checked on the real Nobel graph."""

import pytest

from glm_dspy.executor.autofix import autofix

FEATURES = ["birth_date", "category", "city", "name", "year"]
NEIGHBOUR_TYPES = ["birth_city", "institution", "laureate", "mentor", "prize", "student"]


def fix(code):
    return autofix(code, FEATURES, NEIGHBOUR_TYPES)


@pytest.mark.parametrize("code, fixed", [
    # an undefined variable close to one the snippet assigns
    ('bohr = RetrieveNode("Niels Bohr")\nprint(NodeFeature(bohrs, "name"))',
     "bohr = RetrieveNode('Niels Bohr')\nprint(NodeFeature(bohr, 'name'))"),
    # an undefined function close to a graph function or builtin
    ('print(NodeDegree(RetrieveNodes("Niels Bohr"), "student"))',
     "print(NodeDegree(RetrieveNode('Niels Bohr'), 'student'))"),
    ('print(NodeFeature(MentorCheck(RetrieveNode("Robert Gesell"), "mentor"), "name"))',
     "print(NodeFeature(NeighbourCheck(RetrieveNode('Robert Gesell'), 'mentor'), 'name'))"),
    ('print(lenn(NeighbourCheck("l6", "prize")))', "print(len(NeighbourCheck('l6', 'prize')))"),
    # a feature or neighbour type close to the graph's own
    ('print(NeighbourCheck("l6", "prizes"))', "print(NeighbourCheck('l6', 'prize'))"),
    ('print(NodeFeature("l6", "birth date"))', "print(NodeFeature('l6', 'birth_date'))"),
    ('print(f"{NodeDegree(\'l6\', \'Students\')}")', "print(f\"{NodeDegree('l6', 'student')}\")"),
    # NodeInfo's second argument says what was wanted
    ('print(NodeInfo("l6", "prize"))', "print(NodeInfo(NeighbourCheck('l6', 'prize')))"),
    ('print(NodeInfo("l6", "birth_date"))', "print(NodeFeature('l6', 'birth_date'))"),
    ('print(NodeInfo("l6", "colour"))', "print(NodeInfo('l6'))"),
    ('print(len(NodeInfo(NeighbourCheck("l6", "prize"))))', "print(len(NeighbourCheck('l6', 'prize')))"),
])
def test_mechanical_mistakes_are_undone(code, fixed):
    assert fix(code) == fixed


@pytest.mark.parametrize("code", [
    'print(NodeFeature(RetrieveNode("Niels Bohr"), "birth_date"))',  # nothing wrong
    "print(undefined)",  # nothing close to use instead
    'print(NeighbourCheck("l6", "colour"))',  # no name close to it
    "for x in range(3):\n    print(x)",
    "print(",  # does not parse: left to the executor's SyntaxError
])
def test_a_snippet_with_nothing_to_fix_is_left_alone(code):
    assert fix(code) is None


def test_the_fixed_snippet_runs_on_the_real_graph(nobel_graph):
    features, neighbour_types = nobel_graph.schema.names()
    broken = 'curie = RetrieveNode("Marie Curie")\nprint(", ".join(NodeFeature(NeighbourCheck(curies, "prizes"), "name")))'
    executor = nobel_graph.executor()
    assert not executor.run(broken).is_ok
    result = executor.run(autofix(broken, features, neighbour_types))
    assert result.is_ok and "Nobel Prize in Physics 1903" in result.output


def test_a_name_wrong_in_meaning_is_matched_by_the_embedder(nobel_graph):
    matcher = nobel_graph.name_matcher()
    assert matcher("award") == "prize" and matcher("birthplace") == "birth_city"
    assert matcher("university") is None  # institution 0.73 but student 0.65: not clearly nearer
    assert matcher("colour") is None
    broken = 'print(NodeFeature(NeighbourCheck(RetrieveNode("Marie Curie"), "award"), "name"))'
    fixed = autofix(broken, FEATURES, NEIGHBOUR_TYPES, matcher)
    assert fixed == "print(NodeFeature(NeighbourCheck(RetrieveNode('Marie Curie'), 'prize'), 'name'))"
    assert autofix(broken, FEATURES, NEIGHBOUR_TYPES) is None  # spelling alone cannot tell


def via_paper(name, what):  # an author's venue is one step further, through its papers
    return "paper" if (name, what) == ("venue", "neighbour type") else None


@pytest.mark.parametrize("code, fixed", [
    ('ada = RetrieveNode("Ada Lovelace")\nprint(NodeFeature(NeighbourCheck(ada, "venue"), "name"))',
     "ada = RetrieveNode('Ada Lovelace')\nprint(NodeFeature(NeighbourCheck(NeighbourCheck(ada, 'paper'), 'venue'), 'name'))"),
    ('print(NeighbourCheck(RetrieveNode("Ada Lovelace"), "venue"))',
     "print(NeighbourCheck(NeighbourCheck(RetrieveNode('Ada Lovelace'), 'paper'), 'venue'))"),
    # not on what may be another node: a loop variable, a variable bound twice, a literal id
    ('for p in NeighbourCheck(RetrieveNode("Ada Lovelace"), "paper"):\n    print(NeighbourCheck(p, "venue"))', None),
    ('a = RetrieveNode("Ada Lovelace")\na = NeighbourCheck(a, "paper")\nprint(NeighbourCheck(a, "venue"))', None),
    ('print(NeighbourCheck("p1", "venue"))', None),
])
def test_a_name_one_step_further_is_reached_through_the_one_relation_that_has_it(code, fixed):
    assert autofix(code, ["name", "title"], ["author", "paper", "venue"], detour=via_paper) == fixed


def test_the_schema_says_where_a_missing_name_is_one_step_further(tiny_graph):
    schema = tiny_graph.schema
    assert schema.one_hop_further("author", "venue") == [("paper", "neighbour type")]
    assert schema.one_hop_further("paper", "name") == [("author", "feature"), ("venue", "feature")]  # two ways
    assert schema.one_hop_further("venue", "colour") == []
