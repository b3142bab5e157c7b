"""A seeded, GRBench-style academic graph (like GRBench's DBLP), built with numpy/pyarrow only.

Nodes: author(name, organization), paper(title, year, keywords: list<string>, abstract), venue(name).
Relations are named by the neighbour type and stored in both directions, as GRBench's graph.json:
paper -author-> author, author -paper-> paper, paper -venue-> venue, venue -paper-> paper,
paper -reference-> paper, paper -cited_by-> paper.

Invariants of `generate(num_nodes, seed=s)`:
* the same arguments give byte-identical tables: one `np.random.default_rng(s)`, drawn in a fixed order;
* ids are `a<i>`, `p<i>`, `v<i>` (row i of the type's table), so they are unique across types;
* papers are in non-decreasing year order, and a paper references only papers of a strictly
  earlier year; a paper's references, authors and venue hold no duplicates;
* author names, paper titles and venue names are each unique (clashes get a deterministic
  middle initial / suffix, by order of appearance);
* every paper has one venue and 1..10 authors; every author and every venue has >= 1 paper;
* a reverse EdgeList is its forward one with `src`/`dst` swapped (shared buffers, same pairs);
* degrees are heavy-tailed: author productivity and citation fitness are lognormal, venue
  popularity and affiliations Zipf-like.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from glm_dspy.graphs.graph_data import EdgeList, GraphData, NodeTable

AUTHOR_SHARE, VENUE_SHARE, MIN_VENUES, MIN_NODES = 0.30, 0.02, 5, 50
FIRST_YEAR, LAST_YEAR = 1990, 2024
MEAN_EXTRA_AUTHORS, MAX_AUTHORS, MEAN_REFERENCES = 1.8, 10, 5.0

FIRST_NAMES = """James Mary Robert Linda Michael Sarah David Laura Daniel Emma Thomas Anna Peter Julia
Mark Olivia Paul Sofia Kevin Clara Brian Elena Jason Nina Eric Irene Adam Hannah Lukas Lea Jonas Marie
Felix Greta Matteo Giulia Luca Chiara Pablo Lucia Diego Carmen Javier Ana Hugo Camille Louis Chloe
Pierre Manon Wei Mei Jun Li Hao Xin Yu Ying Jie Lan Hiroshi Yuki Kenji Aiko Takeshi Emi Minjun Jiwoo
Seojun Hana Arjun Priya Rahul Ananya Vikram Divya Amit Kavya Omar Layla Ahmed Fatima Yusuf Amira
Kwame Ama Chidi Ngozi Tunde Zainab Ivan Olga Dmitri Tatiana Sergei Natalia Piotr Agnieszka Jan Eva
Mikael Astrid Lars Ingrid Erik Freya Tomas Petra Andrei Ioana Nikos Eleni Mehmet Elif Ali Zeynep
Rafael Beatriz Tiago Mariana Carlos Isabela""".split()
LAST_NAMES = """Smith Johnson Williams Brown Jones Miller Davis Wilson Anderson Taylor Moore Jackson Martin
Thompson White Harris Clark Lewis Walker Young King Wright Scott Green Baker Adams Nelson Hill Campbell
Mitchell Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart Morris Murphy Cook Rogers
Morgan Cooper Peterson Reed Bailey Kelly Howard Wang Li Zhang Liu Chen Yang Huang Zhao Wu Zhou Xu Sun
Ma Zhu Hu Guo Lin He Gao Luo Sato Suzuki Takahashi Tanaka Watanabe Ito Yamamoto Nakamura Kobayashi
Kato Kim Lee Park Choi Jung Kang Cho Yoon Jang Lim Sharma Patel Singh Kumar Gupta Reddy Iyer Rao Nair
Joshi Mehta Das Khan Hassan Ibrahim Rahman Hussein Mahmoud Okafor Mensah Adeyemi Nwosu Diallo Mbeki
Ivanov Petrov Smirnov Volkov Popov Kowalski Nowak Wisniewski Novak Horvat Muller Schmidt Schneider
Fischer Weber Meyer Wagner Becker Hoffmann Schulz Rossi Russo Ferrari Esposito Bianchi Romano Garcia
Martinez Rodriguez Lopez Hernandez Gonzalez Perez Sanchez Ramirez Torres Silva Santos Oliveira Souza
Costa Pereira Dubois Durand Lefebvre Moreau Laurent Bernard Petit Jansen Visser Bakker Nielsen Hansen
Larsen Johansson Karlsson Lindberg Virtanen Korhonen Papadopoulos Yilmaz Kaya Demir Cohen Levi""".split()
CITIES = """Amsterdam Athens Austin Bangalore Barcelona Beijing Berlin Boston Cairo Cambridge Chicago
Copenhagen Delft Dublin Edinburgh Geneva Hamburg Helsinki Hong_Kong Istanbul Kyoto Lagos Lisbon London
Lyon Madrid Melbourne Milan Montreal Mumbai Munich Nairobi Oslo Oxford Paris Prague Rome Santiago
Seattle Seoul Shanghai Singapore Stockholm Sydney Taipei Tel_Aviv Tokyo Toronto Vancouver Vienna
Warsaw Zurich""".replace("_", " ").split()
ORG_TEMPLATES = ("University of {}", "{} Institute of Technology", "{} State University",
                 "{} Polytechnic", "{} Research Laboratory", "{} Center for Computing")
COMPANIES = ("Google Research", "Microsoft Research", "IBM Research", "Meta AI", "Amazon Science",
             "NVIDIA Research", "Alibaba DAMO Academy", "Huawei Noah's Ark Lab", "Samsung AI Center",
             "Bell Labs", "Max Planck Institute for Informatics", "Inria", "Allen Institute for AI")

# topic -> (venue subfields, paper tasks). A venue has one topic; its papers take tasks from it.
TOPICS = {
    "data": (["Data Management", "Database Systems", "Data Engineering", "Big Data"],
             ["Join Processing", "Query Answering", "Data Cleaning", "Schema Matching",
              "Transaction Processing", "Cardinality Estimation", "Entity Resolution", "Data Integration"]),
    "ml": (["Machine Learning", "Learning Representations", "Neural Information Processing", "Learning Theory"],
           ["Image Classification", "Few-Shot Learning", "Anomaly Detection", "Time Series Forecasting",
            "Domain Adaptation", "Representation Learning", "Continual Learning", "Causal Discovery"]),
    "nlp": (["Computational Linguistics", "Natural Language Processing", "Language Technologies",
             "Speech and Language"],
            ["Machine Translation", "Question Answering", "Text Summarization", "Named Entity Recognition",
             "Sentiment Analysis", "Dialogue Generation", "Semantic Parsing", "Fact Verification"]),
    "graphs": (["Knowledge Discovery", "Web Mining", "Network Science", "Graph Learning"],
               ["Link Prediction", "Node Classification", "Community Detection", "Knowledge Graph Completion",
                "Influence Maximization", "Graph Matching", "Subgraph Counting", "Recommendation"]),
    "systems": (["Operating Systems", "Distributed Computing", "Computer Architecture", "Cloud Computing"],
                ["Task Scheduling", "Memory Management", "Load Balancing", "Failure Recovery",
                 "Serverless Execution", "Storage Tiering", "Cache Coherence", "Resource Allocation"]),
    "security": (["Security and Privacy", "Applied Cryptography", "Network Security", "Software Protection"],
                 ["Malware Detection", "Intrusion Detection", "Access Control", "Side-Channel Analysis",
                  "Vulnerability Discovery", "Secure Aggregation", "Authentication", "Fuzzing"]),
    "vision": (["Computer Vision", "Pattern Recognition", "Image Processing", "Visual Computing"],
               ["Object Detection", "Semantic Segmentation", "Pose Estimation", "Image Retrieval",
                "Depth Estimation", "Video Understanding", "Scene Reconstruction", "Image Generation"]),
    "theory": (["Theory of Computing", "Algorithms", "Discrete Mathematics", "Computational Complexity"],
               ["Graph Coloring", "Shortest Paths", "Matrix Multiplication", "Network Flow",
                "Property Testing", "Online Matching", "Streaming Estimation", "Combinatorial Auctions"]),
    "se": (["Software Engineering", "Programming Languages", "Program Analysis", "Software Testing"],
           ["Bug Localization", "Code Completion", "Type Inference", "Test Generation",
            "Program Repair", "Code Review", "Regression Testing", "API Migration"]),
    "hci": (["Human Factors in Computing", "Interactive Systems", "User Interfaces", "Ubiquitous Computing"],
            ["Gesture Recognition", "Accessibility", "Crowdsourcing", "Visual Analytics",
             "Eye Tracking", "Conversational Agents", "User Modeling", "Haptic Feedback"]),
}
ADJECTIVES = """Scalable Efficient Robust Adaptive Distributed Incremental Interpretable Federated
Differentiable Probabilistic Sparse Hierarchical Lightweight Self-Supervised Contrastive Fast
Approximate Online Parallel Secure Privacy-Preserving Unified Provable Learned Streaming
Energy-Efficient Fault-Tolerant Multi-Modal Cross-Lingual Dynamic""".split()
METHODS = ("Graph Neural Networks", "Transformers", "Index Structures", "Query Rewriting", "Hashing",
           "Sampling", "Reinforcement Learning", "Bayesian Inference", "Kernel Methods", "Random Walks",
           "Tensor Decomposition", "Message Passing", "Attention", "Knowledge Distillation",
           "Diffusion Models", "Matrix Factorization", "Gradient Boosting", "Dynamic Programming",
           "Program Synthesis", "Model Checking", "Symbolic Execution", "Consensus Protocols", "Caching",
           "Compression", "Embeddings", "Clustering", "Active Learning", "Meta-Learning",
           "Spectral Methods", "Prompting")
CONTEXTS = ("", " at Scale", " on GPUs", " on Edge Devices", " with Limited Labels", " under Distribution Shift",
            " in the Wild", " with Provable Guarantees", " over Data Streams", " in Heterogeneous Networks",
            " with Noisy Supervision", " in Low-Resource Settings")
TITLE_OPENINGS = ("", "Towards ", "On ", "Rethinking ", "Revisiting ", "Understanding ", "Benchmarking ")
TITLE_SUFFIXES = ("", ": Revisited", ": An Empirical Study", ": Theory and Practice", ": Extended Version",
                  ": A Second Look", ": Lessons Learned")
EXTRA_KEYWORDS = """benchmarking theory systems optimization evaluation reproducibility scalability
efficiency robustness fairness privacy interpretability generalization complexity hardware
open-source datasets simulation visualization parallelism""".split()
BASELINES = ("the state of the art", "strong baselines", "prior work", "existing systems")
VENUE_PREFIXES = ("", "International ", "European ", "Asian ", "ACM ", "IEEE ", "North American ", "Pacific ")
VENUE_TEMPLATES = ("Conference on ", "Journal of ", "Transactions on ", "Symposium on ", "Workshop on ",
                   "Annual Meeting on ")


def generate(num_nodes: int = 10_000, *, seed: int = 0) -> GraphData:
    """A DBLP-like graph of exactly `num_nodes` nodes: 30% authors, 2% venues (at least 5), the rest papers."""
    if num_nodes < MIN_NODES:
        raise ValueError(f"num_nodes={num_nodes} is too small for a synthetic graph; use at least {MIN_NODES}")
    rng = np.random.default_rng(seed)
    num_venues = max(MIN_VENUES, round(VENUE_SHARE * num_nodes))
    num_authors = round(AUTHOR_SHARE * num_nodes)
    num_papers = num_nodes - num_authors - num_venues
    author_ids, paper_ids, venue_ids = _ids("a", num_authors), _ids("p", num_papers), _ids("v", num_venues)

    authors = pa.table({"id": author_ids, "name": _person_names(num_authors, rng),
                        "organization": _organizations(num_authors, rng)})
    venue_topic = rng.integers(0, len(TOPICS), num_venues)
    venues = pa.table({"id": venue_ids, "name": _venue_names(venue_topic, rng)})

    years = np.sort(FIRST_YEAR + _weighted_draw(np.exp(0.08 * np.arange(LAST_YEAR - FIRST_YEAR + 1)),
                                                num_papers, rng))
    paper_venue = _cover(_weighted_draw(_zipf_weights(num_venues, 0.9, rng), num_papers, rng), num_venues, rng)
    title, abstract, keywords = _paper_texts(venue_topic[paper_venue], rng)
    papers = pa.table({"id": paper_ids, "title": title, "year": pa.array(years, pa.int64()),
                       "keywords": keywords, "abstract": abstract})

    writer_paper, writer_author = _authorships(num_papers, num_authors, rng)
    citing, cited = _references(years, rng)

    edges = []
    for relation, reverse, src_ids, dst_ids, src, dst, src_type, dst_type in (
        ("author", "paper", paper_ids, author_ids, writer_paper, writer_author, "paper", "author"),
        ("venue", "paper", paper_ids, venue_ids, np.arange(num_papers), paper_venue, "paper", "venue"),
        ("reference", "cited_by", paper_ids, paper_ids, citing, cited, "paper", "paper"),
    ):
        src_column, dst_column = src_ids.take(src), dst_ids.take(dst)
        edges.append(EdgeList(relation, src_type, dst_type, pa.table({"src": src_column, "dst": dst_column})))
        edges.append(EdgeList(reverse, dst_type, src_type, pa.table({"src": dst_column, "dst": src_column})))
    nodes = {"author": authors, "paper": papers, "venue": venues}
    for type_name, column in (("author", "name"), ("paper", "title"), ("venue", "name")):
        assert pc.count_distinct(nodes[type_name].column(column)).as_py() == nodes[type_name].num_rows, (
            f"synthetic {type_name} {column}s are not unique: the vocabulary pools in graphs/synthetic.py overlap")
    return GraphData({t: NodeTable(t, table) for t, table in nodes.items()}, edges)


# ---- drawing helpers ------------------------------------------------------------------------
def _ids(prefix: str, count: int) -> pa.Array:
    return pc.binary_join_element_wise(prefix, pc.cast(pa.array(np.arange(count)), pa.string()), "")


def _weighted_draw(weights: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """`size` indices into `weights`, drawn with replacement with probability proportional to weight."""
    cumulative = np.cumsum(weights, dtype=np.float64)
    picks = np.searchsorted(cumulative, rng.random(size) * cumulative[-1], side="right")
    return np.minimum(picks, len(weights) - 1)


def _zipf_weights(count: int, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Weights 1/rank**alpha, ranks assigned to items in random order."""
    return rng.permutation(1.0 / np.arange(1, count + 1) ** alpha)


def _cover(assignment: np.ndarray, num_targets: int, rng: np.random.Generator) -> np.ndarray:
    """Overwrite a random `num_targets` entries with 0..num_targets-1, so every target occurs."""
    assert len(assignment) >= num_targets, f"cannot cover {num_targets} targets with {len(assignment)} draws"
    assignment[rng.permutation(len(assignment))[:num_targets]] = np.arange(num_targets)
    return assignment


def _rank_among_equals(keys: np.ndarray) -> np.ndarray:
    """rank[i] = how many j < i have keys[j] == keys[i] (0 for a key's first occurrence)."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    positions = np.arange(len(keys))
    is_first = np.r_[True, sorted_keys[1:] != sorted_keys[:-1]]
    rank = np.empty(len(keys), np.int64)
    rank[order] = positions - np.maximum.accumulate(np.where(is_first, positions, 0))
    return rank


def _pick(pool, indices: np.ndarray) -> pa.Array:
    return pa.array(pool, pa.string()).take(indices)


def _suffixes(base: tuple[str, ...], rank: np.ndarray, extra: str) -> pa.Array:
    """`base[rank]`, and `extra.format(n)` with a growing n once `base` runs out (a unique suffix per rank)."""
    count = int(rank.max(initial=0)) + 1
    pool = list(base[:count]) + [extra.format(n + 2) for n in range(count - len(base))]
    return _pick(pool, rank)


# ---- node features --------------------------------------------------------------------------
def _person_names(count: int, rng: np.random.Generator) -> pa.Array:
    """'First Last'; the k-th repeat of a pair gets middle initial(s), then a numeral ('Wei A. B. Li 2')."""
    first = rng.integers(0, len(FIRST_NAMES), count)
    last = rng.integers(0, len(LAST_NAMES), count)
    rank = _rank_among_equals(first * len(LAST_NAMES) + last)
    letters = [chr(ord("A") + i) for i in range(26)]
    middles = [" "] + [f" {x}. " for x in letters] + [f" {x}. {y}. " for x in letters for y in letters]
    # rank 0 -> no middle; rank r >= 1 -> middles[1 + (r-1) % 702], numeral (r-1) // 702 (none when 0).
    cycle = len(middles) - 1
    middle = np.where(rank == 0, 0, 1 + (rank - 1) % cycle)
    numeral = np.where(rank == 0, 0, (rank - 1) // cycle)
    return pc.binary_join_element_wise(
        _pick(FIRST_NAMES, first), _pick(middles, middle), _pick(LAST_NAMES, last),
        _suffixes(("",), numeral, " {}"), "")


def _organizations(count: int, rng: np.random.Generator) -> pa.Array:
    pool = [t.format(c) for c in CITIES for t in ORG_TEMPLATES] + list(COMPANIES)
    return _pick(pool, _weighted_draw(_zipf_weights(len(pool), 1.0, rng), count, rng))


def _venue_names(topic: np.ndarray, rng: np.random.Generator) -> pa.Array:
    """'[Prefix ]Template Subfield[, Series X]', the subfield drawn from the venue's topic."""
    subfields = [s for fields, _ in TOPICS.values() for s in fields]
    per_topic = len(subfields) // len(TOPICS)
    subfield = topic * per_topic + rng.integers(0, per_topic, len(topic))
    prefix = rng.integers(0, len(VENUE_PREFIXES), len(topic))
    template = rng.integers(0, len(VENUE_TEMPLATES), len(topic))
    rank = _rank_among_equals((subfield * len(VENUE_PREFIXES) + prefix) * len(VENUE_TEMPLATES) + template)
    series = ("",) + tuple(f", Series {chr(ord('A') + i)}" for i in range(26))
    return pc.binary_join_element_wise(_pick(VENUE_PREFIXES, prefix), _pick(VENUE_TEMPLATES, template),
                                       _pick(subfields, subfield), _suffixes(series, rank, ", Series {}"), "")


def _paper_texts(topic: np.ndarray, rng: np.random.Generator) -> tuple[pa.Array, pa.Array, pa.Array]:
    """Titles '[Opening ]<Adjective> <Method> for <Task>[ Context]' (task from the paper's topic), abstracts,
    keywords."""
    count = len(topic)
    tasks = [t for _, topic_tasks in TOPICS.values() for t in topic_tasks]
    per_topic = len(tasks) // len(TOPICS)
    task = topic * per_topic + rng.integers(0, per_topic, count)
    adjective = rng.integers(0, len(ADJECTIVES), count)
    method = rng.integers(0, len(METHODS), count)
    context = rng.integers(0, len(CONTEXTS), count)
    opening = rng.integers(0, len(TITLE_OPENINGS), count)
    key = (((task * len(ADJECTIVES) + adjective) * len(METHODS) + method) * len(CONTEXTS) + context
           ) * len(TITLE_OPENINGS) + opening
    title = pc.binary_join_element_wise(
        _pick(TITLE_OPENINGS, opening), _pick(ADJECTIVES, adjective), " ", _pick(METHODS, method), " for ",
        _pick(tasks, task), _pick(CONTEXTS, context), _suffixes(TITLE_SUFFIXES, _rank_among_equals(key), " (Part {})"), "")

    lower_tasks, lower_methods = [t.lower() for t in tasks], [m.lower() for m in METHODS]
    abstract = pc.binary_join_element_wise(
        "We study ", _pick(lower_tasks, task), " with ", _pick([a.lower() for a in ADJECTIVES], adjective),
        " ", _pick(lower_methods, method), _pick([c.lower().replace("gpus", "GPUs") for c in CONTEXTS], context),
        ". On ",
        pc.cast(pa.array(rng.integers(2, 10, count)), pa.string()), " benchmark datasets it improves over ",
        _pick(BASELINES, rng.integers(0, len(BASELINES), count)), " by up to ",
        pc.cast(pa.array(rng.integers(2, 41, count)), pa.string()), "%.", "")

    # keywords: task, method, then 0-2 distinct extras; vocabulary = tasks + methods + extras.
    vocabulary = lower_tasks + lower_methods + EXTRA_KEYWORDS
    num_extra = rng.integers(0, 3, count)
    first_extra = rng.integers(0, len(EXTRA_KEYWORDS), count)
    second_extra = (first_extra + 1 + rng.integers(0, len(EXTRA_KEYWORDS) - 1, count)) % len(EXTRA_KEYWORDS)
    extra_base = len(lower_tasks) + len(lower_methods)
    slots = np.stack([task, len(lower_tasks) + method, extra_base + first_extra, extra_base + second_extra], 1)
    is_used = np.arange(4)[None, :] < (2 + num_extra)[:, None]
    offsets = np.r_[0, np.cumsum(2 + num_extra)].astype(np.int32)
    keywords = pa.ListArray.from_arrays(pa.array(offsets), _pick(vocabulary, slots[is_used]))
    return title, abstract, keywords


# ---- edges ----------------------------------------------------------------------------------
def _authorships(num_papers: int, num_authors: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(paper, author) pairs sorted by paper then author; lognormal productivity, every author used."""
    per_paper = 1 + np.minimum(rng.poisson(MEAN_EXTRA_AUTHORS, num_papers), MAX_AUTHORS - 1)
    paper = np.repeat(np.arange(num_papers), per_paper)
    productivity = rng.lognormal(0.0, 1.3, num_authors)
    author = _cover(_weighted_draw(productivity, len(paper), rng), num_authors, rng)
    pairs = np.unique(paper * num_authors + author)
    return pairs // num_authors, pairs % num_authors


def _references(years: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(citing, cited) pairs sorted, cited drawn from strictly earlier years by lognormal fitness."""
    num_papers = len(years)
    first_of_year = np.searchsorted(years, years, side="left")  # papers [0, first_of_year[i]) are older
    per_paper = np.where(first_of_year > 0, rng.poisson(MEAN_REFERENCES, num_papers), 0)
    citing = np.repeat(np.arange(num_papers), per_paper)
    cumulative = np.cumsum(rng.lognormal(0.0, 1.5, num_papers))
    limit = first_of_year[citing]
    cited = np.searchsorted(cumulative, rng.random(len(citing)) * cumulative[limit - 1], side="right")
    cited = np.minimum(cited, limit - 1)
    pairs = np.unique(citing * num_papers + cited)
    return pairs // num_papers, pairs % num_papers
