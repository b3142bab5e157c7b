"""Materialize the NodeInfo view at load: each node's top-K neighbours as list columns.

The view (`graphs.schema.node_info_query`) is the definition: a node's neighbours ordered by
neighbour degree descending, then neighbour id, then relation, first K. Evaluated live in
Kuzu 0.11.3 it costs ~4-10 ms per node (fetching string ids of neighbours spread over many
storage morsels), so the loader computes the same order once, vectorized, and stores it in
four list columns per node table:
    glm_nbr_ids    neighbour ids             glm_nbr_rels   relation of each edge
    glm_nbr_types  neighbour node types      glm_nbr_texts  neighbour's label text (or null)
NodeInfo is then one primary-key lookup. Any k <= K is a prefix of the stored lists; a
larger k falls back to the live view. tests/test_vertex_chunk.py checks that both agree.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from graphs.model import GraphData, NodeTable

DEFAULT_K = 10
NBR_IDS, NBR_RELS, NBR_TYPES, NBR_TEXTS = "glm_nbr_ids", "glm_nbr_rels", "glm_nbr_types", "glm_nbr_texts"
COLUMNS = (NBR_IDS, NBR_RELS, NBR_TYPES, NBR_TEXTS)


def with_top_neighbours(graph: GraphData, text_features: dict[str, str | None], degree: str, k: int) -> GraphData:
    """Append the four `glm_nbr_*` list columns to every node table (needs `degree` present)."""
    types = list(graph.nodes)
    ids = pa.chunked_array([graph.nodes[t].table.column("id").cast(pa.string()) for t in types]).combine_chunks()
    # code = rank of the id in byte order, so comparing codes compares ids as Kuzu does
    by_id = pc.sort_indices(ids).to_numpy()
    code_of_row = np.empty(len(ids), np.int64)
    code_of_row[by_id] = np.arange(len(ids))
    sorted_ids = ids.take(pa.array(by_id))
    degrees = np.concatenate([graph.nodes[t].table.column(degree).to_numpy() for t in types])[by_id]
    type_codes = np.concatenate([np.full(graph.nodes[t].table.num_rows, i, np.int16) for i, t in enumerate(types)])
    type_codes = type_codes[by_id]
    texts = pa.chunked_array([_texts(graph.nodes[t], text_features.get(t)) for t in types]).combine_chunks()
    texts = texts.take(pa.array(by_id))

    relations = sorted({e.relation for e in graph.edges})
    src, dst, rel = [], [], []
    for edges in graph.edges:
        src.append(pc.index_in(edges.table.column("src"), value_set=sorted_ids).to_numpy(zero_copy_only=False))
        dst.append(pc.index_in(edges.table.column("dst"), value_set=sorted_ids).to_numpy(zero_copy_only=False))
        rel.append(np.full(edges.table.num_rows, relations.index(edges.relation), np.int16))
    src = np.concatenate(src).astype(np.int64) if src else np.zeros(0, np.int64)
    dst = np.concatenate(dst).astype(np.int64) if dst else np.zeros(0, np.int64)
    rel = np.concatenate(rel) if rel else np.zeros(0, np.int16)

    order = np.lexsort((rel, dst, -degrees[dst], src))  # last key is primary
    src, dst, rel = src[order], dst[order], rel[order]
    starts = np.flatnonzero(np.r_[True, src[1:] != src[:-1]]) if len(src) else np.zeros(0, np.int64)
    rank = np.arange(len(src)) - np.repeat(starts, np.diff(np.r_[starts, len(src)]))
    keep = rank < k
    src, dst, rel = src[keep], dst[keep], rel[keep]
    offsets = pa.array(np.searchsorted(src, np.arange(len(ids) + 1)).astype(np.int32))
    dst_arrow = pa.array(dst)
    lists = {
        NBR_IDS: pa.ListArray.from_arrays(offsets, sorted_ids.take(dst_arrow)),
        NBR_RELS: pa.ListArray.from_arrays(offsets, pa.array(relations, pa.string()).take(pa.array(rel))),
        NBR_TYPES: pa.ListArray.from_arrays(offsets, pa.array(types, pa.string()).take(pa.array(type_codes[dst]))),
        NBR_TEXTS: pa.ListArray.from_arrays(offsets, texts.take(dst_arrow)),
    }
    nodes, start = {}, 0
    for type_name in types:
        table = graph.nodes[type_name].table
        codes = pa.array(code_of_row[start:start + table.num_rows])
        start += table.num_rows
        for column, values in lists.items():
            table = table.append_column(column, values.take(codes))
        nodes[type_name] = NodeTable(type_name, table)
    return GraphData(nodes, graph.edges)


def _texts(nodes: NodeTable, feature: str | None) -> pa.Array:
    if feature is None:
        return pa.nulls(nodes.table.num_rows, pa.string())
    return nodes.table.column(feature).cast(pa.string()).combine_chunks()
