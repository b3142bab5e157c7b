"""`open_graph`: everything a program needs from one database directory, opened once.

A `Graph` owns the Kuzu store, the RetrieveNode index and the retriever built on them;
`executor()` hands out a sandboxed snippet executor bound to the graph functions, and
`name_matcher()` matches names the graph lacks to its own by meaning (autofix), built once per graph.
Closing the graph closes the executors it handed out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from glm_dspy.retrieval.retriever import DEFAULT_NUM_NEIGHBOURS, Retriever
from glm_dspy.graphs.node_index import NodeIndex
from glm_dspy.graphs.schema import GraphSchema
from glm_dspy.graphs.store import GraphStore


@dataclass(slots=True)
class Graph:
    store: GraphStore
    retriever: Retriever
    _executors: list = field(default_factory=list)
    _name_matcher: object | None = None

    def name_matcher(self):
        """The graph's feature and neighbour-type names, matched by meaning (glm_dspy/executor/autofix.py
        NameMatcher, on the RetrieveNode embedder); built once, None without a node index."""
        if self._name_matcher is None and self.retriever.node_index is not None:
            from glm_dspy.executor.autofix import NameMatcher

            features, neighbour_types = self.schema.names()
            self._name_matcher = NameMatcher(features + neighbour_types, self.retriever.node_index.embedder)
        return self._name_matcher

    @property
    def schema(self) -> GraphSchema:
        return self.store.schema

    def executor(self, *, timeout_s: float = 5.0, num_workers: int = 1):
        """A `SnippetExecutor` whose snippets can call this graph's functions."""
        from glm_dspy.executor import SnippetExecutor

        executor = SnippetExecutor(self.retriever.functions(), timeout_s=timeout_s, num_workers=num_workers)
        self._executors.append(executor)
        return executor

    def close(self) -> None:
        for executor in self._executors:
            executor.close()
        self._executors.clear()
        self.store.close()  # its question workers; started again by the next `read`

    def __deepcopy__(self, memo) -> "Graph":
        return self  # a database handle is shared, never copied (DSPy optimizers deep-copy programs)

    def __enter__(self) -> "Graph":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def open_graph(db_dir: Path | str, *, num_neighbours: int = DEFAULT_NUM_NEIGHBOURS,
               query_timeout_ms: int = 5000, embedder=None) -> Graph:
    """Open a database built by `glm-dspy build` (Kuzu store + RetrieveNode index)."""
    store = GraphStore.open(db_dir, query_timeout_ms=query_timeout_ms)
    node_index = NodeIndex.open(Path(db_dir), embedder)
    return Graph(store, Retriever(store, node_index, num_neighbours=num_neighbours))
