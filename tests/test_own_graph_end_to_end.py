"""End to end with the real default model on a graph of one's own: the shipped CSV folder
examples/movies, built with `csv:` (its Cypher examples come from its schema), answers a lookup.

Slow (the in-process engine starts in ~30-60 s on 2 CPU cores): marked `slow`, run by
`make test`, skipped with GLM_SKIP_SLOW=1."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

MOVIES = Path(__file__).parent.parent / "examples" / "movies"


@pytest.fixture(scope="module")
def movies_graph(tmp_path_factory, embedder):
    from glm_dspy.graph import open_graph
    from glm_dspy.graphs.build import build_database

    db = tmp_path_factory.mktemp("movies") / "db"
    build_database(f"csv:{MOVIES}", db, embedder=embedder)
    with open_graph(db, embedder=embedder) as graph:
        yield graph


def test_a_lookup_on_the_example_csv_graph(movies_graph):
    import dspy

    import glm_dspy
    from glm_dspy.modules.glm import GLM

    glm_dspy.configure()
    try:
        prediction = GLM(movies_graph)(question="In which year was Forrest Gump released?")
    finally:
        dspy.configure(lm=None)
    assert "1994" in prediction.answer, prediction.steps
