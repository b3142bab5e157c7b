"""The five graph functions with good and bad input: bad input is an observation, never an exception."""

import time

import numpy as np
import pytest

from glm_dspy.retrieval.observation import Observation
from glm_dspy.retrieval.retriever import CallLimits, Retriever
from glm_dspy.graphs.deadline import DeadlinePassed, deadline


def test_retrieve_node_finds_by_name(nobel_graph):
    retriever = nobel_graph.retriever
    assert retriever.retrieve_node("Marie Curie") == "l6"
    assert retriever.retrieve_node("Nobel Prize in Physics 1903") == "prize_physics_1903"
    assert retriever.retrieve_node("  Marie   Curie ") == "l6"  # normalised key, served from the LRU cache
    assert retriever.retrieve_cache.hits >= 1


@pytest.mark.parametrize("bad", ["", "   ", None, 42])
def test_retrieve_node_bad_text(nobel_graph, bad):
    assert "non-empty text" in nobel_graph.retriever.retrieve_node(bad)


def test_node_feature(nobel_graph):
    retriever = nobel_graph.retriever
    assert retriever.node_feature("l6", "birth_date") == "1867-11-07"
    assert retriever.node_feature(["l6", "l5"], "name") == ["Marie Curie", "Pierre Curie"]
    assert retriever.node_feature("prize_physics_1903", "year") == 1903
    assert len(retriever.node_feature("l6", "motivation")) == 2


def test_node_feature_bad_input(nobel_graph):
    retriever = nobel_graph.retriever
    observation = retriever.node_feature("l6", "height")
    assert "no feature 'height'" in observation and "birth_date" in observation and "'birth_city'" in observation
    assert "use NeighbourCheck('l6', 'prize')" in retriever.node_feature("l6", "prize")
    assert retriever.node_feature(["l6", "nope"], "name") == [
        "Marie Curie", "no node with id 'nope'; ids come from RetrieveNode(text) or NeighbourCheck(ids, "
        "neighbour_type); to find it by name: RetrieveNode('nope')"]
    assert retriever.node_feature(7, "name") == (
        "NodeFeature needs an id or a list of ids, got int 7; ids come from RetrieveNode(text) or "
        "NeighbourCheck(ids, neighbour_type)")
    assert retriever.node_feature("", "name") == "invalid node id: node id is empty"


def test_neighbours_and_degree(nobel_graph):
    retriever = nobel_graph.retriever
    assert sorted(retriever.neighbour_check("prize_physics_1903", "laureate")) == ["l4", "l5", "l6"]
    assert retriever.node_degree("prize_physics_1903", "laureate") == 3
    assert retriever.node_degree("l6", "prize") == 2
    assert "l194" in retriever.neighbour_check("l6", "student")  # Irène Joliot-Curie
    assert "l6" in retriever.neighbour_check("l194", "mentor")  # and back


def test_neighbour_type_unknown_names_valid_ones(nobel_graph):
    observation = nobel_graph.retriever.neighbour_check("l6", "award")
    assert "no neighbour type 'award'" in observation and "'prize'" in observation
    assert "no neighbour type" in nobel_graph.retriever.node_degree("l6", "award")
    assert "no node with id" in nobel_graph.retriever.node_degree("ghost", "prize")


def test_node_info_several_ids_one_query(nobel_graph, monkeypatch):
    calls = []
    original = nobel_graph.store.query
    monkeypatch.setattr(nobel_graph.store, "query", lambda *a, **k: calls.append(a) or original(*a, **k))
    text = nobel_graph.retriever.node_info(["l6", "ghost", "l5"])
    assert len(calls) == 1
    lines = text.split("\n")
    assert lines[0].startswith("[Node:l6 ") and lines[2].startswith("no node with id 'ghost'")
    assert lines[3].startswith("[Node:l5 ")


def test_single_query_fast_path_matches_batch_encoding():
    """sentence-transformers' embedder (for models bert_numpy does not compute) encodes one text
    straight through its transformer."""
    from glm_dspy.graphs.node_index import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    assert embedder._is_mean_pooled  # the fast path is taken for MiniLM
    texts = ["Marie Curie", "Nobel Prize in Physics 1903", "a much longer text about the history of physics"]
    batch = embedder.encode(texts + ["pad"])[:3]
    single = np.concatenate([embedder.encode([t]) for t in texts])
    assert np.allclose(batch, single, atol=1e-5)


def test_bad_input_is_typed_an_observation_and_results_are_not(nobel_graph):
    retriever = nobel_graph.retriever
    assert type(retriever.node_feature("l6", "name")) is str and type(retriever.retrieve_node("Marie Curie")) is str
    assert type(retriever.node_info("l6")) is str and type(retriever.node_info(["l6", "ghost"])) is str
    for observation in [retriever.node_feature("l6", "height"), retriever.node_info("ghost"),
                        retriever.node_info(["ghost", 7]), retriever.node_info([]), retriever.retrieve_node(""),
                        retriever.node_degree("l6", "award"), retriever.neighbour_check("ghost", "prize"),
                        retriever.node_feature("l6", ["name"])]:
        assert isinstance(observation, Observation), observation
    values = retriever.node_feature(["l6", "ghost"], "name")
    assert type(values[0]) is str and isinstance(values[1], Observation)


def test_ids_per_call_are_capped(nobel_graph):
    retriever = nobel_graph.retriever
    assert retriever.node_feature(["l6"] * 100, "name") == ["Marie Curie"] * 100
    for function in (retriever.node_info, lambda ids: retriever.node_feature(ids, "name"),
                     lambda ids: retriever.node_degree(ids, "award"), lambda ids: retriever.neighbour_check(ids, "prize")):
        with pytest.raises(ValueError, match=r"^at most 100 ids per call, got 101; pass a slice such as ids\[:100\]"):
            function(["l6"] * 101)


def test_neighbour_check_fetches_at_most_one_row_past_its_limit(nobel_graph, monkeypatch):
    retriever = Retriever(nobel_graph.store, None, limits=CallLimits(max_neighbours=50))
    num_rows, original = [], nobel_graph.store.query
    monkeypatch.setattr(nobel_graph.store, "query",
                        lambda *a, **k: num_rows.append(len(rows := original(*a, **k))) or rows)
    with pytest.raises(ValueError, match="^node country_usa has more than 50 'city' neighbours, more than one "
                                         r"call returns; count them with NodeDegree\('country_usa', 'city'\)$"):
        retriever.neighbour_check("country_usa", "city")
    assert num_rows == [51] and retriever.node_degree("country_usa", "city") > 51
    assert retriever.neighbour_check("prize_physics_1903", "laureate") == nobel_graph.retriever.neighbour_check(
        "prize_physics_1903", "laureate")


def test_a_query_ends_by_the_callers_deadline(nobel_graph):
    store = nobel_graph.store  # its own query timeout is 5 s; this query needs far longer
    slow = ("MATCH (a:laureate), (b:laureate), (c:laureate) WHERE a.name < b.name AND b.name < c.name "
            "RETURN count(*) AS n")
    started = time.monotonic()
    with deadline(started + 0.3), pytest.raises(RuntimeError, match="Interrupted"):
        store.query(slow)
    assert time.monotonic() - started < 4.0  # the deadline stopped it, not the store's 5 s timeout
    with deadline(time.monotonic() - 1.0), pytest.raises(DeadlinePassed):
        store.query("RETURN 1 AS one")
    assert store.query("RETURN 1 AS one") == [{"one": 1}]  # no deadline outside the block


@pytest.mark.parametrize("kind", ["numpy", "sentence-transformers"])
def test_the_embedder_encodes_from_many_threads_and_copies_are_itself(kind):
    """Eval and the service run questions in threads that share one embedder: its tokenizer's
    padding is set per call, so two encodes at once once gave ragged batches."""
    import copy
    from concurrent.futures import ThreadPoolExecutor

    from glm_dspy.graphs.node_index import SentenceTransformerEmbedder, default_embedder

    embedder = default_embedder() if kind == "numpy" else SentenceTransformerEmbedder()
    texts = [["a"], ["a much longer text of many words than the others", "b"], ["c d", "e f g h i j k"]] * 8
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(embedder.encode, texts))
    for batch, vectors in zip(texts, results):
        assert vectors.shape == (len(batch), embedder.dim)
        assert np.abs(vectors - embedder.encode(batch)).max() < 1e-5  # as if each had been alone
    assert copy.deepcopy(embedder) is embedder
