"""A schema too large for every prompt (PathQuestion PQL: 726 relations): Act, Text2Cypher and the
graph functions' observations show the relations that matter to a request, not all of them."""

from __future__ import annotations

import pytest

from glm_dspy.retrieval.arguments import MAX_NAMES_SHOWN, names_shown
from glm_dspy.modules.glm import ACT_RELATIONS, ACT_SCHEMA_RELATIONS

FILLERS = [f"{domain}_{thing}" for domain in ("music", "film", "sports", "geography", "chemistry", "aviation",
                                               "religion", "finance", "botany")
           for thing in ("release", "genre", "award", "location", "member", "origin", "owner", "founder")]
QUESTION = "what is ada_lovelace 's father 's nationality ?"


@pytest.fixture(scope="module")
def large_graph(tmp_path_factory, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    assert len(FILLERS) + 3 > ACT_SCHEMA_RELATIONS
    folder = tmp_path_factory.mktemp("large")
    lines = ["ada_lovelace\tparents\tlord_byron", "lord_byron\tnationality\tunited_kingdom",
             "ada_lovelace\tgender\tfemale"]
    lines += [f"thing_{i}\t{relation}\tthing_{i + 1}" for i, relation in enumerate(FILLERS)]
    (folder / "kb.tsv").write_text("\n".join(lines) + "\n")
    build_database(f"triples:{folder / 'kb.tsv'}", folder / "db", embedder=embedder)
    with open_graph(folder / "db", embedder=embedder) as graph:
        yield graph


def test_a_long_list_of_names_shows_those_nearest_the_wrong_one():
    valid = [f"relation_{i:02d}" for i in range(MAX_NAMES_SHOWN + 6)]
    assert names_shown("x", valid[:3]) == str(valid[:3])
    shown = names_shown("relation_07", valid)
    assert shown.endswith(" and 6 more") and "'relation_07'" in shown


def test_a_node_lists_the_relations_it_has(large_graph):
    retriever = large_graph.retriever
    assert retriever.relations_of("ada_lovelace") == ["gender", "parents"]
    assert retriever.relations_of("no_such_node") == []


def test_a_wrong_name_on_a_large_schema_is_answered_with_the_nodes_own_relations(large_graph):
    retriever = large_graph.retriever
    observation = str(retriever.neighbour_check("ada_lovelace", "father"))
    assert "its neighbour types: ['gender', 'parents']" in observation
    assert "music_release" not in observation and len(observation) < 200
    observation = str(retriever.node_feature("ada_lovelace", "nationality"))
    # a relation of the schema but not one ada_lovelace has: reached through the ones it has, and only those
    assert "use NeighbourCheck" not in observation
    assert "NeighbourCheck(NeighbourCheck('ada_lovelace', 'parents'), 'nationality')" in observation
    assert "music_" not in observation
    observation = str(retriever.node_feature("ada_lovelace", "parent"))
    assert "'parents' is a neighbour type: use NeighbourCheck('ada_lovelace', 'parents')" in observation
    # over a list the node's own relations are not one list: the nearest valid names, and how many more
    observation = str(retriever.neighbour_check(["ada_lovelace"], "father"))
    assert f"and {len(large_graph.schema.relations) - MAX_NAMES_SHOWN} more" in observation


def test_act_sees_the_named_nodes_relations_and_the_nearest_not_the_whole_schema(large_graph):
    from glm_dspy.modules.glm import GLM

    program = GLM(large_graph, readings=False, act="python")
    relations = program.act_relations(QUESTION)
    assert relations[:2] == ["gender", "parents"] and len(relations) == ACT_RELATIONS
    assert "nationality" in relations  # nearest the request in meaning
    context = program.act.context(QUESTION)
    shown = context.split("neighbour types [", 1)[1].split("]", 1)[0].split(", ")
    assert sorted(shown) == sorted(relations)
    system = program.act.signature(QUESTION).instructions
    assert system.endswith(context) and system.startswith(program.act.predict.signature.instructions)


def test_act_keeps_one_stable_context_on_a_small_schema(tiny_graph):
    from glm_dspy.modules.glm import GLM

    program = GLM(tiny_graph, readings=False, act="python")
    assert isinstance(program.act.graph_context, str)
    assert program.act.signature("Who wrote X?") is program.act.signature("Where was Y published?")


def test_text2cypher_shows_a_named_nodes_relations_first(large_graph):
    from glm_dspy.modules.text2cypher import Text2Cypher

    tables = Text2Cypher(large_graph, examples=None).prune(QUESTION)
    assert "rel_parents" in tables and "rel_gender" in tables
    assert tables.count("(:entity)-[") == 8


def _shown(text: str) -> list[str]:
    return text.split("neighbour types [", 1)[1].split("]", 1)[0].split(", ")


def test_graphcot_and_counselors_plan_see_the_questions_relations_not_the_whole_schema(large_graph):
    import dspy
    from dspy.utils import DummyLM

    from glm_dspy.prompts.function_docs import PROMPT_RELATIONS, relations_for
    from glm_dspy.modules.counselor import GraphCounselor
    from glm_dspy.modules.glm import GLM
    from glm_dspy.modules.graphcot import GraphCoT

    relations = relations_for(large_graph, QUESTION)
    assert len(relations) == PROMPT_RELATIONS < len(large_graph.schema.relations)
    lm = DummyLM([{"thought": "t", "action": "Finish[united_kingdom]"}])
    with dspy.context(lm=lm):
        assert GraphCoT(large_graph)(question=QUESTION).answer == "united_kingdom"
    assert sorted(_shown(lm.history[-1]["messages"][0]["content"])) == sorted(relations)

    lm = DummyLM({"[[ ## reflection ## ]]": {"plan": "1. RetrieveNode ada_lovelace"},
                  "[[ ## request ## ]]": {"code": 'print(NodeFeature(RetrieveNode("ada_lovelace"), "gender"))'},
                  "[[ ## notebook ## ]]": {"finished": True, "answer": "x", "missing_information": ""},
                  "[[ ## question ## ]]": {"kind": "deterministic"}})
    with dspy.context(lm=lm):
        GraphCounselor(GLM(large_graph, readings=False, act="python", compiled=None), max_reflections=0)(
            question=QUESTION)
    plan = next(entry for entry in lm.history if "[[ ## reflection ## ]]" in entry["messages"][-1]["content"])
    graph = plan["messages"][-1]["content"].split("[[ ## graph ## ]]", 1)[1]
    assert sorted(_shown(graph)) == sorted(relations)
