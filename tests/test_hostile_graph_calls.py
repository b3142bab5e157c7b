"""Hostile snippets aimed at the graph functions, which run in the parent process: each ends
within the snippet's deadline plus one second, as a clear error or a bounded output, and the
database is unchanged after the whole suite.

One module-wide executor (timeout 2 s) over the real Nobel graph serves the cases in order;
each case is followed by a healthy run, so the next one starts with a live worker (a fresh
worker's start-up is not the snippet's time). The last test compares the database's bytes and
counts with those taken before the first case.
"""

import hashlib
import time

import pytest

from glm_dspy.executor import SnippetExecutor
from glm_dspy.retrieval.retriever import CallLimits, Retriever

TIMEOUT_S = 2.0
TIMED_OUT = f"TimeoutError: snippet exceeded {TIMEOUT_S} s"
# a call over a limit is refused by its size, not its time: building a million ids takes more than
# TIMEOUT_S on a loaded machine, so those cases run under a deadline no machine reaches first
LIMIT_TIMEOUT_S = 60.0
HUB = "country_usa"  # the Nobel graph's largest neighbourhood: its cities


def fingerprint(db_dir, store) -> tuple[str, int, int]:
    """(sha256 over every file's path and bytes, number of nodes, number of edges)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in db_dir.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(db_dir)).encode() + b"\0" + path.read_bytes())
    num_nodes = store.query("MATCH (n) RETURN count(*) AS n")[0]["n"]
    num_edges = store.query("MATCH ()-[r]->() RETURN count(*) AS n")[0]["n"]
    return digest.hexdigest(), num_nodes, num_edges


@pytest.fixture(scope="module")
def database_before(nobel_db, nobel_graph):
    return fingerprint(nobel_db, nobel_graph.store)


def healthy_executor(graph, timeout_s):
    snippet_executor = graph.executor(timeout_s=timeout_s)
    assert_healthy(snippet_executor)
    yield snippet_executor
    snippet_executor.close()


@pytest.fixture(scope="module")
def executor(nobel_graph, database_before):
    yield from healthy_executor(nobel_graph, TIMEOUT_S)


@pytest.fixture(scope="module")
def limit_executor(nobel_graph, database_before):
    yield from healthy_executor(nobel_graph, LIMIT_TIMEOUT_S)


@pytest.fixture(scope="module")
def small_executor(nobel_graph, database_before):
    """Over a retriever whose NeighbourCheck returns at most 50 ids (the hub has more)."""
    retriever = Retriever(nobel_graph.store, nobel_graph.retriever.node_index,
                          limits=CallLimits(max_neighbours=50))
    with SnippetExecutor(retriever.functions(), timeout_s=TIMEOUT_S) as snippet_executor:
        assert_healthy(snippet_executor)
        yield snippet_executor


def assert_healthy(executor):
    result = executor.run('print(NodeFeature("l6", "name"))')
    assert (result.output, result.error) == ("Marie Curie\n", None)


def run_timed(executor, code, timeout_s=TIMEOUT_S):
    started = time.monotonic()
    result = executor.run(code)
    elapsed = time.monotonic() - started
    assert elapsed < timeout_s + 1.0, (code[:80], elapsed)
    assert len(result.output) <= 4000
    assert_healthy(executor)
    return result


LIMIT_ERRORS = {
    "node_info_100k_ids": (
        'print(NodeInfo(["l6"] * 100000))',
        "ValueError: NodeInfo: at most 100 ids per call, got 100000; pass a slice such as ids[:100], "
        "or loop over slices of 100 (line 1)"),
    "node_feature_1m_ids": (
        'ids = ["l6"] * 10**6\nx = NodeFeature(ids, "name")',
        "ValueError: NodeFeature: at most 100 ids per call, got 1000000; pass a slice such as "
        "ids[:100], or loop over slices of 100 (line 2)"),
    "degree_of_100k_ids": (
        'print(NodeDegree(["l6"] * 100000, "prize"))',
        "ValueError: NodeDegree: at most 100 ids per call, got 100000; pass a slice such as ids[:100], "
        "or loop over slices of 100 (line 1)"),
    "neighbours_of_100k_ids": (
        'print(NeighbourCheck(["l6"] * 100000, "award"))',
        "ValueError: NeighbourCheck: at most 100 ids per call, got 100000; pass a slice such as ids[:100], "
        "or loop over slices of 100 (line 1)"),
    "node_info_101_ids": (
        'print(NodeInfo(["l6"] * 101))',
        "ValueError: NodeInfo: at most 100 ids per call, got 101; pass a slice such as ids[:100], "
        "or loop over slices of 100 (line 1)"),
    "huge_arguments": (
        'NodeInfo(["l" * 1000] * 20000)',  # 20 MB of JSON: refused in the worker
        "ValueError: the arguments of NodeInfo() take more than 16 MB; pass fewer or shorter values "
        "(line 1)"),
}


@pytest.mark.parametrize("name", list(LIMIT_ERRORS))
def test_a_call_over_a_limit_is_a_clear_error(limit_executor, name):
    code, error = LIMIT_ERRORS[name]
    result = run_timed(limit_executor, code, LIMIT_TIMEOUT_S)
    assert result.error == error


def test_a_hub_neighbour_check_is_an_error_that_names_node_degree(small_executor, nobel_graph):
    assert nobel_graph.retriever.node_degree(HUB, "city") > 50
    result = run_timed(small_executor, f'print(len(NeighbourCheck("{HUB}", "city")))')
    assert result.error == (f"ValueError: NeighbourCheck: node {HUB} has more than 50 'city' neighbours, "
                            f"more than one call returns; count them with NodeDegree('{HUB}', 'city') "
                            "(line 1)")


@pytest.mark.parametrize("code", [
    'for i in range(10**6):\n    NodeDegree("l6", "prize")',
    'for i in range(10**6):\n    NodeInfo(["l6"] * 100)',
    'for i in range(10**6):\n    NodeFeature(["l6", "l5"] * 50, "motivation")',
    'for i in range(10**6):\n    NeighbourCheck("country_usa", "city")',
    'for i in range(10**6):\n    RetrieveNode(f"Marie Curie {i}")',
    'x = []\nfor i in range(10**6):\n    x.append(NodeInfo(["l6"] * 100))',
], ids=["degree", "node_info", "node_feature", "neighbour_check", "retrieve_node", "kept_results"])
def test_a_loop_of_graph_calls_ends_at_the_deadline(executor, code):
    result = run_timed(executor, code)
    assert result.error == TIMED_OUT and result.num_calls > 0


@pytest.mark.parametrize("code, shown", [
    ('print(RetrieveNode("x" * 10**7))',
     "RetrieveNode needs a short text such as a name or title (at most 1000 characters), "
     "got 10000000 characters\n"),
    ('print(NeighbourCheck("l6", "x" * 10**7))',
     "laureate node l6 has no neighbour type 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'"
     "...; valid: ['birth_city', 'institution', 'mentor', 'prize', 'student']\n"),
    ('print(NodeDegree([["l6"] * 100000], "prize"))',
     "NodeDegree got a list of lists [['l6', 'l6', 'l6', 'l6', 'l6', 'l6', 'l6', 'l6', 'l6', 'l6'..."
     "; flatten it: [i for ids in lists for i in ids] (NeighbourCheck(ids, t) already returns one flat list)\n"),
    ('print(NodeDegree(NodeInfo(["l6"] * 100), "prize"))',
     "NodeDegree got NodeInfo's text (a vertex chunk '[Node:l6 {birth_date:1867-11-07, death_date:1934-07-04, "
     "fami'...), not an id; its node's id is 'l6'; use RetrieveNode(...) or NeighbourCheck(...) to get ids\n"),
    ('print(NodeInfo("l" * 10**6))', "invalid node id: node id is 1000000 characters long (at most 1024)\n"),
], ids=["retrieve_node", "neighbour_type", "degree_of_nested_lists", "degree_of_chunks", "node_info_long_id"])
def test_huge_input_is_a_short_observation(executor, code, shown):
    result = run_timed(executor, code)
    assert (result.output, result.error, result.is_observation_only) == (shown, None, True)


def test_huge_feature_name_is_quoted_short(executor):
    result = run_timed(executor, 'print(NodeFeature("l6", "f" * 10**7))')
    assert result.output.startswith("laureate node l6 has no feature 'ffff") and len(result.output) < 400
    assert result.is_observation_only and result.error is None


def test_many_bad_ids_fill_the_output_limit_not_the_parent(executor):
    result = run_timed(executor, 'print(NodeInfo(["x" * 1000] * 100))')
    assert result.error.startswith("OutputLimitError: ") and len(result.output) == 4000


def test_database_is_unchanged_after_the_hostile_suite(nobel_db, nobel_graph, database_before):
    assert fingerprint(nobel_db, nobel_graph.store) == database_before
