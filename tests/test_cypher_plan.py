"""graphs/cypher/plan.py and typecheck.py: a query's plan, checked against a small schema drawn
below (no database, no LLM).

    person -[born_in]-> city -[in_country]-> country
    person -[mentor]-> person          person -[won]-> prize {year, category}
"""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher import parse
from glm_dspy.graphs.cypher.plan import plan_of
from glm_dspy.graphs.cypher.typecheck import node_types, problems
from glm_dspy.graphs.schema import GraphSchema, NodeType

SCHEMA = GraphSchema("toy", {
    "person": NodeType({"name": "STRING", "birth_date": "STRING"}, 3, "name"),
    "city": NodeType({"name": "STRING"}, 2, "name"),
    "country": NodeType({"name": "STRING", "continent": "STRING"}, 1, "name"),
    "prize": NodeType({"name": "STRING", "year": "INT64", "category": "STRING"}, 2, "name"),
}, {"born_in": [("person", "city")], "in_country": [("city", "country")], "mentor": [("person", "person")],
    "won": [("person", "prize")]})


def plan(text: str):
    return plan_of(parse(text))


def test_a_plan_lists_nodes_hops_properties_and_what_is_returned():
    p = plan("MATCH (a:person {name: 'Ada'})-[:rel_born_in]->(c)<-[:rel_born_in]-(b) WHERE b <> a "
             "WITH c, count(b) AS n RETURN c.name AS city, n ORDER BY n DESC LIMIT 1")
    assert set(p.nodes) == {"a", "c", "b"} and p.nodes["a"].labels == {"person"}
    assert [node.variable for node in p.named] == ["a"]
    assert [(h.source, h.relations, h.target) for h in p.hops] == [("a", ("rel_born_in",), "c"),
                                                                   ("b", ("rel_born_in",), "c")]
    assert [(r.alias, r.node, r.property, r.aggregate) for r in p.returned] == [("city", "c", "name", None),
                                                                                ("n", "b", None, "count")]
    assert p.ordered and p.limit is not None and ("c", "name") in p.properties


def test_anonymous_nodes_are_distinct_and_named_nodes_merge_across_clauses():
    p = plan("MATCH (a:person)-[:rel_won]->(:prize) MATCH (a)-[:rel_born_in]->() RETURN a.name")
    assert len(p.nodes) == 3 and {h.source for h in p.hops} == {"a"}


def test_types_flow_along_hops_to_unlabelled_nodes():
    p = plan("MATCH (a {name: 'Ada'})-[:rel_born_in]->(c)-[:rel_in_country]->(k) RETURN k.name")
    assert node_types(p, SCHEMA) == {"a": {"person"}, "c": {"city"}, "k": {"country"}}
    assert problems(p, SCHEMA) == []


def test_a_hop_the_node_it_stands_on_cannot_take_is_a_problem_that_says_what_it_can():
    p = plan("MATCH (k:country {name: 'France'})-[:rel_born_in]->(a:person) RETURN count(a)")
    (problem,) = problems(p, SCHEMA)
    assert "rel_born_in does not join k (country)" in problem and "person -> city" in problem
    assert "a country node has no relationship" in problem  # country has no outgoing relation here


def test_the_right_direction_passes_and_an_undirected_hop_goes_either_way():
    assert problems(plan("MATCH (k:country)<-[:rel_in_country]-(:city)<-[:rel_born_in]-(a) RETURN count(a)"),
                    SCHEMA) == []
    assert problems(plan("MATCH (k:country)-[:rel_in_country]-(c) RETURN c.name"), SCHEMA) == []


def test_a_property_no_type_of_its_node_has_is_a_problem():
    (problem,) = problems(plan("MATCH (a:person {name: 'Ada'})-[:rel_born_in]->(c) RETURN c.birth_date"), SCHEMA)
    assert problem.startswith("c.birth_date: a city node has no property birth_date") and "name" in problem


@pytest.mark.parametrize("text,said", [
    ("MATCH (a:persn) RETURN a.name", "no node table persn"),
    ("MATCH (a)-[:rel_darling]->(b) RETURN b.name", "no relationship table rel_darling"),
])
def test_names_the_graph_does_not_have_are_problems(text, said):
    assert any(said in problem for problem in problems(plan(text), SCHEMA))


def test_labels_and_tables_match_without_regard_to_case():
    assert problems(plan("MATCH (a:Person)-[:REL_WON]->(p:Prize) RETURN p.Year"), SCHEMA) == []


def test_a_variable_length_hop_does_not_constrain_its_ends():
    assert problems(plan("MATCH (a:person)-[:rel_mentor*1..3]->(b) RETURN b.name"), SCHEMA) == []


@pytest.mark.parametrize("written, returned", [
    ("MATCH (p:person {name: 'Ada'})-[:born_in]->(c) RETURN DISTINCT c", "RETURN DISTINCT c.name AS c"),
    ("MATCH (p:person)-[:won]->(z:prize) RETURN z, count(p) AS n", "RETURN z.name AS z, count(p) AS n"),
    ("MATCH (p:person)-[:born_in]->(c:city) RETURN c.name", None),  # a property already: as it was
    ("MATCH (p:person) WITH p.name AS n RETURN n", None),  # not a node
])
def test_a_returned_node_becomes_its_types_name(written, returned):
    from glm_dspy.graphs.cypher.passes import return_node_names
    from glm_dspy.graphs.cypher.printer import print_query

    tree = parse(written)
    rewritten = return_node_names(tree, SCHEMA)
    if returned is None:
        assert rewritten is tree
    else:
        assert print_query(rewritten).endswith(returned), print_query(rewritten)
