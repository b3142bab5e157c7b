"""Build a dataset's database (`glm-dspy build`): its graph loaded into Kuzu, its RetrieveNode
index, its question files, and the Cypher Act's example bank (graphs/cypher_examples.py).
What the reader changed or chose that a user should hear of (a renamed relation, a skipped
header, an unclear name property) is the report's `notes`, also kept in meta.json's `extra`."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from glm_dspy.graphs.cypher_examples import write_examples
from glm_dspy.graphs.datasets import load_dataset
from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.name_choice import choose_text_features
from glm_dspy.graphs.questions import write_questions
from glm_dspy.graphs.schema import TEXT_FEATURES


def node_texts(graph: GraphData):
    """(id, text) for every node: its name/title feature, else its id."""
    for node_table in graph.nodes.values():
        columns = node_table.table.column_names
        feature = graph.text_features.get(node_table.type) or next((f for f in TEXT_FEATURES if f in columns), None)
        ids = node_table.table.column("id").to_pylist()
        texts = node_table.table.column(feature).to_pylist() if feature else ids
        for node_id, text in zip(ids, texts):
            yield node_id, str(text) if text else node_id


@dataclass(slots=True)
class BuildReport:
    db_dir: Path
    name: str
    num_nodes: int
    num_edges: int
    load_seconds: float
    index_seconds: float
    index_kind: str
    notes: list[str]


def build_database(spec: str, db_dir: Path | str, *, embedder=None, overwrite: bool = False,
                   progress: bool = False, seed: int = 0, schema_examples: bool = True,
                   name_properties: dict[str, str] | None = None) -> BuildReport:
    """Load dataset `spec` into Kuzu at `db_dir` and build its RetrieveNode index. The Cypher
    Act's examples come from the dataset's train split, else (`schema_examples`) from the graph.
    `name_properties`: {node type: the property its nodes are known by} (graphs/name_choice.py)."""
    from glm_dspy.graphs.load import load_graph
    from glm_dspy.graphs.node_index import build_node_index, default_embedder

    graph, name, questions = load_dataset(spec, seed=seed)
    graph = choose_text_features(graph, name_properties)
    index_seconds, index_kind = 0.0, ""

    def finish(build_dir: Path) -> None:  # runs before the new database replaces any old one
        nonlocal index_seconds, index_kind
        started = time.perf_counter()
        info = build_node_index(build_dir, node_texts(graph), embedder or default_embedder(),
                                progress=progress)
        index_seconds, index_kind = time.perf_counter() - started, info.kind
        for file_name, file_questions in questions.items():
            write_questions(file_questions, build_dir / file_name)

    report = load_graph(graph, db_dir, name=name, overwrite=overwrite, progress=progress, finish=finish)
    write_examples(spec, db_dir, from_schema=schema_examples)  # Text2Cypher's examples
    return BuildReport(Path(db_dir), name, report.num_nodes, report.num_edges, report.seconds - index_seconds,
                       index_seconds, index_kind, list(graph.notes))
