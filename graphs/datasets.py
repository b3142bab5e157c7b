"""Dataset names -> graphs, and `build_database`, the whole `glm-dspy build` job.

Names: `synthetic[:NODES]`, `nobel`, `pathquestion[:pq|pql]`, `grbench:PATH/graph.json`.
Source files come from `GLM_DATA_DIR` or the repository's `datasets/` folder.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from graphs.graph_data import GraphData
from graphs.schema import TEXT_FEATURES

REPO_DATA_DIR = Path(__file__).resolve().parent.parent / "datasets"
QUESTIONS_FILE = "questions.jsonl"
DEFAULT_SYNTHETIC_NODES = 10_000


def data_dir() -> Path:
    path = Path(os.environ.get("GLM_DATA_DIR", REPO_DATA_DIR))
    if not path.is_dir():
        raise FileNotFoundError(f"data folder {path} not found; set GLM_DATA_DIR to the folder holding nobel/, pathquestion/")
    return path


def parse_size(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    try:
        return int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        raise ValueError(f"not a node count: {text!r} (examples: 5000, 200k, 1m)") from None


def load_dataset(spec: str, *, seed: int = 0) -> tuple[GraphData, str, list | None]:
    """(graph, name, questions or None) for a dataset name (see module doc)."""
    kind, _, arg = spec.partition(":")
    if kind == "synthetic":
        from graphs.synthetic import generate
        from graphs.synthetic_questions import make_questions

        graph = generate(parse_size(arg) if arg else DEFAULT_SYNTHETIC_NODES, seed=seed)
        return graph, "synthetic", make_questions(graph, seed=seed)
    if kind == "nobel":
        from graphs.nobel import nobel_graph

        return nobel_graph(data_dir() / "nobel"), "nobel", None
    if kind == "pathquestion":
        from graphs.pathquestion import pathquestion_graph

        return pathquestion_graph(data_dir() / "pathquestion", arg or "pq"), "pathquestion", None
    if kind == "grbench":
        from graphs.grbench import read_graph_json

        if not arg:
            raise ValueError("grbench needs a path: grbench:PATH/graph.json")
        return read_graph_json(arg), "grbench", None
    raise ValueError(f"unknown dataset {spec!r}; use synthetic[:NODES], nobel, pathquestion[:pql] or grbench:PATH")


def node_texts(graph: GraphData):
    """(id, text) for every node: its name/title feature, else its id."""
    for node_table in graph.nodes.values():
        columns = node_table.table.column_names
        feature = next((f for f in TEXT_FEATURES if f in columns), None)
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


def build_database(spec: str, db_dir: Path | str, *, embedder=None, overwrite: bool = False,
                   progress: bool = False, seed: int = 0) -> BuildReport:
    """Load dataset `spec` into Kuzu at `db_dir` and build its RetrieveNode index."""
    from graphs.load import load_graph
    from graphs.node_index import SentenceTransformerEmbedder, build_node_index

    graph, name, questions = load_dataset(spec, seed=seed)
    index_seconds, index_kind = 0.0, ""

    def finish(build_dir: Path) -> None:  # runs before the new database replaces any old one
        nonlocal index_seconds, index_kind
        started = time.perf_counter()
        info = build_node_index(build_dir, node_texts(graph), embedder or SentenceTransformerEmbedder(),
                                progress=progress)
        index_seconds, index_kind = time.perf_counter() - started, info.kind
        if questions:
            from graphs.synthetic_questions import write_questions

            write_questions(questions, build_dir / QUESTIONS_FILE)

    report = load_graph(graph, db_dir, name=name, overwrite=overwrite, progress=progress, finish=finish)
    return BuildReport(Path(db_dir), name, report.num_nodes, report.num_edges, report.seconds - index_seconds,
                       index_seconds, index_kind)
