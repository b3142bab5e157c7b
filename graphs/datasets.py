"""One registry of datasets: a name builds a graph (`glm-dspy build`) and names its questions (`glm-dspy eval`).

A dataset is spelled `NAME` or `NAME:ARG`, the same for build and eval:

    synthetic[:NODES]        generated graph (default 10k nodes); its questions are generated with it
                             and stored in the database folder (DB/questions.jsonl, and the dev and
                             train splits DB/dev.jsonl, DB/train.jsonl), where eval reads them
    nobel                    Nobel laureates + mentorship; questions datasets/nobel/questions.jsonl,
                             splits datasets/nobel/dev.jsonl, train.jsonl (glm_dspy.graphs.nobel_templates), and
                             the measure-only split natural: nobel/natural_dev.jsonl of the data folder
                             (questions in everyday wording, not shipped in this repository:
                             GLM_DATA_DIR names their folder)
    pathquestion[:pq|pql]    PathQuestion's Freebase KB (a triples file) and its 2-hop questions;
                             splits datasets/splits/pathquestion-VARIANT.json (glm_dspy.graphs.splits)
    grbench:PATH             PATH is a GRBench graph.json or its folder; eval reads questions.jsonl beside it
    grbench:DOMAIN           eval only: the shipped datasets/grbench_questions/DOMAIN.jsonl (GRBench's
                             graphs are not shipped; build one from its graph.json with grbench:PATH)
    triples:FILE.tsv         any subject<TAB>relation<TAB>object file (glm_dspy.graphs.triples); no questions
    tables:DIR               a folder of node and edge tables, CSV, TSV or Parquet: DIR/nodes/TYPE.csv,
                             DIR/edges/RELATION.csv, or files named in DIR/graph.toml (glm_dspy.graphs.tables,
                             glm_dspy.graphs.table_mapping); `csv:DIR` and `parquet:DIR` are the same; questions
                             questions.jsonl beside the tables where there is one
    kuzu:PATH                an existing Kuzu database, opened read-only and copied into this project's
                             layout (glm_dspy.graphs.kuzu_source); no questions

For grbench, ARG is a DOMAIN when it is only letters, digits, `_` and `-`; anything else (a `/`
or a `.`) is a PATH: write `grbench:./dblp` for a folder named dblp. Any database can also be
asked a question file of its own: `glm-dspy eval --questions FILE.jsonl` (glm_dspy.graphs.questions).
`load_questions(spec, db_dir, split="dev"|"train")` gives a split: dev questions measure, and are
never used for demos, instructions or training; train questions are for optimizers (glm_dspy.graphs.splits).
A dataset may have more measure-only splits (`Dataset.more_splits`, Nobel's "natural"), never trained on.
Source files come from `GLM_DATA_DIR` or the repository's `datasets/` folder (graphs/data_dir.py).
Building a dataset's database is graphs/build.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from glm_dspy.graphs.data_dir import data_dir
from glm_dspy.graphs.graph_data import GraphData
from glm_dspy.graphs.questions import Question, read_questions

QUESTIONS_FILE = "questions.jsonl"
GRBENCH_QUESTIONS_DIR = "grbench_questions"
DEFAULT_SYNTHETIC_NODES = 10_000
_DOMAIN_RE = re.compile(r"[A-Za-z0-9_-]+")


def parse_size(text: str) -> int:
    text = text.strip().lower().replace("_", "")
    scale = {"k": 1_000, "m": 1_000_000}.get(text[-1:], 1)
    try:
        return int(float(text[:-1] if scale > 1 else text) * scale)
    except ValueError:
        raise ValueError(f"not a node count: {text!r} (examples: 5000, 200k, 1m)") from None


@dataclass(frozen=True, slots=True)
class Dataset:
    """How one dataset name is built and asked about.

    `graph(arg, seed)` returns the graph and the question files to store in the database
    folder, file name -> questions (only generated datasets have any); `questions(arg, db_dir)`
    returns the questions eval asks, None where the dataset has none; `split_questions(arg,
    db_dir, split)` those of a split ("dev" or "train", or one of `more_splits`), None where
    the dataset has no splits. `more_splits` are measure-only splits of this dataset besides
    glm_dspy.graphs.splits.SPLITS: like dev, never used for demos, instructions or training; no optimizer
    asks for them. `spelling` is how users write the name.
    """

    spelling: str
    graph: Callable[[str, int], tuple[GraphData, dict[str, list[Question]]]]
    questions: Callable[[str, Path | None], list[Question]] | None
    split_questions: Callable[[str, Path | None, str], list[Question]] | None = None
    more_splits: tuple[str, ...] = ()

    def __post_init__(self):
        assert not self.more_splits or self.split_questions is not None, f"{self.spelling}: splits need split_questions"


def _no_arg(name: str, arg: str) -> None:
    if arg:
        raise ValueError(f"dataset {name!r} takes no argument (got {name}:{arg})")


def _synthetic_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.splits import synthetic_splits
    from glm_dspy.graphs.synthetic import generate
    from glm_dspy.graphs.synthetic_questions import make_questions

    graph = generate(parse_size(arg) if arg else DEFAULT_SYNTHETIC_NODES, seed=seed)
    splits = synthetic_splits(graph)
    return graph, {QUESTIONS_FILE: make_questions(graph, seed=seed)} | {f"{s}.jsonl": q for s, q in splits.items()}


def _synthetic_questions(arg: str, db_dir: Path | None) -> list[Question]:
    if db_dir is None or not (Path(db_dir) / QUESTIONS_FILE).is_file():
        raise ValueError(f"synthetic questions are written by `glm-dspy build synthetic`; none in {db_dir}")
    return read_questions(Path(db_dir) / QUESTIONS_FILE)


def _synthetic_split(arg: str, db_dir: Path | None, split: str) -> list[Question]:
    path = Path(db_dir or ".") / f"{split}.jsonl"
    if db_dir is None or not path.is_file():
        raise ValueError(f"no synthetic {split} split in {db_dir} ({path.name} is written by `glm-dspy build "
                         "synthetic`): rebuild the database; a graph too small for datasets/splits/synthetic.json's "
                         "sizes gets no split")
    return read_questions(path)


def _nobel_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.nobel import nobel_graph

    _no_arg("nobel", arg)
    return nobel_graph(data_dir() / "nobel"), {}


def _nobel_questions(arg: str, db_dir: Path | None) -> list[Question]:
    _no_arg("nobel", arg)
    return read_questions(data_dir() / "nobel" / QUESTIONS_FILE)


NOBEL_NATURAL_FILE = "natural_dev.jsonl"  # written by make_natural_dev.py beside it, not by this project


def _nobel_split(arg: str, db_dir: Path | None, split: str) -> list[Question]:
    _no_arg("nobel", arg)
    path = data_dir() / "nobel" / (NOBEL_NATURAL_FILE if split == "natural" else f"{split}.jsonl")
    if split == "natural" and not path.is_file():
        raise FileNotFoundError(f"{path}: no such file; the natural questions are not shipped in this repository: "
                                f"set GLM_DATA_DIR to the folder holding nobel/{NOBEL_NATURAL_FILE}")
    return read_questions(path)


def _pathquestion_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.pathquestion import pathquestion_graph

    return pathquestion_graph(data_dir() / "pathquestion", arg or "pq"), {}


def _pathquestion_questions(arg: str, db_dir: Path | None) -> list[Question]:
    from glm_dspy.graphs.pathquestion import read_pathquestions

    return read_pathquestions(data_dir() / "pathquestion", arg or "pq")


def _pathquestion_split(arg: str, db_dir: Path | None, split: str) -> list[Question]:
    from glm_dspy.graphs.splits import select_split

    return select_split(_pathquestion_questions(arg, db_dir), f"pathquestion-{arg or 'pq'}", split)


def grbench_domains() -> list[str]:
    """The GRBench domains whose question files are shipped."""
    return sorted(p.stem for p in (data_dir() / GRBENCH_QUESTIONS_DIR).glob("*.jsonl"))


def _grbench_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.grbench import read_graph_json

    if not arg:
        raise ValueError("grbench needs a graph: grbench:PATH/graph.json")
    if _DOMAIN_RE.fullmatch(arg):
        raise ValueError(f"grbench:{arg} names a GRBench domain, whose graph is not shipped (only its questions); "
                         f"build from its graph.json: grbench:PATH/graph.json (a folder named {arg}: grbench:./{arg})")
    return read_graph_json(arg), {}


def _grbench_questions(arg: str, db_dir: Path | None) -> list[Question]:
    if not arg:
        raise ValueError(f"grbench needs a domain or a graph: grbench:DOMAIN ({', '.join(grbench_domains())}) "
                         "or grbench:PATH/graph.json")
    if _DOMAIN_RE.fullmatch(arg):
        path = data_dir() / GRBENCH_QUESTIONS_DIR / f"{arg}.jsonl"
        if not path.is_file():
            raise ValueError(f"no GRBench question file {path}; shipped domains: {', '.join(grbench_domains())}")
        return read_questions(path)
    if arg.endswith(".jsonl"):
        raise ValueError(f"grbench:{arg} is a question file: pass it as --questions {arg}")
    folder = Path(arg) if Path(arg).is_dir() else Path(arg).parent
    path = folder / QUESTIONS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no {QUESTIONS_FILE} beside the graph in {folder}; pass --questions FILE.jsonl, "
                                "or grbench:DOMAIN for a shipped domain's questions")
    return read_questions(path)


def _triples_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.triples import triples_graph

    if not arg:
        raise ValueError("triples needs a file: triples:FILE.tsv (subject<TAB>relation<TAB>object per line)")
    return triples_graph(arg), {}


def _tables_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.tables import tables_graph

    if not arg:
        raise ValueError("tables needs a folder: tables:DIR (DIR/nodes/TYPE.csv, DIR/edges/RELATION.csv)")
    return tables_graph(arg), {}


def _tables_questions(arg: str, db_dir: Path | None) -> list[Question]:
    path = Path(arg) / QUESTIONS_FILE
    if not path.is_file():
        raise FileNotFoundError(f"no {QUESTIONS_FILE} in {arg}; pass --questions FILE.jsonl "
                                '(one {"qid", "question", "answer"} object per line)')
    return read_questions(path)


def _kuzu_graph(arg: str, seed: int) -> tuple[GraphData, dict[str, list[Question]]]:
    from glm_dspy.graphs.kuzu_source import kuzu_graph

    if not arg:
        raise ValueError("kuzu needs a database: kuzu:PATH (the path Kuzu opens)")
    return kuzu_graph(arg), {}


_TABLES = Dataset("tables:DIR | csv:DIR | parquet:DIR", _tables_graph, _tables_questions)

DATASETS: dict[str, Dataset] = {
    "synthetic": Dataset("synthetic[:NODES]", _synthetic_graph, _synthetic_questions, _synthetic_split),
    "nobel": Dataset("nobel", _nobel_graph, _nobel_questions, _nobel_split, more_splits=("natural",)),
    "pathquestion": Dataset("pathquestion[:pq|pql]", _pathquestion_graph, _pathquestion_questions,
                            _pathquestion_split),
    "grbench": Dataset("grbench:PATH/graph.json | grbench:DOMAIN", _grbench_graph, _grbench_questions),
    "triples": Dataset("triples:FILE.tsv", _triples_graph, None),
    "tables": _TABLES,
    "csv": _TABLES,  # the same reader: a folder may mix CSV, TSV and Parquet files
    "parquet": _TABLES,
    "kuzu": Dataset("kuzu:PATH", _kuzu_graph, None),
}


def find_dataset(spec: str) -> tuple[str, Dataset, str]:
    """(name, dataset, argument) for a spelling; an unknown name is an error listing the valid ones."""
    name, _, arg = spec.strip().partition(":")
    if name not in DATASETS:
        raise ValueError(f"unknown dataset {spec!r}; use one of: {', '.join(dict.fromkeys(d.spelling for d in DATASETS.values()))}")
    return name, DATASETS[name], arg


def load_dataset(spec: str, *, seed: int = 0) -> tuple[GraphData, str, dict[str, list[Question]]]:
    """(graph, name, question files to store with it: file name -> questions) for `glm-dspy build`."""
    name, dataset, arg = find_dataset(spec)
    graph, questions = dataset.graph(arg, seed)
    return graph, name, questions


def load_questions(spec: str, db_dir: Path | str | None = None, *, split: str | None = None) -> list[Question]:
    """The questions `glm-dspy eval --dataset spec [--split SPLIT]` asks (db_dir: the database they
    are about). split None: every question of the dataset; "dev" or "train": that fixed split; one
    of the dataset's `more_splits` (nobel: "natural"): that measure-only split."""
    from glm_dspy.graphs.splits import SPLITS, check_split

    name, dataset, arg = find_dataset(spec)
    if split is not None:
        owners = [n for n, d in DATASETS.items() if split in d.more_splits]  # a measure-only split's datasets
        if not owners:
            check_split(split, more=[s for d in DATASETS.values() for s in d.more_splits])
        with_splits = owners or [n for n, d in DATASETS.items() if d.split_questions is not None]
        if dataset.split_questions is None or (owners and name not in owners):
            exist = f"{split} exists" if owners else f"{', '.join(SPLITS)} exist"
            raise ValueError(f"dataset {name!r} has no {split} split ({exist} for {', '.join(with_splits)}); "
                             "leave out the split to ask all its questions")
        return dataset.split_questions(arg, None if db_dir is None else Path(db_dir), split)
    if dataset.questions is None:
        raise ValueError(f"dataset {name!r} has no questions of its own; pass --questions FILE.jsonl "
                         '(one {"qid", "question", "answer"} object per line)')
    return dataset.questions(arg, None if db_dir is None else Path(db_dir))
