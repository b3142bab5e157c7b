"""Question -> Cypher examples for Text2Cypher (glm_dspy/modules/text2cypher/), from a train split.

    glm-dspy build nobel --db data/nobel             # writes DB/text2cypher_examples.jsonl itself
    python -m glm_dspy.graphs.cypher_examples --dataset pathquestion --db data/pq    # (re)write it for a built DB
    python -m glm_dspy.graphs.cypher_examples --dataset nobel --db data/nobel --check   # exit 1 if the train
                                                     # split's differ from the shipped datasets/nobel file
    python -m glm_dspy.graphs.cypher_examples --from-schema --db DB    # examples from the graph itself only

Only train questions (never dev) become examples, and only where the dataset says how each is
answered:
* Nobel and synthetic: each template question's Cypher (graphs/nobel_templates.py,
  graphs/synthetic_questions.py) finds its entity by node id, which a question does not give;
  each `{id: '<id>'}` becomes `{<text feature>: '<its value>'}` (a paper's title, a laureate's
  name), the way a query written from the question finds it.
* PathQuestion (PQ, PQL): each question's path `e0#r1#e1#r2#e2` becomes
  `MATCH (a:entity {name: '<e0's name>'})-[:rel_r1]->(:entity)-[:rel_r2]->(b:entity) RETURN DISTINCT b.name`.
Every example is checked by running it: a template's must return the rows the id form returns,
PathQuestion's must return the path's last entity. The file is written into the database
directory (`DB/text2cypher_examples.jsonl`, one {"question", "cypher", "family"} a line), where
Text2Cypher looks first. After the train split's come examples written from the graph itself
(graphs/schema_examples.py; `bank`), for the shapes no train question has; they are all that
datasets without such questions (triples, GRBench, a user's own graph) get (`--from-schema`
writes them for any built database).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

from glm_dspy.graphs.cypher import parse, print_query
from glm_dspy.graphs.cypher.name_literals import id_properties
from glm_dspy.graphs.cypher.shape import fresh_variable
from glm_dspy.graphs.cypher.syntax import Literal, MapLiteral, NodePattern
from glm_dspy.graphs.cypher.transform import transform
from glm_dspy.graphs.data_dir import data_dir
from glm_dspy.graphs.literal import text_literal

FILE_NAME = "text2cypher_examples.jsonl"
LETTERS = tuple("abcdefghijklmnopqrstuvwxyz")  # the variables a bare node pattern is given, in order


def examples_path(dataset: str) -> Path:
    """The dataset's shipped examples (the fallback for a database without its own file)."""
    return data_dir() / dataset / FILE_NAME


def by_name(cypher: str, name_of, type_of=None) -> str | None:
    """`cypher` with each `{id: '<id>'}` written `{<text feature>: '<its value>'}` (`name_of(id)` ->
    (feature, value)); None if a node has no name. With `type_of(id)` (-> node type), a node
    pattern that has no label gets its node's, and a variable, as every other example's has
    (`({id: 'x'})` -> `(a:laureate {name: 'X'})`): the small model copies one style of example,
    and rewrote bare `({name: ...})` patterns as unnamed `(m:laureate)` ones. Read and rewritten
    on the template's parse (a template that does not parse is an error) and printed by
    graphs/cypher/printer.py; a new variable is the first letter no variable of the query is."""
    tree = parse(cypher)
    given: list[str] = []

    def named(node):
        pairs = id_properties(node)
        if pairs is None:
            return node
        node_id = pairs[0][1].value
        found = name_of(node_id)
        if found is None:
            raise LookupError(node_id)
        by = ((found[0], Literal(found[1])),)
        if isinstance(node, MapLiteral):
            return MapLiteral(by)
        if type_of is None or not isinstance(node, NodePattern) or node.variable is not None or node.labels:
            return replace(node, properties=by)
        if (type_name := type_of(node_id)) is None:
            raise LookupError(node_id)
        given.append(fresh_variable(tree, *map(NodePattern, given), among=LETTERS))
        return NodePattern(given[-1], (type_name,), by)
    try:
        return print_query(transform(tree, named))
    except LookupError:
        return None


def _rows(store, cypher: str) -> list:
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in store.query(cypher))


def family(question) -> str:
    """The question's template family, the shape of its query: a Nobel family's slug
    (`nobel-dev-birth_date-l189`), a synthetic template's name (`syn-dev-single_hop-000-paper_year`),
    PathQuestion's relations in path order (`spouse-gender`); "" where the question has none."""
    from glm_dspy.graphs.triples import relation_name

    path = (question.meta or {}).get("path") or []
    if len(path) >= 3:
        return "-".join(relation_name(r) for r in path[1::2])
    parts = question.qid.split("-", 4)
    if parts[0] == "syn" and len(parts) == 5:
        return parts[4]
    return parts[2] if parts[0] == "nobel" and len(parts) >= 4 else ""


MAX_ID_CHARS = 60  # the bank names no node of a longer id (as it was built and measured: docs/benchmarks.md)


def _name(store, node_id: str) -> str | None:
    return store.name_of(node_id) if len(node_id) <= MAX_ID_CHARS else None


def template_examples(store, questions) -> list[dict]:
    """Examples from template questions that carry their Cypher (Nobel, synthetic)."""
    features = {name: node_type.text_feature for name, node_type in store.schema.node_types.items()}

    def name_of(node_id: str):
        type_name, label = store.type_of(node_id), _name(store, node_id)
        feature = features.get(type_name) if type_name is not None else None
        return None if feature is None or label is None else (feature, label)

    examples = []
    for question in questions:
        if not question.cypher:
            continue
        cypher = by_name(question.cypher, name_of, store.type_of)
        if cypher is None or _rows(store, cypher) != _rows(store, question.cypher):  # a name two nodes share
            continue
        examples.append({"question": question.question, "cypher": cypher, "family": family(question)})
    return examples


def path_examples(store, questions) -> list[dict]:
    from glm_dspy.graphs.schema import rel_table
    from glm_dspy.graphs.triples import relation_name

    relations = store.schema.relations
    examples, seen = [], set()
    for question in questions:
        path = (question.meta or {}).get("path") or []
        if len(path) < 3 or len(path) % 2 == 0:
            continue
        start, last = _name(store, path[0]), _name(store, path[-1])
        hops = [relation_name(r) for r in path[1::2]]
        if start is None or last is None or any(h not in relations for h in hops):
            continue
        chain = "".join(f"-[:{rel_table(h)}]->" + ("(:entity)" if i < len(hops) - 1 else "(b:entity)")
                        for i, h in enumerate(hops))
        cypher = f"MATCH (a:entity {{name: {text_literal(start)}}}){chain} RETURN DISTINCT b.name"
        if question.question in seen or last not in {row["b.name"] for row in store.query(cypher)}:
            continue
        seen.add(question.question)
        examples.append({"question": question.question, "cypher": cypher, "family": family(question)})
    return examples


MAKERS = {"nobel": template_examples, "synthetic": template_examples, "pathquestion": path_examples}


def make_examples(spec: str, db_dir: Path | str) -> list[dict] | None:
    """The examples of dataset `spec`'s train split on the database at `db_dir`; None where it has none."""
    from glm_dspy.graphs.datasets import find_dataset, load_questions
    from glm_dspy.graphs.store import GraphStore

    name, dataset, _ = find_dataset(spec)
    if name not in MAKERS or dataset.split_questions is None:
        return None
    store = GraphStore.open(db_dir)
    return MAKERS[name](store, load_questions(spec, db_dir, split="train"))


def examples_text(examples: list[dict]) -> str:
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in examples)


def graph_examples(db_dir: Path | str) -> list[dict]:
    """The examples graphs/schema_examples.py writes from the built database's schema and data."""
    from glm_dspy.graphs.schema_examples import schema_examples
    from glm_dspy.graphs.store import GraphStore

    return schema_examples(GraphStore.open(db_dir))


def bank(spec: str, db_dir: Path | str, *, from_schema: bool = True) -> list[dict]:
    """The examples `glm-dspy build` writes: the train split's, then (`from_schema`) those written
    from the graph itself (graphs/schema_examples.py). A question of a shape no train question has
    ("How many papers cite X?") then still finds one of its graph's shapes: on held-out families
    they cut Nobel's calls 3.15 -> 2.37 and synthetic's 4.15 -> 2.82 and changed no dev split
    (docs/benchmarks.md). A dataset without train questions gets the graph's only."""
    return (make_examples(spec, db_dir) or []) + (graph_examples(db_dir) if from_schema else [])


def write_examples(spec: str, db_dir: Path | str, *, from_schema: bool = True) -> Path | None:
    """Write `DB/text2cypher_examples.jsonl` (`bank`) for a built database; its path, or None (no examples)."""
    examples = bank(spec, db_dir, from_schema=from_schema)
    return _write(db_dir, examples) if examples else None


def _write(db_dir: Path | str, examples: list[dict]) -> Path:
    path = Path(db_dir) / FILE_NAME
    path.write_text(examples_text(examples), encoding="utf-8")
    return path


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", type=Path, default=Path("data/nobel"), help="the built database to write the bank into")
    parser.add_argument("--dataset", default="nobel", help="nobel, pathquestion or pathquestion:pql")
    parser.add_argument("--check", action="store_true", help="compare with the shipped datasets/<name> file")
    parser.add_argument("--from-schema", action="store_true",
                        help="write examples from the graph's schema and data, not from a train split")
    return parser


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    args = build_parser(prog).parse_args(argv)
    if args.check:
        examples = make_examples(args.dataset, args.db)
        if examples is None:
            raise SystemExit(f"{args.dataset}: no train questions with a way to write their Cypher")
        path = examples_path(args.dataset.partition(":")[0])
        same = path.is_file() and path.read_text(encoding="utf-8") == examples_text(examples)
        print(f"{path}: {'up to date' if same else 'differs from what the train split gives'}")
        return 0 if same else 1
    examples = graph_examples(args.db) if args.from_schema else bank(args.dataset, args.db)
    if not examples:
        raise SystemExit(f"{args.db}: no examples to write (no train questions, and none from the graph)")
    path = _write(args.db, examples)
    print(f"wrote {len(examples)} examples to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
