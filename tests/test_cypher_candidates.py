"""graphs/cypher/candidates.py on the real Nobel graph (no LLM): the readings a question about a
named node can have are paths the graph really has, each a query that reads rows."""

from __future__ import annotations

import pytest

from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.cypher.candidate import COUNT, Start
from glm_dspy.graphs.cypher.candidates import candidates_from
from glm_dspy.graphs.cypher.walk import inverse_relations, paths_from
from glm_dspy.graphs.store import GraphStore


@pytest.fixture(scope="module")
def store(nobel_db):
    return GraphStore.open(nobel_db)


@pytest.fixture(scope="module")
def curie(store):
    (row,) = store.query("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.id AS id")
    return Start.named("laureate", "name", "Marie Curie", row["id"])


def test_a_relation_that_is_another_read_backwards_is_found_from_the_data(store):
    skipped = inverse_relations(store, store.schema)
    assert ("born_laureate", "city", "laureate") in skipped  # birth_city, backwards
    assert ("birth_city", "laureate", "city") not in skipped  # one of each pair is kept
    assert not any(r == "mentor" and s == "laureate" and d == "laureate" for r, s, d in skipped) or \
        ("student", "laureate", "laureate") not in skipped


def test_paths_take_only_relations_the_nodes_have_and_never_turn_straight_back(store, curie):
    paths = paths_from(store, curie, inverses=inverse_relations(store, store.schema))
    assert () in paths and len(paths) <= 200
    firsts = {(p[0].relation, p[0].outgoing, p[0].type_name) for p in paths if len(p) == 1}
    assert ("birth_city", True, "city") in firsts and ("born_laureate", False, "city") not in firsts
    for path in paths:
        for previous, hop in zip(path, path[1:]):
            turns_back = previous.relation == hop.relation and previous.outgoing != hop.outgoing
            assert not turns_back or hop.type_name == "laureate"  # back to others of the start's type only
    assert max(map(len, paths)) == 3


def test_every_candidate_is_a_gated_query_that_reads_rows(store, curie):
    candidates = candidates_from(store, store.schema, curie, max_paths=40,
                                 inverses=inverse_relations(store, store.schema))
    assert {c.returns for c in candidates} >= {"name", "birth_date", COUNT}
    for candidate in candidates[::7]:
        assert gate(candidate.cypher).text == candidate.cypher
        assert store.read(candidate.cypher).rows, candidate.cypher
    city = next(c for c in candidates if [h.relation for h in c.hops] == ["birth_city"] and c.returns == "name")
    assert city.words() == "Marie Curie -> birth city: name"
    assert [row["name"] for row in store.read(city.cypher).rows] == ["Warsaw"]


def test_a_path_back_to_the_start_type_leaves_the_start_out(store, curie):
    candidates = candidates_from(store, store.schema, curie, max_paths=40)
    shared = next(c for c in candidates if [(h.relation, h.outgoing, h.type_name) for h in c.hops]
                  == [("laureate", False, "prize"), ("laureate", True, "laureate")] and c.returns == "name")
    names = {row["name"] for row in store.read(shared.cypher).rows}
    assert "Marie Curie" not in names and "Pierre Curie" in names


def test_of_a_relation_and_its_inverse_the_triples_loaders_inverse_is_the_one_left_out(tmp_path):
    from glm_dspy import cli

    (tmp_path / "kb.tsv").write_text("ada\twrote\tnotes\nnotes\tcites\tmenabrea\nbabbage\twrote\tpassages\n")
    assert cli.main(["build", f"triples:{tmp_path / 'kb.tsv'}", "--db", str(tmp_path / "db")]) == 0
    store = GraphStore.open(tmp_path / "db")
    skipped = {relation for relation, _, _ in inverse_relations(store, store.schema)}
    assert skipped == {"inv_wrote", "inv_cites"}  # by name alone, "wrote" (after "inv_wrote") would go
    (row,) = store.query("MATCH (e:entity {name: 'notes'}) RETURN e.id AS id")
    paths = paths_from(store, Start.named("entity", "name", "notes", row["id"]), inverses=inverse_relations(
        store, store.schema), max_hops=1)
    assert {(p[0].relation, p[0].outgoing) for p in paths if p} == {("cites", True), ("wrote", False)}


def test_a_start_the_graph_reaches_again_by_other_relations_is_read_and_a_turn_back_leaves_it_out(tmp_path):
    from glm_dspy import cli

    (tmp_path / "kb.tsv").write_text("rome\tcanonical_version\trome\nrome\tcovers\tvolare\nvolare\tcovered_by\trome\n"
                                     "volare\tcovers\tnel blu\nparis\tcovers\tvolare\n")
    assert cli.main(["build", f"triples:{tmp_path / 'kb.tsv'}", "--db", str(tmp_path / "db")]) == 0
    store = GraphStore.open(tmp_path / "db")
    (row,) = store.query("MATCH (e:entity {name: 'rome'}) RETURN e.id AS id")
    rome = Start.named("entity", "name", "rome", row["id"])
    by_path = {tuple((h.relation, h.outgoing) for h in c.hops): c for c in candidates_from(store, store.schema, rome)
               if c.returns == "name"}
    # a self-loop and a cycle of two other relations reach the start: the graph says so
    for path in ([("canonical_version", True)], [("covers", True), ("covered_by", True)]):
        reading = by_path[tuple(path)]
        assert not reading.excludes_start and "rome" in {r["name"] for r in store.read(reading.cypher).rows}
    # back over the relation just taken, the start is there by construction: the others are meant
    back = by_path[(("covers", True), ("covers", False))]
    assert back.excludes_start and [r["name"] for r in store.read(back.cypher).rows] == ["paris"]


def test_a_path_that_walks_back_goes_on_from_the_others_not_through_the_start(store):
    """Henrik Dam's prize's laureates' mentors are his co-laureate's mentors: through Dam himself
    the reading would be the one-hop reading's, his own mentors."""
    (row,) = store.query("MATCH (l:laureate {name: 'Henrik Dam'}) RETURN l.id AS id")
    dam = Start.named("laureate", "name", "Henrik Dam", row["id"])
    by_path = {tuple((h.relation, h.outgoing) for h in c.hops): c for c in candidates_from(
        store, store.schema, dam, inverses=inverse_relations(store, store.schema)) if c.returns == "name"}
    mentors_of = lambda who: {r["m"] for r in store.query(  # noqa: E731
        f"MATCH (l:laureate {{name: '{who}'}})-[:rel_mentor]->(m) RETURN m.name AS m")}
    reading = by_path[(("laureate", False), ("laureate", True), ("mentor", True))]  # the prize, its laureates
    assert "a2 <> a" in reading.cypher and gate(reading.cypher).text == reading.cypher
    found = {r["name"] for r in store.read(reading.cypher).rows}
    assert found == mentors_of("Edward A. Doisy") and not found & mentors_of("Henrik Dam")


def test_a_walk_back_is_to_another_node_at_each_turn():
    from glm_dspy.graphs.cypher.candidate import Hop, walked_back

    won, of_prize, mentor = Hop("prize", True, "prize"), Hop("prize", False, "laureate"), Hop("mentor", True, "laureate")
    assert walked_back((won, of_prize, mentor)) == (0,)
    assert walked_back((mentor, won, of_prize)) == (1,)  # the mentor's co-laureates: others than the mentor
    assert walked_back((won, mentor)) == ()
