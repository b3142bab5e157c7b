"""Compile GLM's agents with one of DSPy's optimizers; report dev EM before and after.

    python -m glm_dspy.optimize.compile --dataset nobel --db data/nobel                 # bootstrap, defaults
    python -m glm_dspy.optimize.compile --optimizer random-search --dataset nobel --db data/nobel --train 200 --dev 40
    python -m glm_dspy.optimize.compile --optimizer gepa --questions my-questions.jsonl --db data/kb
    python -m glm_dspy.optimize.compile --optimizer mipro ...          # needs optuna: pip install -e '.[optimize]'
    python -m glm_dspy.optimize.compile --optimizer gepa --dataset nobel,pathquestion:pql --db data/nobel,data/pql \
        --reflection-server http://localhost:8015 --reflection-model qwen2.5-coder-1.5b

The same command is `glm-dspy compile ...`, and, from the repository root, `python -m
optimize.compile ...`: optimize/ is the folder glm_dspy.optimize installs from, and its modules
import one another by their installed names.

Questions: `--dataset` takes the "train" split for training and the "dev" split for the
report (glm_dspy.graphs.datasets.load_questions(spec, db, split=...); the dev questions are the first `--dev`
after a `--seed` shuffle, the sample `glm-dspy eval --split dev --shuffle --seed S --limit N`
asks); `--questions FILE` is shuffled
by `--seed`, its first `--dev` questions are the dev set and the rest the training pool. Of
the `--train` training questions the last `--val` score candidates (random search, MIPROv2,
GEPA); the others are what the optimizer learns from. The dev questions are never shown to
the optimizer. The training questions are in the Cypher Act's example bank (it is the train
split), so while compiling the Act shows a question no example that names its own entities
(`Text2Cypher(hold_out_own=True)`), as the entity split does for every dev question.
`--new-shapes` also shows it no example of its own template family: every training question is
then one of a shape the bank does not hold (graphs/unseen_shapes.py), the questions a shipped
bank answers worst. `--exclude-families OUT/families.json` (of `glm_dspy.graphs.unseen_shapes`) trains on
no question of that test's held-out families, so the compiled program can be measured on it
(the bank still shows their examples to other questions; `--db OUT/db` hides those too).

Several graphs: `--dataset a,b --db A,B` (one graph per dataset, in the same order) trains one
set of agents on the questions of all of them (optimize/on_graphs.py): `--train`, `--val` and
`--dev` are then counts per dataset, the training questions are mixed, and the report gives
dev EM per graph. Agents say nothing about a graph, so the result is the model's default on
every graph; what an optimizer learns from one graph's questions alone tends to be about that
graph's names.

The proposer: GEPA's reflection LM, MIPROv2's and SIMBA's prompt model write the new
instructions. By default that is the program's own LM; `--reflection-server URL` with
`--reflection-model NAME` asks a stronger model served beside it (one process runs one
in-process vLLM engine, so a second model needs a server).

The optimizer (optimize/optimizers.py, which says what each spends) starts from the
hand-written program and keeps its demos first in every prompt (optimize/pinned.py); its
metric is EM plus per-agent signals (optimize/metric.py). The result is saved as DSPy state
JSON at `--out` (default glm_dspy/compiled/glm-<model>.json, the program `GLM(graph)` loads
by default for that model) with its metadata beside it (`.train.json`: model, dataset,
optimizer, seed, training qids; glm_dspy/compiled/programs.py) and the report (`.report.json`).

Resuming: every LLM call goes through DSPy's response cache on disk, in `--cache-dir`
(default `.cache/` beside the output, git-ignored). A compile that stopped (Ctrl-C, a crash)
and is run again with the same arguments replays the calls it already made from that cache
and goes on from where it stopped; so does a later compile that asks the same things (the
"before" dev run of the hand-written program is shared by every optimizer). Only the rare
retries of an unparseable agent output (glm_dspy.modules.calls, a fresh rollout id each)
are asked again.

Report: dev EM (and the share of Act requests whose first snippet worked, and Classify's
accuracy where the tier is known) before and after, the LLM calls made while compiling and
the ones replayed from the cache, and each agent's stable-prefix length in tokens before and
after (demos are prefix tokens: cached across calls, paid on every miss).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import dspy

from glm_dspy.optimize.optimizers import OPTIMIZERS, RUNNERS, Budget
from glm_dspy.optimize.progress import CallCounter


def examples(questions, graph: str) -> list[dspy.Example]:
    """Examples for an `OnGraphs` program: the question and the graph it asks about are inputs."""
    return [dspy.Example(question=q.question, graph=graph, answer=q.answer, golds=list(q.golds), tier=q.tier,
                         qid=q.qid).with_inputs("question", "graph") for q in questions]


def graph_splits(args) -> list[tuple[str, Path, list, list]]:
    """(graph name, database, training pool, dev questions) per dataset of `--dataset a,b` and
    `--db A,B`; the name is the dataset (or the question file's stem)."""
    databases = [Path(db) for db in str(args.db).split(",")]
    if args.questions is not None:
        names = [args.questions.stem]
    else:
        names = [name.strip() for name in args.dataset.split(",")]
    if len(names) != len(databases):
        raise ValueError(f"{len(names)} dataset(s) {names} but {len(databases)} database(s) "
                         f"{[str(db) for db in databases]}: give one --db per dataset, in the same order")
    found = []
    for name, db in zip(names, databases):
        one = argparse.Namespace(**{**vars(args), "db": db, "dataset": name if args.questions is None else None})
        train, dev = load_splits(one)
        found.append((name, db, train, dev))
    return found


def load_splits(args) -> tuple[list, list]:
    """(training pool, dev questions), disjoint; see the module doc."""
    from glm_dspy.graphs.cypher_examples import family
    from glm_dspy.graphs.questions import read_questions

    if args.questions is not None:
        questions = read_questions(args.questions)
        random.Random(args.seed).shuffle(questions)
        dev, train = questions[: args.dev], questions[args.dev:]
    else:
        from glm_dspy.graphs.datasets import load_questions

        train = load_questions(args.dataset, args.db, split="train")
        dev = load_questions(args.dataset, args.db, split="dev")
        # the dev file is ordered by family: shuffle as `glm-dspy eval --split dev --shuffle --seed S
        # --limit N` does, so the report's dev questions are that eval's (the same seed, the same sample)
        random.Random(args.seed).shuffle(dev)
        dev = dev[: args.dev]
        random.Random(args.seed).shuffle(train)
    dev_qids, excluded = {q.qid for q in dev}, excluded_families(args.exclude_families)
    train = [q for q in train if q.qid not in dev_qids and family(q) not in excluded][: args.train]
    if not train or not dev:
        raise ValueError(f"{args.questions or args.dataset}: {len(train)} training and {len(dev)} dev questions; "
                         "need at least one of each")
    return train, dev


def evaluate_dev(program, devset: list[dspy.Example], threads: int) -> dict:
    """Dev EM and the agent signals' means (optimize/metric.py) over `devset`, and EM per graph."""
    from glm_dspy.optimize.metric import score, signals

    result = dspy.Evaluate(devset=devset, metric=score, num_threads=threads, display_progress=False,
                           display_table=False, max_errors=len(devset) + 1)(program)
    found = [(example.get("graph"), signals(example, prediction)) for example, prediction, _ in result.results]

    def mean(values):
        values = [float(v) for v in values if v is not None]
        return round(sum(values) / len(values), 4) if values else None

    graphs = dict.fromkeys(graph for graph, _ in found)
    return {"em": mean(s.em for _, s in found), "act_first_try": mean(s.act_first_try for _, s in found),
            "classify_ok": mean(s.classify_ok for _, s in found), "num_questions": len(found),
            "em_by_graph": {graph: mean(s.em for g, s in found if g == graph) for graph in graphs}}


def compile_program(program, trainset, valset, optimizer: str, budget: Budget,
                    proposer: dspy.LM | None = None) -> dspy.Module:
    """`program` compiled by `optimizer`, its hand-written demos kept first (optimize/pinned.py);
    `proposer` writes new instructions where the optimizer does (optimize/optimizers.py)."""
    from glm_dspy.optimize.pinned import pin_demos, unpin_demos

    return unpin_demos(RUNNERS[optimizer](pin_demos(program), trainset, valset, budget, proposer))


def compile_glm(program, trainset, *, max_demos: int = 2) -> dspy.Module:
    """BootstrapFewShot with `max_demos` demos per agent after the hand-written ones (the default optimizer)."""
    return compile_program(program, trainset, [], "bootstrap", Budget(max_demos=max_demos))


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    asked = parser.add_mutually_exclusive_group()
    asked.add_argument("--dataset", default="nobel", help="a dataset name (glm_dspy.graphs.datasets), train/dev splits")
    asked.add_argument("--questions", type=Path, default=None,
                       help="a question file (glm_dspy.graphs.questions JSON Lines) instead of --dataset (default: none)")
    parser.add_argument("--db", default="data/nobel", help="the graph's database; one per dataset, comma-separated")
    parser.add_argument("--optimizer", choices=OPTIMIZERS, default="bootstrap",
                        help="the DSPy optimizer (optimize/optimizers.py says what each spends)")
    parser.add_argument("--train", type=int, default=200, help="training questions offered to the optimizer "
                                                               "(per dataset)")
    parser.add_argument("--val", type=int, default=20, help="of those, how many score candidates (per dataset)")
    parser.add_argument("--dev", type=int, default=40, help="dev questions for the before/after report (per dataset)")
    parser.add_argument("--new-shapes", action="store_true",
                        help="show a training question no example of its own template family (graphs/unseen_shapes.py)")
    parser.add_argument("--exclude-families", default=None,
                        help="families.json of glm_dspy.graphs.unseen_shapes runs (comma-separated): no training question "
                             "of their held-out families, so that test stays unseen (default: none)")
    parser.add_argument("--max-demos", type=int, default=2, help="bootstrapped demos per agent")
    parser.add_argument("--candidates", type=int, default=4, help="random search / MIPROv2 / SIMBA candidates")
    parser.add_argument("--trials", type=int, default=6, help="MIPROv2 trials")
    parser.add_argument("--minibatch", type=int, default=10, help="MIPROv2 minibatch size")
    parser.add_argument("--metric-calls", type=int, default=150, help="GEPA budget, in GLM runs")
    parser.add_argument("--steps", type=int, default=3, help="SIMBA steps")
    parser.add_argument("--batch", type=int, default=8, help="SIMBA minibatch size")
    parser.add_argument("--threads", type=int, default=4, help="questions run at once (the engine batches them)")
    parser.add_argument("--model", default=None, help="registered model name, HF folder or hub id (default: GLM_MODEL)")
    parser.add_argument("--server", default=None, help="URL of a vLLM OpenAI server (default: in-process engine)")
    parser.add_argument("--reflection-server", default=None, help="URL of a vLLM OpenAI server whose model "
                                                                  "proposes instructions (GEPA, MIPROv2, SIMBA) "
                                                                  "(default: none, the program's own LM proposes)")
    parser.add_argument("--reflection-model", default=None, help="the model on --reflection-server (default: --model)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the question shuffle and the optimizer")
    parser.add_argument("--out", type=Path, default=None, help="default glm_dspy/compiled/glm-<model>.json")
    parser.add_argument("--cache-dir", type=Path, default=None, help="DSPy's response cache (default: .cache/ "
                                                                     "beside --out); what makes a re-run resume")
    return parser


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    args = build_parser(prog).parse_args(argv)
    from contextlib import ExitStack

    from rich.console import Console

    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM
    from glm_dspy.optimize.on_graphs import OnGraphs
    from glm_dspy.compiled.programs import default_path, write_metadata
    from glm_dspy.optimize.prompts import prefix_lengths
    from glm_dspy.optimize.report import print_report

    console = Console(stderr=True)
    splits = graph_splits(args)
    searched = args.optimizer in ("random-search", "mipro", "gepa")
    trainset, valset, devset = [], [], []
    for name, _, train, dev in splits:
        val_size = min(args.val, len(train) // 2) if searched else 0
        trainset += examples(train[: len(train) - val_size], name)
        valset += examples(train[len(train) - val_size:], name)
        devset += examples(dev, name)
    random.Random(args.seed).shuffle(trainset)  # the graphs' questions mixed, for every optimizer's minibatches
    budget = Budget(max_demos=args.max_demos, candidates=args.candidates, trials=args.trials, minibatch=args.minibatch,
                    metric_calls=args.metric_calls, steps=args.steps, batch=args.batch, threads=args.threads,
                    seed=args.seed)
    with console.status("starting the engine" if args.server is None else f"connecting to {args.server}"):
        lm = configure(args.model, server=args.server, cache=True)
    proposer = make_proposer(args, lm)
    out = args.out or default_path(lm.model)
    cache_dir = configure_disk_cache(args.cache_dir or out.parent / ".cache")
    renderer = getattr(getattr(lm, "engine", None), "renderer", None)
    counter = CallCounter(console)
    started = time.perf_counter()
    dataset = str(args.questions or args.dataset)
    with ExitStack() as stack, counter:
        programs = {}
        for name, db, _, _ in splits:
            graph = stack.enter_context(open_graph(db))
            # the agents are what is compiled: the readings (no call) would answer before them
            programs[name] = hold_out_own(GLM(graph, compiled=None, readings=False,
                                              executor=graph.executor(num_workers=2)), family=args.new_shapes)
        program = OnGraphs(programs)
        with counter.phase("dev, hand-written program", len(devset)):
            before = evaluate_dev(program, devset, args.threads)
        at_start = counter.snapshot()
        with counter.phase(f"{args.optimizer} on {len(trainset)} + {len(valset)} training questions", None):
            compiled = compile_program(program, trainset, valset, args.optimizer, budget, proposer)
        compile_calls = {key: value - at_start[key] for key, value in counter.snapshot().items()}
        out.parent.mkdir(parents=True, exist_ok=True)
        compiled.program.save(str(out))  # the agents all graphs share, saved as one GLM's state
        # the "after" run is of the program as saved and loaded back: what ships, with no answer
        # remembered from the runs before it (Text2Cypher's answer cache)
        loaded = OnGraphs({name: hold_out_own(GLM(glm.graph, compiled=out, readings=False, executor=glm.executor),
                                              family=args.new_shapes) for name, glm in programs.items()})
        with counter.phase("dev, compiled program", len(devset)):
            after = evaluate_dev(loaded, devset, args.threads)
        question = devset[0].question
        prefixes = {"before": prefix_lengths(program.program, question, renderer),
                    "after": prefix_lengths(loaded.program, question, renderer)}
    report = {"out": str(out), "optimizer": args.optimizer, "model": lm.model, "dataset": dataset,
              "proposer": getattr(proposer, "model", lm.model), "num_train": len(trainset), "num_val": len(valset),
              "dev_before": before, "dev_after": after, "compile_calls": compile_calls,
              "total_calls": counter.snapshot(), "prefix_tokens": prefixes,
              "demos": {name: len(p.demos) for name, p in compiled.program.named_predictors()},
              "minutes": round((time.perf_counter() - started) / 60, 1), "cache_dir": str(cache_dir)}
    write_metadata(out, model=lm.model, dataset=dataset, optimizer=args.optimizer, seed=args.seed,
                   proposer=report["proposer"], new_shapes=args.new_shapes,
                   excluded_families=sorted(excluded_families(args.exclude_families)),
                   train_qids=[q.qid for _, _, train, _ in splits for q in train],
                   dev_qids=[q.qid for _, _, _, dev in splits for q in dev])
    out.with_suffix(".report.json").write_text(json.dumps(report, indent=1) + "\n")
    print_report(report)
    print(json.dumps(report))
    return 0


def hold_out_own(program: GLM, *, family: bool = False) -> GLM:
    """`program` with its Cypher Act shown no example about the question's own entities. The
    example bank is the train split: a training question would find its own query (or a
    rewording's) in it and be answered by copying, so candidates scored ~95% on validation
    against ~84% on dev and the optimizer had nothing to learn from. Dev questions name no
    train entity (graphs/splits.py), so for them this changes nothing. `family` (--new-shapes):
    no example of the question's own template family either, so it is answered as a question of
    a shape the bank does not hold."""
    if program.cypher is not None:
        program.cypher.hold_out_own = True
        program.cypher.hold_out_family = family
    return program


def excluded_families(paths: str | None) -> set[str]:
    """The held-out families of `glm_dspy.graphs.unseen_shapes` runs (their families.json, comma-separated)."""
    families = set()
    for path in filter(None, (paths or "").split(",")):
        try:
            families |= set(json.loads(Path(path).read_text(encoding="utf-8"))["held_out"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"--exclude-families {path}: not a families.json of glm_dspy.graphs.unseen_shapes ({error})")
    return families


def make_proposer(args, lm: dspy.LM) -> dspy.LM | None:
    """The LM that proposes instructions: --reflection-model on --reflection-server, else None (`lm`)."""
    if args.reflection_server is None:
        if args.reflection_model not in (None, args.model) and args.reflection_model != getattr(lm, "model", None):
            raise SystemExit(f"--reflection-model {args.reflection_model}: one process runs one vLLM engine, and it "
                             "runs the program's model; serve the proposer (python -m glm_dspy.backends.vllm_priority.serve "
                             "--model DIR) and pass --reflection-server URL")
        return None
    from glm_dspy.lm import make_lm

    return make_lm(args.reflection_model or args.model, server=args.reflection_server, cache=True)


def configure_disk_cache(cache_dir: Path) -> Path:
    """Point DSPy's response cache at `cache_dir` (git-ignored by its own .gitignore)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    (cache_dir / ".gitignore").write_text("*\n")
    dspy.configure_cache(enable_disk_cache=True, enable_memory_cache=True, disk_cache_dir=str(cache_dir / "dspy"))
    return cache_dir


if __name__ == "__main__":
    raise SystemExit(main())
