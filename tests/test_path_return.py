"""graphs/cypher/path_return.py: a query rewritten to return what its patterns matched, pinned as text."""

import pytest

from glm_dspy.graphs.cypher import gate_tree, parse, print_query
from glm_dspy.graphs.cypher.path_return import return_first_match, return_paths


@pytest.mark.parametrize("query, rewritten, answers", [
    # anonymous relationships get a variable; every bound variable is returned; LIMIT bounds the rows
    ("MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c:city) RETURN c.name",
     "MATCH (l:laureate {name: 'Marie Curie'})-[ev_r:rel_birth_city]->(c:city) RETURN c.name, l AS ev_l, "
     "ev_r AS ev_ev_r, c AS ev_c LIMIT 7", {"c": "name"}),
    # a property of the node it reads is the answer; the query's own LIMIT stays
    ("MATCH (l:laureate {name: 'X'}) RETURN l.birth_date ORDER BY l.birth_date LIMIT 1",
     "MATCH (l:laureate {name: 'X'}) RETURN l.birth_date, l AS ev_l ORDER BY l.birth_date LIMIT 1",
     {"l": "birth_date"}),
    # an aggregate keeps its groups: every variable comes back collected; a count marks no answer
    ("MATCH (:laureate)-[:rel_prize]->(p:prize) RETURN p.name, count(*) AS n ORDER BY n DESC LIMIT 1",
     "MATCH (ev_n:laureate)-[ev_r:rel_prize]->(p:prize) RETURN p.name, count(*) AS n, "
     "list_slice(collect(DISTINCT ev_n), 1, 9) AS ev_ev_n, list_slice(collect(DISTINCT ev_r), 1, 9) AS ev_ev_r, "
     "list_slice(collect(DISTINCT p), 1, 9) AS ev_p ORDER BY n DESC LIMIT 1", {"p": "name"}),
    # a WITH passes on only what it names, here renamed; fresh names avoid the query's own
    ("MATCH (ev_r:a)-[]->(b:b) WITH b AS x MATCH (x)-[]->(c) RETURN c",
     "MATCH (ev_r:a)-[ev_r1]->(b:b) WITH b AS x MATCH (x)-[ev_r2]->(c) RETURN c, x AS ev_x, ev_r2 AS ev_ev_r2, "
     "c AS ev_c LIMIT 7", {"c": None}),
])
def test_the_rewritten_query_returns_every_bound_variable(query, rewritten, answers):
    paths = return_paths(parse(query), max_rows=7, max_items=9)
    assert print_query(paths.tree) == rewritten
    assert paths.answers == answers
    gate_tree(paths.tree)  # what it writes passes the read-only gate


def test_columns_say_what_each_added_column_holds():
    paths = return_paths(parse("MATCH (a)-[r:rel_x*1..2]->(b) RETURN count(b)"))
    assert paths.columns == {"ev_a": ("a", "node"), "ev_r": ("r", "rel"), "ev_b": ("b", "node")}
    assert paths.aggregated and paths.answers == {}


def test_where_a_with_drops_every_node_the_leading_matches_are_returned():
    tree = parse("MATCH (k:country {name: 'Spain'})-[:rel_city]->(c:city) WITH collect(c.name) AS names "
                 "UNWIND names AS name RETURN name")
    assert return_paths(tree).columns == {}
    first = return_first_match(tree, max_rows=5)
    assert print_query(first.tree) == ("MATCH (k:country {name: 'Spain'})-[ev_r:rel_city]->(c:city) "
                                       "RETURN k AS ev_k, ev_r AS ev_ev_r, c AS ev_c LIMIT 5")
    assert first.answers == {} and not first.aggregated
