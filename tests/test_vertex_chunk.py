"""The vertex chunk is canonical: exact bytes, sorted keys, neighbours round-robin over relations."""

from glm_dspy.graph import open_graph
from glm_dspy.graphs.node_info import format_value, node_records, node_records_live
from glm_dspy.graphs.store import GraphStore

# Marie Curie: 8 neighbours over 5 relations. Round 0 takes each relation's best (degree
# descending, then id), ordered the same way: mentor l12, institution, student s1144, prize 1903,
# birth city; round 1: student l194, prize 1911; round 2: student s211.
CURIE = ("[Node:l6 {birth_date:1867-11-07, death_date:1934-07-04, family_name:Curie, "
         "full_name:Marie Curie, née Skłodowska, gender:female, given_name:Marie, motivation:[in recognition "
         "of the extraordinary services they have rendered by their joint researches on the radiation "
         "phenomena discovered by Professor Henri Becquerel, in recognition of her services to the "
         "advancement of chemistry by the discovery of the elements radium and polonium, by the isolation "
         "of radium and the study of the nature and compounds of this remarkable element], name:Marie Curie, "
         "type:laureate}]\n"
         "[neighbours:(l12:mentor {name:Gabriel Lippmann}),"
         "(inst_sorbonne_university_paris:institution {name:Sorbonne University}),"
         "(s1144:student {name:Edmond Bauer}),(prize_physics_1903:prize {name:Nobel Prize in Physics 1903}),"
         "(city_warsaw_poland:birth_city {name:Warsaw}),(l194:student {name:Irène Joliot-Curie}),"
         "(prize_chemistry_1911:prize {name:Nobel Prize in Chemistry 1911}),(s211:student {name:Norris Hall})]")

P1 = ("[Node:p1 {keywords:[engine, computation], title:Notes on the Analytical Engine, type:paper, year:1843}]\n"
      "[neighbours:(p2:cited_by {title:On Bernoulli Numbers}),(a1:author {name:Ada Lovelace}),"
      "(v1:venue {name:Scientific Memoirs}),(a2:author {name:Charles Babbage})]")


def test_exact_bytes(tiny_graph):
    # round 0, each relation's best: p2 (cited_by, degree 4), a1 (author, 2), v1 (venue, 2), ordered by
    # degree desc then id; round 1: a2 (author's second, degree 1)
    assert tiny_graph.retriever.node_info("p1") == P1


def test_exact_bytes_of_a_nobel_chunk(nobel_graph, nobel_db, embedder):
    assert nobel_graph.retriever.node_info("l6") == CURIE
    with open_graph(nobel_db, num_neighbours=3, embedder=embedder) as graph:  # round 0 cut after 3
        assert graph.retriever.node_info("l6") == CURIE.split("(s1144:student {name:Edmond Bauer})")[0] + \
            "(s1144:student {name:Edmond Bauer})]"


def test_same_bytes_every_call_and_after_reopen(tiny_graph, tiny_db, embedder):
    first = tiny_graph.retriever.node_info(["p1", "a3", "v1"])
    assert all(tiny_graph.retriever.node_info(["p1", "a3", "v1"]) == first for _ in range(5))
    with open_graph(tiny_db, embedder=embedder) as reopened:
        assert reopened.retriever.node_info(["p1", "a3", "v1"]) == first


def test_top_k_limits_neighbours(tiny_db, embedder):
    with open_graph(tiny_db, num_neighbours=2, embedder=embedder) as graph:
        chunk = graph.retriever.node_info("p1")
    assert chunk.endswith("[neighbours:(p2:cited_by {title:On Bernoulli Numbers}),(a1:author {name:Ada Lovelace})]")


def test_comma_in_value_and_node_without_edges(tiny_graph):
    assert tiny_graph.retriever.node_info("a3").startswith("[Node:a3 {name:O'Brien, Pat, type:author}]")


def test_format_value_is_canonical():
    assert format_value(2.0) == "2" and format_value(0.1 + 0.2) == "0.3"
    assert format_value("a\n  b") == "a b"
    assert format_value(list(range(25))).endswith(", ... +5 more]")
    assert len(format_value("x" * 1000)) == 300


def _all_ids(store):
    return [(t, r["id"]) for t in store.schema.node_types for r in store.query(f"MATCH (n:{t}) RETURN n.id AS id")]


def test_materialized_lists_equal_the_live_view(nobel_db):
    """The lists written at load are exactly the NodeInfo view's rows, for every node."""
    # A live query of up to 128 branches took 1.5-3.5 s on a loaded 2-core machine; past the
    # default 5 s timeout Kuzu answers "Interrupted", so this store waits longer.
    store = GraphStore.open(nobel_db, query_timeout_ms=120_000)
    typed_ids = _all_ids(store)
    for start in range(0, len(typed_ids), 200):
        batch = typed_ids[start:start + 200]
        assert node_records(store, batch, k=10) == node_records_live(store, batch, k=10), batch


def test_k_beyond_materialized_falls_back_to_live_view(nobel_graph):
    store = nobel_graph.store
    busiest = store.query("MATCH (n:laureate) RETURN n.id AS id ORDER BY n.degree DESC LIMIT 1")[0]["id"]
    live = node_records(store, [("laureate", busiest)], k=25)[0]
    assert len(live.neighbours) == 25
    assert live.neighbours[:10] == node_records(store, [("laureate", busiest)], k=10)[0].neighbours
