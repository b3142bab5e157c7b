"""Walking the graph from a start (candidate plans from the graph, not from a model: "don't
generate, discriminate", Pangu, Gu, Deng and Su, ACL 2023). From a node the question names, walk
the graph's own relations outwards, hop by hop, and keep every path that reaches something: each
path, with what it returns at its end, is a well-typed query by construction.

Invariants: a path only takes a relation some node on it really has (each hop is found with a
query over the nodes the path has reached so far, so no path reads no rows); it never returns
straight back over the hop it came by, unless that reaches other nodes of the start's type (a
prize's co-laureates); at most `max_paths` paths, breadth first, shortest first; of two relations
that are each other's reverse, only one is walked (`inverse_relations`).
"""

from __future__ import annotations

from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Hop, Start, path_node, reverses, turns_back
from glm_dspy.graphs.cypher.printer import print_expression, print_pattern
from glm_dspy.graphs.literal import cypher_name, string_literal
from glm_dspy.graphs.schema import REL_PREFIX
from glm_dspy.graphs.triples import INVERSE_PREFIX

MAX_HOPS = 3
MAX_PATHS = 200
MAX_FRONTIER = 500  # nodes a path's end is sampled by, for the next hop's relations


def inverse_relations(store, schema) -> dict[tuple[str, str, str], tuple[str, str, str]]:
    """The (relation, source type, target type) edge sets that are exactly another's, reversed
    (each mapped to that other)
    (Nobel's `born_laureate` city->laureate is `birth_city` laureate->city backwards; a triples
    graph's `inv_r` is `r`'s): of each such pair, the one `graphs/triples.py` wrote as the
    inverse (`inv_r`), else the one whose relation name sorts last. Read from the data once per
    graph; a path never takes those (the other reaches the same nodes, and is read forwards as
    the source said it)."""
    triples = sorted(((r, s, d) for r, ps in schema.relations.items() for s, d in ps),
                     key=lambda t: (t[0].startswith(INVERSE_PREFIX), t))
    # every edge set's size in one scan; only two of one size can be each other's reverse, and
    # only those are read whole (once each) and compared
    sizes = {(row["r"].removeprefix(REL_PREFIX), row["s"], row["t"]): row["n"] for row in store.query(
        "MATCH (a)-[r]->(b) RETURN label(r) AS r, label(a) AS s, label(b) AS t, count(*) AS n")}
    by_size: dict[tuple, list[tuple[str, str, str]]] = {}
    for triple in triples:
        if sizes.get(triple):
            by_size.setdefault((sizes[triple], *sorted(triple[1:])), []).append(triple)
    skipped: dict[tuple[str, str, str], tuple[str, str, str]] = {}
    edges: dict[tuple[str, str, str], frozenset] = {}

    def edge_set(triple: tuple[str, str, str]) -> frozenset:
        """The (source id, target id) pairs of an edge set, read once."""
        if triple not in edges:
            relation, source, target = triple
            rows = store.query(f"MATCH (a:{cypher_name(source)})-[:{cypher_name(REL_PREFIX + relation)}]->"
                               f"(b:{cypher_name(target)}) RETURN a.id AS a, b.id AS b")
            edges[triple] = frozenset((row["a"], row["b"]) for row in rows)
        return edges[triple]

    for alike in by_size.values():
        for i, (relation, source, target) in enumerate(alike):
            for other, other_source, other_target in alike[i + 1:]:
                if (other_source, other_target) != (target, source) or (relation, source, target) in skipped:
                    continue
                backward = edge_set((other, other_source, other_target))
                if all((b, a) in backward for a, b in edge_set((relation, source, target))):
                    skipped[(other, other_source, other_target)] = (relation, source, target)
    return skipped


def paths_from(store, start: Start, *, max_hops: int = MAX_HOPS, max_paths: int = MAX_PATHS,
               inverses: dict[tuple[str, str, str], tuple] | None = None) -> list[tuple[Hop, ...]]:
    """Every path of at most `max_hops` hops the graph really has from `start`, breadth first.
    `inverses` (`inverse_relations`): a relation that is another's reverse is not taken."""
    inverses = inverses or {}
    found: list[tuple[Hop, ...]] = [()]
    frontier: list[tuple[Hop, ...]] = [()]
    for _ in range(max_hops):
        grown = []
        for path in frontier:
            here = path[-1].type_name if path else start.type_name
            for hop in _next_hops(store, start, path):
                edge = (hop.relation, here, hop.type_name) if hop.outgoing else (hop.relation, hop.type_name, here)
                if edge in inverses:
                    continue
                if path and reverses(path[-1], hop) and hop.type_name != start.type_name:
                    continue
                grown.append((*path, hop))
                if len(found) + len(grown) >= max_paths:
                    return found + grown
        found += grown + _unions(grown)
        frontier = grown
    return found


def _unions(paths: list[tuple[Hop, ...]]) -> list[tuple[Hop, ...]]:
    """For paths alike but for the type their last hop reaches (a mentor who is a laureate, a
    mentor who is a scholar), one more path whose end is any of those types."""
    by_step: dict[tuple, list[Hop]] = {}
    for path in paths:
        by_step.setdefault((path[:-1], path[-1].relation, path[-1].outgoing), []).append(path[-1])
    return [(*prefix, Hop(relation, outgoing, hops[0].type_name, tuple(h.type_name for h in hops[1:])))
            for (prefix, relation, outgoing), hops in by_step.items() if len(hops) > 1]


def _next_hops(store, start: Start, path: tuple[Hop, ...]) -> list[Hop]:
    """The relations that leave (or reach) the nodes at the end of `path`, with the types they go
    to. A hop back over the relation just taken counts only where it reaches some node other
    than the one it left and the start (a path back reaches others, or is not taken:
    `walked_back`); any other hop may reach the start itself (a self-loop, a cycle)."""
    excludes = bool(path) and start.type_name in path[-1].labels and turns_back(path)
    probe = Candidate(start, path, COUNT, excludes).match("x", named=True)
    pattern = print_pattern(probe.patterns[0])
    where = f" WHERE {print_expression(probe.where)}" if probe.where is not None else ""
    previous = path_node("x", len(path), len(path) - 1) if path else "x"  # the node the path's last hop left
    carried = ", ".join(dict.fromkeys(["a", previous, "x"])) if path else "x"
    hops = []
    for outgoing, arrow in ((True, "-[glm_r]->"), (False, "<-[glm_r]-")):
        back = path and path[-1].outgoing != outgoing  # the hop just taken, reversed: to another node (`walked_back`)
        other = f"(glm_b <> {previous} AND glm_b <> a) OR label(glm_r) <> {string_literal(REL_PREFIX + path[-1].relation)}" \
            if back else "true"
        rows = store.query(f"MATCH {pattern}{where} WITH DISTINCT {carried} LIMIT {MAX_FRONTIER} "
                           f"MATCH (x){arrow}(glm_b) WHERE {other} "
                           f"RETURN DISTINCT label(glm_r) AS r, label(glm_b) AS t")
        hops += [Hop(row["r"].removeprefix(REL_PREFIX), outgoing, row["t"]) for row in rows]
    return sorted(hops, key=lambda hop: (hop.relation, not hop.outgoing, hop.type_name))


__all__ = ["inverse_relations", "paths_from", "MAX_HOPS", "MAX_PATHS", "MAX_FRONTIER"]
