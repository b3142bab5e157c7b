"""The graph functions over one id, a list of ids, and arguments that are no ids (glm_dspy/retrieval/retriever.py,
glm_dspy/retrieval/arguments.py), on the Nobel test graph:

    l6 Marie Curie --prize--> prize_physics_1903, prize_chemistry_1911
    l5 Pierre Curie --prize--> prize_physics_1903
    l6 --student--> l194 (a laureate, prize_chemistry_1935) and scholars (no prize neighbour type)
    l6 --institution--> inst_sorbonne_university_paris --laureate--> 5 laureates
"""

import pytest

from glm_dspy.prompts.fewshot import ACT_DEMOS
from glm_dspy.retrieval.observation import Observation
from glm_dspy.retrieval.retriever import CallLimits, Retriever

SORBONNE = "inst_sorbonne_university_paris"
LAUREATE_TYPES = "['birth_city', 'institution', 'mentor', 'prize', 'student']"
GHOST = ("no node with id 'ghost'; ids come from RetrieveNode(text) or NeighbourCheck(ids, neighbour_type); "
         "to find it by name: RetrieveNode('ghost')")
COUNTING = ("over a list, sum(NodeDegree(ids, t)) counts with repeats and len(NeighbourCheck(ids, t)) "
            "counts distinct neighbours")


@pytest.fixture
def queries(nobel_graph, monkeypatch):
    """The Cypher queries the test's calls send."""
    sent, original = [], nobel_graph.store.query
    monkeypatch.setattr(nobel_graph.store, "query", lambda *a, **k: sent.append(a[0]) or original(*a, **k))
    return sent


def test_one_id_and_a_list_map_in_order_with_one_query_per_call(nobel_graph, queries):
    r = nobel_graph.retriever
    assert r.node_feature("l6", "name") == "Marie Curie"
    assert r.node_feature(["l5", "l6", "l5"], "name") == ["Pierre Curie", "Marie Curie", "Pierre Curie"]
    assert r.node_degree("l6", "prize") == 2
    assert r.node_degree(["l6", "l5", "l6"], "prize") == [2, 1, 2]
    assert r.neighbour_check("l6", "prize") == ["prize_physics_1903", "prize_chemistry_1911"]
    # a list: the distinct neighbours of all its ids, in first-seen order
    assert r.neighbour_check(["l5", "l6", "l5"], "prize") == ["prize_physics_1903", "prize_chemistry_1911"]
    assert r.node_info(["l5", "l5"]).count("[Node:l5 ") == 2
    assert len(queries) == 7
    assert queries[3].count("UNION ALL") == 1  # duplicates share one branch


def test_an_empty_list_is_an_empty_answer(nobel_graph, queries):
    r = nobel_graph.retriever
    assert r.node_feature([], "name") == r.node_degree([], "prize") == r.neighbour_check([], "prize") == []
    assert r.node_info([]) == "NodeInfo got an empty list of ids; there is no node to show"
    assert queries == []


def test_an_unknown_id_in_a_list_is_its_observation_and_the_others_are_answered(nobel_graph):
    r = nobel_graph.retriever
    assert r.node_feature(["l6", "ghost"], "name") == ["Marie Curie", GHOST]
    assert r.node_degree(["ghost", "l5"], "prize") == [GHOST, 1]
    assert r.neighbour_check(["l5", "ghost", "l6"], "prize") == ["prize_physics_1903", GHOST, "prize_chemistry_1911"]
    assert r.node_info(["ghost", "l5"]).split("\n")[0] == GHOST
    assert all(isinstance(v, Observation) for v in (r.node_degree(["ghost"], "prize")[0], r.node_degree("ghost", "prize")))


def test_paths_chain_through_lists(nobel_graph):
    r = nobel_graph.retriever
    laureates = r.neighbour_check(r.neighbour_check("l6", "institution"), "laureate")
    assert len(laureates) == 5 and "l6" in laureates
    each = [r.neighbour_check(laureate, "prize") for laureate in laureates]
    assert r.neighbour_check(laureates, "prize") == list(dict.fromkeys(p for prizes in each for p in prizes))
    assert r.node_degree(laureates, "prize") == [len(prizes) for prizes in each]
    # the students of Marie Curie: a laureate and scholars, who have no prizes (empty, not an error)
    students = r.neighbour_check("l6", "student")
    assert r.node_degree(students, "prize") == [0, 1, 0]
    assert r.node_feature(r.neighbour_check(students, "prize"), "name") == ["Nobel Prize in Chemistry 1935"]


def test_the_typical_failure_names_prize_and_how_to_count(nobel_graph):
    # print(NodeDegree(NeighbourCheck(university, "laureate"), "award")) on a small model (issue 12)
    r = nobel_graph.retriever
    laureates = r.neighbour_check(SORBONNE, "laureate")
    assert r.node_degree(laureates, "award") == (
        f"laureate nodes have no neighbour type 'award'; valid: {LAUREATE_TYPES}; {COUNTING}")
    assert r.neighbour_check(laureates, "prizes") == (
        f"laureate nodes have no neighbour type 'prizes'; valid: {LAUREATE_TYPES} "
        f"(did you mean NeighbourCheck(ids, 'prize')?); {COUNTING}")
    assert r.node_degree("l6", "Prize") == (f"laureate node l6 has no neighbour type 'Prize'; valid: "
                                            f"{LAUREATE_TYPES} (did you mean NodeDegree('l6', 'prize')?)")
    assert r.node_degree("l6", "name").endswith("('name' is a feature: use NodeFeature('l6', 'name'))")
    assert r.node_feature(laureates, "prizes").endswith("('prize' is a neighbour type: use NeighbourCheck(ids, 'prize'))")
    assert r.node_feature("l6", "birth date").endswith("(did you mean NodeFeature('l6', 'birth_date')?)")


@pytest.mark.parametrize("ids, message", [
    ([["l6"], ["l5"]], "NodeFeature got a list of lists [['l6'], ['l5']]; flatten it: "
                       "[i for ids in lists for i in ids] (NeighbourCheck(ids, t) already returns one flat list)"),
    ({"l6": 1}, "NodeFeature needs an id or a list of ids, got dict {'l6': 1} (pass list(d) for its keys); "
                "ids come from RetrieveNode(text) or NeighbourCheck(ids, neighbour_type)"),
    (3.5, "NodeFeature needs an id or a list of ids, got float 3.5; "
          "ids come from RetrieveNode(text) or NeighbourCheck(ids, neighbour_type)"),
    (Observation("prize node p has no neighbour type 'x'"),
     "NodeFeature got no ids: its argument is an earlier call's message: prize node p has no neighbour type 'x'"),
])
def test_an_argument_that_holds_no_ids_says_what_to_pass(nobel_graph, ids, message):
    answer = nobel_graph.retriever.node_feature(ids, "name")
    assert (answer, type(answer)) == (message, Observation)


def test_items_that_are_no_ids(nobel_graph):
    r = nobel_graph.retriever
    chunk = r.node_info("l5")
    assert r.node_degree(chunk, "prize") == (
        "NodeDegree got NodeInfo's text (a vertex chunk '[Node:l5 {birth_date:1859-05-15, death_date:1906-04-19, "
        "fami'...), not an id; its node's id is 'l5'; use RetrieveNode(...) or NeighbourCheck(...) to get ids")
    earlier = Observation("no node with id 'x'")
    assert r.node_feature(["l6", 7, earlier], "name") == [
        "Marie Curie", "NodeFeature got int 7, not an id; ids come from RetrieveNode(text) or "
        "NeighbourCheck(ids, neighbour_type)", earlier]  # an earlier message travels on unchanged
    assert r.node_feature("l6", ["name"]) == "NodeFeature needs a feature name (a string), got a list ['name']"


def test_limits_hold_over_lists(nobel_graph, queries):
    r = Retriever(nobel_graph.store, None, limits=CallLimits(max_ids=3, max_neighbours=5))
    for call in (lambda ids: r.node_info(ids), lambda ids: r.node_feature(ids, "name"),
                 lambda ids: r.node_degree(ids, "prize"), lambda ids: r.neighbour_check(ids, "prize")):
        with pytest.raises(ValueError, match=r"^at most 3 ids per call, got 1000000; "):
            call(["l6"] * 10**6)
    assert queries == []  # refused before any query
    assert len(r.neighbour_check(["l6", "l5"], "prize")) == 2
    with pytest.raises(ValueError, match=r"^these 2 ids have more than 5 distinct 'laureate' neighbours, more than "
                                         r"one call returns; count them with sum\(NodeDegree\(ids, 'laureate'\)\), "
                                         r"or pass fewer ids$"):
        r.neighbour_check([SORBONNE, "prize_physics_1903"], "laureate")


DEMO_GRAPHS = {"the co-authors of Ada Lovelace": "tiny_graph"}


@pytest.mark.parametrize("demo", ACT_DEMOS, ids=[d.request[:30] for d in ACT_DEMOS])
def test_act_demos_run_and_print_a_result(demo, request):
    graph = request.getfixturevalue(DEMO_GRAPHS.get(demo.request, "nobel_graph"))
    result = graph.executor(timeout_s=10).run(demo.code)
    assert result.error is None and result.output.strip() and not result.is_observation_only, result


@pytest.mark.parametrize("code", [
    'for p in NeighbourCheck(RetrieveNode("Marie Curie"), "award"):\n    print(p)',
    'print(", ".join(NodeFeature(RetrieveNode("Marie Curie"), "awards")))',
    'print(sorted(set(NeighbourCheck(RetrieveNode("Marie Curie"), "laureate"))))',
])
def test_a_message_is_not_walked_as_a_list(nobel_graph, code):
    result = nobel_graph.executor().run(code)
    assert not result.is_ok and result.output == ""
    assert result.error.startswith("TypeError: a graph function answered with a message, not a list: laureate")


def test_joining_one_value_prints_the_value_not_its_characters(nobel_graph):
    # NodeFeature of one id is one str; joining it as if it were the list of a list of ids
    # would print "M, a, r, i, e, ..." as a result
    result = nobel_graph.executor().run('print(", ".join(NodeFeature(RetrieveNode("Marie Curie"), "name")))')
    assert result.is_ok and result.output.strip() == "Marie Curie"
    result = nobel_graph.executor().run('print(", ".join(NodeFeature(["l6", "l5"], "name")))')
    assert result.is_ok and ", " in result.output.strip()


def test_a_name_one_step_further_is_shown_with_the_path_to_it(nobel_graph):
    r = nobel_graph.retriever
    curie = r.retrieve_node("Marie Curie")
    assert r.node_feature(curie, "city") == (
        f"laureate node {curie} has no feature 'city'; features: {sorted(nobel_graph.schema.node_types['laureate'].features)}"
        f"; 'city' is one step further, through a neighbour: NodeFeature(NeighbourCheck({curie!r}, 'institution'), 'city')")
    country = r.retrieve_node("Sweden")
    message = r.node_degree(country, "born_laureate")
    assert message.endswith("through a neighbour: sum(NodeDegree(NeighbourCheck('country_sweden', 'city'), "
                            "'born_laureate'))")
    result = nobel_graph.executor().run(f"print({message.rsplit(': ', 1)[1]})")  # the suggested call runs
    assert result.is_ok and int(result.output) > 10
