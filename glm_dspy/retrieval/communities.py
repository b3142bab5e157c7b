"""Communities around a node (FastToG): local community detection, coarse pruning, text.

`Communities(graph).around(node_id)`:
  1. the node's neighbourhood: up to `hops` hops out, each node keeping its `max_neighbours`
     highest-degree neighbours, at most `max_nodes` nodes (one Cypher query per node expanded)
  2. community detection on it without the start node (networkx's Louvain, seeded: the same
     graph gives the same communities)
  3. coarse pruning: the communities next to the start node, ranked by their modularity
     contribution Q(c) = L_c / m - (d_c / 2m)^2 (L_c: edges inside c, d_c: the degrees of its
     nodes, m: edges of the neighbourhood), the top `k` kept
  4. each as text, one triple a line: `<name> -<relation>-> <name>` (FastToG's Triple2Text),
     the start node's edges into the community first
The `fasttog` arm reasons over them community by community (glm_dspy/modules/fasttog.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from glm_dspy.graphs.literal import string_literal
from glm_dspy.graphs.schema import REL_PREFIX

DEFAULT_HOPS = 2
DEFAULT_MAX_NEIGHBOURS = 15
DEFAULT_MAX_NODES = 200
DEFAULT_TOP_K = 4
MAX_TRIPLES = 25  # per community in its text


@dataclass(frozen=True, slots=True)
class Community:
    nodes: frozenset[str]
    modularity: float
    triples: tuple[tuple[str, str, str], ...]  # (source name, relation, target name)

    def text(self, max_triples: int = MAX_TRIPLES) -> str:
        lines = [f"{s} -{r}-> {t}" for s, r, t in self.triples[:max_triples]]
        if len(self.triples) > max_triples:
            lines.append(f"... {len(self.triples) - max_triples} more")
        return "\n".join(lines)


class Communities:
    def __init__(self, graph, *, hops: int = DEFAULT_HOPS, max_neighbours: int = DEFAULT_MAX_NEIGHBOURS,
                 max_nodes: int = DEFAULT_MAX_NODES, top_k: int = DEFAULT_TOP_K, seed: int = 0):
        assert hops >= 1 and max_neighbours >= 1 and max_nodes >= 2 and top_k >= 1
        self.graph, self.hops, self.max_neighbours, self.max_nodes = graph, hops, max_neighbours, max_nodes
        self.top_k, self.seed = top_k, seed

    def neighbourhood(self, node_id: str, exclude: frozenset[str] = frozenset()) -> nx.MultiDiGraph:
        """The node's neighbourhood (module doc, 1), directed edges labelled by relation."""
        store = self.graph.store
        found = nx.MultiDiGraph()
        found.add_node(node_id)
        frontier = [node_id]
        for _ in range(self.hops):
            next_frontier = []
            for current in frontier:
                type_name = store.type_of(current)
                if type_name is None:
                    continue
                rows = store.query(
                    f"MATCH (n:`{type_name}` {{id: {string_literal(current)}}})-[r]->(m) "
                    f"RETURN label(r) AS relation, m.id AS id ORDER BY m.degree DESC, m.id "
                    f"LIMIT {self.max_neighbours}")
                for row in rows:
                    if row["id"] in exclude:
                        continue
                    if row["id"] not in found and found.number_of_nodes() >= self.max_nodes:
                        continue
                    if row["id"] not in found:
                        next_frontier.append(row["id"])
                    found.add_edge(current, row["id"], relation=row["relation"].removeprefix(REL_PREFIX))
            frontier = next_frontier
        return found

    def around(self, node_id: str, exclude: frozenset[str] = frozenset()) -> list[Community]:
        """The top-k communities next to `node_id` by modularity (module doc), best first."""
        directed = self.neighbourhood(node_id, exclude)
        undirected = nx.Graph(directed)
        rest = undirected.copy()
        rest.remove_node(node_id)
        if rest.number_of_nodes() == 0:
            return []
        if rest.number_of_edges() == 0:
            parts = [{n} for n in rest.nodes]  # a star: every neighbour is a community of its own
        else:
            parts = nx.community.louvain_communities(rest, seed=self.seed)
        m = undirected.number_of_edges() or 1
        touching = set(undirected.neighbors(node_id))
        scored = []
        for part in parts:
            if not part & touching:
                continue
            inside = undirected.subgraph(part).number_of_edges()
            degrees = sum(d for _, d in undirected.degree(part))
            scored.append((inside / m - (degrees / (2 * m)) ** 2, sorted(part)))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [self._community(directed, node_id, set(part), q) for q, part in scored[: self.top_k]]

    def _community(self, directed: nx.MultiDiGraph, start: str, part: set[str], modularity: float) -> Community:
        label = self._labeller()
        members = part | {start}
        edges = [(s, data["relation"], t) for s, t, data in directed.edges(data=True) if s in members and t in members]
        edges.sort(key=lambda e: (start not in (e[0], e[2]), e))  # the start node's edges first
        return Community(frozenset(part), round(modularity, 6),
                         tuple((label(s), relation, label(t)) for s, relation, t in edges))

    def _labeller(self):
        retriever, names = self.graph.retriever, {}

        def label(node_id: str) -> str:
            if node_id not in names:
                names[node_id] = retriever.label(node_id) or node_id
            return names[node_id]
        return label
