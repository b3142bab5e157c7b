"""The vertex chunk is canonical: exact bytes, sorted keys, degree-then-id neighbour order."""

from glm_dspy.graph import open_graph
from graphs.vertex_chunk import format_value

P1 = ("[Node:p1 {keywords:[engine, computation], title:Notes on the Analytical Engine, type:paper, year:1843}]\n"
      "[neighbours:(p2:cited_by {title:On Bernoulli Numbers}),(a1:author {name:Ada Lovelace}),"
      "(v1:venue {name:Scientific Memoirs}),(a2:author {name:Charles Babbage})]")


def test_exact_bytes(tiny_graph):
    # p2 has degree 4; a1 and v1 have degree 2 and a2 degree 1: degree desc, then id
    assert tiny_graph.retriever.node_info("p1") == P1


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
