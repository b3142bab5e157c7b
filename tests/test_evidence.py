"""glm_dspy/evidence: the subgraph an answer came from, read again from the graph (no LLM)."""

import shutil

import pytest

from glm_dspy.evidence import Evidence, EvidenceEdge, EvidenceNode, answering_step, evidence_of
from glm_dspy.evidence.cypher import cypher_evidence
from glm_dspy.evidence.draw import draw_svg, evidence_text, to_dot
from glm_dspy.runs.steps import Step

BIRTH_CITY = "MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c:city) RETURN c.name"


def test_a_query_gives_the_nodes_and_relationships_it_matched_its_answer_marked(nobel_graph):
    evidence = cypher_evidence(nobel_graph.store, BIRTH_CITY)
    assert evidence == Evidence("cypher", BIRTH_CITY, (
        EvidenceNode("city_warsaw_poland", "city", "Warsaw", is_answer=True),
        EvidenceNode("l6", "laureate", "Marie Curie"),
    ), (EvidenceEdge("l6", "birth_city", "city_warsaw_poland"),))


def test_a_property_answer_and_an_argmax_over_groups(nobel_graph):
    born = cypher_evidence(nobel_graph.store, "MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.birth_date")
    assert born.nodes == (EvidenceNode("l6", "laureate", "Marie Curie", True, "birth_date: 1867-11-07"),)
    most = cypher_evidence(nobel_graph.store, "MATCH (p:prize)<-[:rel_prize]-(l:laureate) "
                                              "RETURN p.name, count(l) AS n ORDER BY n DESC, p.name LIMIT 1")
    assert [n.name for n in most.answers] == [most.nodes[0].name]  # the one prize the query picked
    assert {e.target for e in most.edges} == {most.nodes[0].id}
    assert len(most.edges) == len(most.nodes) - 1 >= 2  # its laureates, each joined to it


def test_where_the_return_reads_no_node_the_first_match_is_drawn_and_the_answer_found_by_name(nobel_graph):
    query = ("MATCH (k:country {name: 'Spain'})-[:rel_city]->(:city)-[:rel_institution]->(i:institution)"
             "-[:rel_laureate]->(l:laureate) WITH i, count(DISTINCT l) AS num_laureates "
             "WITH collect({name: i.name, n: num_laureates}) AS rows, max(num_laureates) AS top "
             "UNWIND rows AS row WITH row, top WHERE row.n = top RETURN row.name")
    evidence = cypher_evidence(nobel_graph.store, query, "Madrid University")
    assert [(n.name, n.is_answer) for n in evidence.nodes] == [
        ("Spain", False), ("Madrid", False), ("Madrid University", True), ("Santiago Ramón y Cajal", False)]
    assert [e.relation for e in evidence.edges] == ["city", "institution", "laureate"]


def test_a_query_that_matches_more_than_the_bound_is_cut_and_says_so(nobel_graph):
    evidence = cypher_evidence(nobel_graph.store, "MATCH (l:laureate)-[:rel_birth_city]->(c:city) RETURN c.name")
    assert len(evidence.nodes) == 50 and evidence.num_left_out > 0 and "first 50" in evidence.note
    assert all(e.source in {n.id for n in evidence.nodes} for e in evidence.edges)


STEPS = [Step("cypher", code=BIRTH_CITY, attempt=0, ok=True),
         Step("graph", code=f"EXPLAIN {BIRTH_CITY}"),
         Step("graph", code="MATCH (c:city) RETURN c.name", error="Binder exception: ..."),
         Step("graph", code=BIRTH_CITY, output="c.name\nWarsaw"),
         Step("answer", output="Warsaw")]


def test_the_answering_step_is_the_last_that_read_the_graph_and_succeeded():
    steps = [s.as_dict() for s in STEPS]
    assert answering_step(steps) is steps[3]
    assert answering_step(steps[:3]) is None


def test_evidence_of_a_prediction_and_of_none(nobel_graph):
    steps = [s.as_dict() for s in STEPS]
    assert [n.name for n in evidence_of(steps, "Warsaw", nobel_graph).answers] == ["Warsaw"]
    assert evidence_of(steps, "", nobel_graph) == Evidence("none", note="there is no answer to draw")
    assert evidence_of(steps[:3], "Warsaw", nobel_graph).note == "no step read the graph"
    broken = [Step("graph", code="MATCH (c:no_such_table) RETURN c.name", output="x").as_dict()]
    assert evidence_of(broken, "x", nobel_graph).note.startswith("could not run it again: Binder exception")


def test_a_snippet_is_run_again_and_its_calls_give_the_nodes(tiny_graph):
    code = 'print(NodeFeature(RetrieveNode("Notes on the Analytical Engine"), "year"))'
    evidence = evidence_of([Step("act", code=code, output="1843", ok=True).as_dict()], "1843", tiny_graph)
    assert evidence == Evidence("snippet", code, (
        EvidenceNode("p1", "paper", "Notes on the Analytical Engine", True, "year: 1843"),))
    code = 'print(NodeFeature(NeighbourCheck(RetrieveNode("Ada Lovelace"), "paper"), "title"))'
    evidence = evidence_of([Step("graph", code=code, output="...").as_dict()],
                           "Notes on the Analytical Engine, On Bernoulli Numbers", tiny_graph)
    assert [(n.id, n.is_answer) for n in evidence.nodes] == [("p1", True), ("p2", True), ("a1", False)]
    # each pair joined once, though the graph holds author/paper and cited_by/reference both ways
    assert evidence.edges == (EvidenceEdge("a1", "paper", "p1"), EvidenceEdge("a1", "paper", "p2"),
                              EvidenceEdge("p1", "cited_by", "p2"))


EVIDENCE = Evidence("cypher", BIRTH_CITY, (EvidenceNode("c1", "city", 'Wars"aw', True),
                                           EvidenceNode("l6", "laureate", "Marie Curie", False)),
                    (EvidenceEdge("l6", "birth_city", "c1"),))


def test_the_drawing_marks_the_answer_and_the_text_lists_it():
    dot = to_dot(EVIDENCE)
    assert '"c1" [id="ev_0", label="Wars\\"aw\\n(city)", tooltip="c1", class="answer"' in dot
    assert '"l6" -> "c1" [label="birth_city"];' in dot
    assert evidence_text(EVIDENCE).splitlines() == [
        f"evidence (cypher): {BIRTH_CITY}", '  * Wars"aw [city c1]', "    Marie Curie [laureate l6]",
        '    Marie Curie -[birth_city]-> Wars"aw']


@pytest.mark.skipif(shutil.which("dot") is None, reason="needs Graphviz's dot (apt-get install graphviz)")
def test_dot_lays_it_out_as_svg():
    svg = draw_svg(EVIDENCE)
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert 'id="ev_0" class="node answer"' in svg and "<title>c1</title>" in svg and ">birth_city</text>" in svg
