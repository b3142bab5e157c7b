"""Templated questions with known answers over a `glm_dspy.graphs.synthetic` graph, in three tiers.

Each answer is computed here from the graph's Arrow tables (forward edges only: paper->author,
paper->venue, paper->reference); each question also carries an independent Cypher query over
the loaded Kuzu schema (`glm_dspy.graphs.schema`: tables `author`/`paper`/`venue`, rels `rel_<relation>`)
that re-derives it, often through the reverse relations. Entities are named in questions by
their unique name/title and in Cypher by id (a primary-key match, via `glm_dspy.graphs.literal`).

Answer format: one value as text; several values sorted and joined with ", " (`answer_text`);
`answer_from_rows` renders Cypher rows the same way. Questions whose answer would be ambiguous
(tied maxima, averages ending in .5) or long (more than MAX_LIST_ANSWER values) are never chosen.
Questions are `glm_dspy.graphs.questions.Question`s with `tier` and `cypher` set; `glm-dspy build
synthetic` stores them in the database folder (glm_dspy.graphs.questions JSON Lines).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.literal import string_literal
from glm_dspy.graphs.questions import TIERS, Question

MAX_LIST_ANSWER = 8
MAX_TRIES_PER_TEMPLATE = 10_000  # candidates looked at before a template counts as exhausted


def answer_text(values: Any) -> str:
    """A value, or a list of values, as answer text (lists sorted, joined with ', ')."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    return ", ".join(sorted(_text(v) for v in values))


def answer_from_rows(rows: list[dict[str, Any]]) -> str:
    """Cypher result rows (`GraphStore.query`) as answer text: every value of every row, lists flattened."""
    values = []
    for row in rows:
        for value in row.values():
            values.extend(value if isinstance(value, list) else [value])
    return answer_text(values)


def _text(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class _Graph:
    """Row-indexed view of a synthetic GraphData: adjacency as CSR arrays, features read per row.

    `out[(relation)][i]` lists, in ascending row order, the target rows of source row i;
    reverse adjacencies (`papers_of_author`, `papers_of_venue`, `citing`) are built from
    the same forward pairs, never from the stored reverse EdgeLists.
    """

    def __init__(self, graph: GraphData):
        missing = {"author", "paper", "venue"} - set(graph.nodes)
        if missing:
            raise ValueError(f"synthetic questions need node types author, paper, venue; missing {sorted(missing)}")
        self.tables = {t: n.table for t, n in graph.nodes.items()}
        self.years = self.tables["paper"].column("year").to_numpy()
        pairs = {name: self._pairs(graph, relation, dst) for name, relation, dst in
                 (("authors", "author", "author"), ("venue", "venue", "venue"), ("references", "reference", "paper"))}
        sizes = {t: table.num_rows for t, table in self.tables.items()}
        self.authors_of = _Csr.build(*pairs["authors"], sizes["paper"])
        self.papers_of_author = _Csr.build(*pairs["authors"][::-1], sizes["author"])
        self.venue_of = _Csr.build(*pairs["venue"], sizes["paper"])
        if not (np.diff(self.venue_of.offsets) == 1).all():
            raise ValueError("synthetic questions need every paper to have exactly one venue")
        self.papers_of_venue = _Csr.build(*pairs["venue"][::-1], sizes["venue"])
        self.references = _Csr.build(*pairs["references"], sizes["paper"])
        self.citing = _Csr.build(*pairs["references"][::-1], sizes["paper"])

    def _pairs(self, graph: GraphData, relation: str, dst_type: str) -> tuple[np.ndarray, np.ndarray]:
        edges = [e for e in graph.edges if (e.relation, e.src_type, e.dst_type) == (relation, "paper", dst_type)]
        if len(edges) != 1:
            raise ValueError(f"synthetic questions need exactly one paper -{relation}-> {dst_type} edge list")
        rows = []
        for column, node_type in (("src", "paper"), ("dst", dst_type)):
            row = pc.index_in(edges[0].table.column(column), value_set=self.tables[node_type].column("id"))
            if row.null_count:
                raise ValueError(f"paper -{relation}-> {dst_type}: {row.null_count} {column} ids are not {node_type}s")
            rows.append(row.to_numpy())
        return rows[0], rows[1]

    def feature(self, node_type: str, row: int | np.ndarray, column: str) -> Any:
        values = self.tables[node_type].column(column).take(pa.array(np.atleast_1d(row))).to_pylist()
        return values if isinstance(row, np.ndarray) else values[0]

    def literal(self, node_type: str, row: int) -> str:
        """The id of the row as a Cypher string literal."""
        return string_literal(self.feature(node_type, row, "id"))

    def title(self, row: int) -> str:
        return self.feature("paper", row, "title")

    def name(self, node_type: str, row: int) -> str:
        return self.feature(node_type, row, "name")


@dataclass(slots=True)
class _Csr:
    """targets[offsets[i]:offsets[i+1]] are source row i's targets, ascending, without duplicates."""

    offsets: np.ndarray
    targets: np.ndarray

    @classmethod
    def build(cls, src: np.ndarray, dst: np.ndarray, num_src: int) -> "_Csr":
        order = np.lexsort((dst, src))
        offsets = np.r_[0, np.cumsum(np.bincount(src, minlength=num_src))]
        return cls(offsets, np.asarray(dst)[order])

    def __getitem__(self, row: int) -> np.ndarray:
        return self.targets[self.offsets[row]:self.offsets[row + 1]]


# A template takes (graph, entity row, rng) and returns (question, answer, cypher), or None when
# the entity would give an ambiguous or unwieldy question.
Template = Callable[[_Graph, int, np.random.Generator], "tuple[str, Any, str] | None"]


# ---- single hop: one feature or one relation of a named entity ------------------------------
def paper_year(g: _Graph, p: int, rng) -> tuple[str, Any, str]:
    return (f'What year was the paper "{g.title(p)}" published?', int(g.years[p]),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}}) RETURN p.year")


def author_organization(g: _Graph, a: int, rng) -> tuple[str, Any, str]:
    return (f"Which organization is {g.name('author', a)} affiliated with?", g.feature("author", a, "organization"),
            f"MATCH (a:author {{id: {g.literal('author', a)}}}) RETURN a.organization")


def paper_authors(g: _Graph, p: int, rng) -> tuple[str, Any, str] | None:
    authors = g.authors_of[p]
    if len(authors) > MAX_LIST_ANSWER:
        return None
    return (f'Who are the authors of the paper "{g.title(p)}"?', g.feature("author", authors, "name"),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}})-[:rel_author]->(a:author) RETURN a.name")


def paper_venue(g: _Graph, p: int, rng) -> tuple[str, Any, str]:
    return (f'Which venue published the paper "{g.title(p)}"?', g.name("venue", g.venue_of[p][0]),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}})-[:rel_venue]->(v:venue) RETURN v.name")


def paper_keywords(g: _Graph, p: int, rng) -> tuple[str, Any, str]:
    return (f'What are the keywords of the paper "{g.title(p)}"?', g.feature("paper", p, "keywords"),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}}) RETURN p.keywords")


# ---- multi hop: a path of two or three relations -------------------------------------------
def author_paper_venue(g: _Graph, p: int, rng) -> tuple[str, Any, str]:
    a = int(rng.choice(g.authors_of[p]))
    return (f'In which venue did {g.name("author", a)} publish the paper "{g.title(p)}"?',
            g.name("venue", g.venue_of[p][0]),
            f"MATCH (a:author {{id: {g.literal('author', a)}}})-[:rel_paper]->(p:paper {{id: {g.literal('paper', p)}}})"
            f"-[:rel_venue]->(v:venue) RETURN v.name")


def coauthors_on_paper(g: _Graph, p: int, rng) -> tuple[str, Any, str] | None:
    authors = g.authors_of[p]
    if not 2 <= len(authors) <= MAX_LIST_ANSWER + 1:
        return None
    a = int(rng.choice(authors))
    return (f'Who are the co-authors of {g.name("author", a)} on the paper "{g.title(p)}"?',
            g.feature("author", authors[authors != a], "name"),
            f"MATCH (a:author {{id: {g.literal('author', a)}}})-[:rel_paper]->(p:paper {{id: {g.literal('paper', p)}}})"
            f"-[:rel_author]->(c:author) WHERE c.id <> a.id RETURN c.name")


def author_venues(g: _Graph, a: int, rng) -> tuple[str, Any, str] | None:
    papers = g.papers_of_author[a]
    venues = np.unique(g.venue_of.targets[papers])  # every paper has exactly one venue
    if len(papers) < 2 or len(venues) > MAX_LIST_ANSWER:
        return None
    return (f"In which venues has {g.name('author', a)} published?", g.feature("venue", venues, "name"),
            f"MATCH (a:author {{id: {g.literal('author', a)}}})-[:rel_paper]->(:paper)-[:rel_venue]->(v:venue) "
            f"RETURN DISTINCT v.name")


def citing_papers(g: _Graph, p: int, rng) -> tuple[str, Any, str] | None:
    citing = g.citing[p]
    if not 1 <= len(citing) <= MAX_LIST_ANSWER:
        return None
    return (f'Which papers cite the paper "{g.title(p)}"?', g.feature("paper", citing, "title"),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}})-[:rel_cited_by]->(c:paper) RETURN c.title")


def reference_authors(g: _Graph, p: int, rng) -> tuple[str, Any, str] | None:
    references = g.references[p]
    authors = np.unique(np.concatenate([g.authors_of[r] for r in references] or [np.empty(0, np.int64)]))
    if not 1 <= len(authors) <= MAX_LIST_ANSWER:
        return None
    return (f'Who wrote the papers cited by the paper "{g.title(p)}"?', g.feature("author", authors, "name"),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}})-[:rel_reference]->(:paper)-[:rel_author]->(a:author) "
            f"RETURN DISTINCT a.name")


# ---- aggregation: counts, maxima and averages over a neighbourhood -------------------------
def author_paper_count(g: _Graph, a: int, rng) -> tuple[str, Any, str]:
    return (f"How many papers has {g.name('author', a)} written?", len(g.papers_of_author[a]),
            f"MATCH (a:author {{id: {g.literal('author', a)}}})-[:rel_paper]->(p:paper) RETURN count(p)")


def paper_citation_count(g: _Graph, p: int, rng) -> tuple[str, Any, str]:
    return (f'How many papers cite the paper "{g.title(p)}"?', len(g.citing[p]),
            f"MATCH (p:paper {{id: {g.literal('paper', p)}}}) OPTIONAL MATCH (p)-[:rel_cited_by]->(c:paper) "
            f"RETURN count(c)")


def venue_top_author(g: _Graph, v: int, rng) -> tuple[str, Any, str] | None:
    papers = g.papers_of_venue[v]
    authors = np.concatenate([g.authors_of[p] for p in papers])
    counts = np.bincount(authors)
    top = np.flatnonzero(counts == counts.max())
    if len(top) != 1 or counts.max() < 2:  # a tie or a one-paper "maximum" would be ambiguous
        return None
    return (f"Which author has published the most papers in {g.name('venue', v)}?", g.name("author", int(top[0])),
            f"MATCH (v:venue {{id: {g.literal('venue', v)}}})-[:rel_paper]->(p:paper)-[:rel_author]->(a:author) "
            f"WITH a.name AS name, count(p) AS num_papers RETURN name ORDER BY num_papers DESC, name LIMIT 1")


def author_average_year(g: _Graph, a: int, rng) -> tuple[str, Any, str] | None:
    years = g.years[g.papers_of_author[a]]
    total = int(years.sum())
    if len(years) < 2 or 2 * (total % len(years)) == len(years):  # x.5 would depend on the rounding rule
        return None
    return (f"What is the average publication year of the papers by {g.name('author', a)}, "
            f"rounded to the nearest year?", int(np.floor(total / len(years) + 0.5)),
            f"MATCH (a:author {{id: {g.literal('author', a)}}})-[:rel_paper]->(p:paper) "
            f"RETURN CAST(round(avg(p.year), 0) AS INT64)")


def venue_year_count(g: _Graph, v: int, rng) -> tuple[str, Any, str]:
    years = g.years[g.papers_of_venue[v]]
    year = int(rng.choice(years))
    return (f"How many papers did {g.name('venue', v)} publish in {year}?", int((years == year).sum()),
            f"MATCH (v:venue {{id: {g.literal('venue', v)}}})-[:rel_paper]->(p:paper) WHERE p.year = {year} "
            f"RETURN count(p)")


# tier -> templates with the node type their entity is drawn from; a tier's questions cycle through them.
TEMPLATES: dict[str, list[tuple[str, Template]]] = {
    "single_hop": [("paper", paper_year), ("author", author_organization), ("paper", paper_authors),
                   ("paper", paper_venue), ("paper", paper_keywords)],
    "multi_hop": [("paper", author_paper_venue), ("paper", coauthors_on_paper), ("author", author_venues),
                  ("paper", citing_papers), ("paper", reference_authors)],
    "aggregation": [("author", author_paper_count), ("paper", paper_citation_count), ("venue", venue_top_author),
                    ("author", author_average_year), ("venue", venue_year_count)],
}
assert tuple(TEMPLATES) == TIERS, "one template list per tier, in TIERS order"


def make_questions(graph: GraphData, *, num_per_tier: int = 20, seed: int = 0) -> list[Question]:
    """`num_per_tier` questions per tier, deterministic for (graph, seed).

    A tier's templates take turns; each draws its entities in a seeded random order without
    repeats, skipping entities it rejects. Raises ValueError if a tier cannot be filled.
    """
    assert num_per_tier >= 0
    g, rng = _Graph(graph), np.random.default_rng(seed)
    questions = []
    for tier, templates in TEMPLATES.items():
        candidates = [iter(rng.permutation(g.tables[t].num_rows)[:MAX_TRIES_PER_TEMPLATE]) for t, _ in templates]
        is_live = [True] * len(templates)
        made = 0
        while made < num_per_tier and any(is_live):
            for i, (_, template) in enumerate(templates):
                if made == num_per_tier or not is_live[i]:
                    continue
                made_one = next((q for row in candidates[i] if (q := template(g, int(row), rng)) is not None), None)
                if made_one is None:
                    is_live[i] = False
                    continue
                text, answer, cypher = made_one
                questions.append(Question(f"{tier}-{made:03d}-{template.__name__}", text, answer_text(answer),
                                          tier=tier, cypher=cypher))
                made += 1
        if made < num_per_tier:
            raise ValueError(f"only {made} {tier} questions fit this graph ({num_per_tier} asked); "
                             "generate a larger graph or ask for fewer questions per tier")
    return questions

