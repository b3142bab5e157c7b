"""Shared fixtures: small real Kuzu databases under tmp dirs, built once per session."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# the vectors of graphs' fixed texts that a test embeds go to a folder of the suite's, not to the
# user's cache (glm_dspy/modules/stored_vectors.py); the processes the tests start inherit it
if not os.environ.get("GLM_DSPY_VECTORS"):
    os.environ["GLM_DSPY_VECTORS"] = tempfile.mkdtemp(prefix="glm-dspy-test-vectors-")
    atexit.register(shutil.rmtree, os.environ["GLM_DSPY_VECTORS"], True)

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def embedder():
    from glm_dspy.graphs.node_index import default_embedder

    return default_embedder()


def triples_db(folder: Path, triples: str) -> Path:
    """A database `glm-dspy build triples:` makes of `triples` (subject TAB relation TAB object
    lines), written to `folder`; its bank is the one the build writes."""
    from glm_dspy import cli

    (folder / "kb.tsv").write_text(triples)
    assert cli.main(["build", f"triples:{folder / 'kb.tsv'}", "--db", str(folder / "db")]) == 0
    return folder / "db"


@pytest.fixture(scope="session")
def tiny_db(tmp_path_factory, embedder) -> Path:
    """The GRBench-format fixture graph (3 authors, 2 papers, 1 venue) with its node index, built
    without the Cypher examples a graph gets from its schema: on it GLM acts in Python, the paper's
    Act (tests/test_schema_examples.py builds it with them)."""
    from glm_dspy.graphs.build import build_database

    db = tmp_path_factory.mktemp("tiny") / "db"
    build_database(f"grbench:{FIXTURES / 'grbench_tiny.json'}", db, embedder=embedder, schema_examples=False)
    return db


@pytest.fixture(scope="session")
def nobel_db(tmp_path_factory, embedder) -> Path:
    from glm_dspy.graphs.build import build_database

    db = tmp_path_factory.mktemp("nobel") / "db"
    build_database("nobel", db, embedder=embedder)
    return db


@pytest.fixture(scope="session")
def tiny_graph(tiny_db, embedder):
    from glm_dspy.graph import open_graph

    with open_graph(tiny_db, embedder=embedder) as graph:
        yield graph


@pytest.fixture(scope="session")
def nobel_graph(nobel_db, embedder):
    from glm_dspy.graph import open_graph

    with open_graph(nobel_db, embedder=embedder) as graph:
        yield graph


@pytest.fixture(scope="session")
def movies_graph(tmp_path_factory, embedder):
    """The shipped CSV folder examples/movies (people, movies, genres), built with `csv:`."""
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    db = tmp_path_factory.mktemp("movies") / "db"
    build_database(f"csv:{FIXTURES.parent.parent / 'examples' / 'movies'}", db, embedder=embedder)
    with open_graph(db, embedder=embedder) as graph:
        yield graph


@pytest.fixture(scope="session")
def verbs_world(tmp_path_factory, embedder):
    """The made-up verb-named graph of glm_dspy/graphs/verb_world.py, seed 0, built with `csv:`:
    (its graph, its generated nodes and edges)."""
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database
    from glm_dspy.graphs.verb_world import generate, write

    folder = tmp_path_factory.mktemp("verbs")
    write(folder, seed=0)
    build_database(f"csv:{folder / 'graph'}", folder / "db", embedder=embedder)
    with open_graph(folder / "db", embedder=embedder) as graph:
        yield graph, *generate(0)


def pytest_collection_modifyitems(config, items):
    """`GLM_SKIP_SLOW=1` skips tests marked slow (real model, 1M-node graph); `make test` runs them."""
    if os.environ.get("GLM_SKIP_SLOW") != "1":
        return
    skip = pytest.mark.skip(reason="GLM_SKIP_SLOW=1")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
