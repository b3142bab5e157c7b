"""`glm-dspy eval`: GLM and the baselines on the same questions, one table (glm_dspy/evaluation/evaluate.py runs it)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from glm_dspy.evaluation.arms import ARMS, parse_arms
from glm_dspy.cli.server_options import add_server_options, server_options
from glm_dspy.cli.checks import check_db, check_readable_file, check_writable_dir, positive_int
from glm_dspy.cli.command import add_command
from glm_dspy.cli.console import console
from glm_dspy.cli.errors import UsageError
from glm_dspy.cli.eval_tables import eval_tables
from glm_dspy.cli.glm_program import add_glm_program, check_glm_program

if TYPE_CHECKING:
    from glm_dspy.graphs.questions import Question


def lm_model_name(model: str | None) -> str:
    """The model string `configure(model)` will give dspy.LM, without starting the engine."""
    import os

    from glm_dspy.lm.factory import _lm_name
    from glm_dspy.lm.models import DEFAULT_MODEL, MODELS, resolve_model

    name = model or os.environ.get("GLM_MODEL") or DEFAULT_MODEL
    return _lm_name(model, name if name in MODELS else resolve_model(name))


def resolve_glm_program(args) -> Path | None:
    """The compiled program `glm-dspy eval` runs for the glm arm: --glm-program PATH, none, or by
    default the one shipped for --model (glm_dspy/compiled/programs.py)."""
    from glm_dspy.compiled.programs import DEFAULT, default_program

    if args.glm_program == DEFAULT:
        return default_program(lm_model_name(args.model))
    return args.glm_program  # a path: check_eval saw that it is a file


def eval_questions(args) -> list[Question]:
    """The questions `glm-dspy eval` asks: from --questions FILE or --dataset [--split], less a compiled
    program's training questions, shuffled by --seed if asked, the first --limit."""
    from glm_dspy.evaluation.evaluate import train_qids
    from glm_dspy.graphs.datasets import load_questions
    from glm_dspy.graphs.questions import read_questions

    if args.questions and args.split:
        raise ValueError(f"--split {args.split} names a split of a --dataset; {args.questions} is a question file "
                         "of its own: pass it without --split, or use --dataset with --split")
    questions = (read_questions(args.questions) if args.questions
                 else load_questions(args.dataset, args.db, split=args.split))
    glm_program = resolve_glm_program(args)
    if glm_program is not None:  # a compiled program is evaluated on questions it did not train on
        trained = train_qids(glm_program)
        questions = [q for q in questions if q.qid not in trained]
    if args.shuffle:
        import random

        random.Random(args.seed).shuffle(questions)
    questions = questions[: args.limit]
    if not questions:
        raise ValueError(f"no questions to ask in {args.questions or args.dataset}")
    return questions


def cmd_eval(args) -> int:
    import json

    from rich.progress import Progress

    from glm_dspy.configuration import configure
    from glm_dspy.evaluation.evaluate import headline, run_eval, summarize, write_charts
    from glm_dspy.graph import open_graph

    arms = args.programs
    questions = eval_questions(args)
    glm_program = resolve_glm_program(args) if "glm" in arms else None
    if "glm" in arms:
        console.print(f"glm program: {glm_program or 'hand-written'}")
    with console.status("opening graph"):
        graph = open_graph(args.db)
    with graph:
        with console.status("starting the engine" if args.server is None else f"connecting to {args.server}"):
            lm = configure(args.model, **server_options(args))
        judge_model, judge_lm = _judge(args, lm)
        console.print(f"judge: {judge_model or 'the model under test'}")
        with Progress(console=console) as bar:
            task = bar.add_task(f"{len(questions)} questions x {len(arms)} arms", total=len(questions) * len(arms))
            records = run_eval(questions, arms, graph, args.out, concurrency=args.concurrency, judge_lm=judge_lm,
                               model=args.model or "default", seed=args.seed,
                               progress=lambda: bar.advance(task), glm_program=glm_program)
            bar.update(task, completed=len(questions) * len(arms))
    rows = summarize(records, arms)
    asked = args.questions or (f"{args.dataset} --split {args.split}" if args.split else args.dataset)
    for table in eval_tables(rows, f"{asked}: {len(questions)} questions"):
        Console(width=200).print(table)  # 14 columns: the costs fit without folding
    charts = write_charts(rows, args.out)
    console.print(f"records: {args.out / 'results.jsonl'}; charts: {', '.join(str(p) for p in charts)}")
    print(json.dumps(headline(rows)))
    return 0


def arm_list(text: str) -> list[str]:
    """--programs: comma-separated arm names, each known (glm_dspy/evaluation/arms.py)."""
    try:
        return parse_arms(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def check_eval(args) -> None:
    """Names, then files: all before a graph, an embedder or the engine is loaded."""
    if args.dataset is not None:
        from glm_dspy.graphs.datasets import find_dataset

        find_dataset(args.dataset)  # an unknown name is a ValueError listing the known ones
    if args.questions is not None:
        check_readable_file(args.questions, "question file")
    check_db(args.db)
    check_glm_program(args.glm_program)
    check_writable_dir(args.out, "--out folder")
    if conflict := judge_conflict(args):
        raise UsageError(conflict)


def _judge(args, lm):
    """(judge model name, its LM) for eval: --judge-model on --judge-server, or in-process where
    the model under test is not (one process runs at most one in-process vLLM engine: a second
    one corrupted the heap, "free(): invalid next size"); by default the strongest fetched
    model where that is possible, else the model under test."""
    from glm_dspy.lm import make_lm
    from glm_dspy.lm.models import DEFAULT_MODEL, strongest_fetched_model

    under_test = args.model or DEFAULT_MODEL
    if args.judge_server is not None:
        judge_model = args.judge_model or under_test
        return judge_model, make_lm(judge_model, server=args.judge_server, cache=False)
    judge_model = args.judge_model or strongest_fetched_model() or under_test
    if judge_model == under_test or judge_model == args.model:
        return judge_model, lm
    if args.server is None:  # the model under test holds this process's engine
        if conflict := judge_conflict(args):
            raise SystemExit(conflict)
        return under_test, lm  # the strongest fetched model would need a second engine: judge with the one running
    return judge_model, make_lm(judge_model, cache=False)


def judge_conflict(args) -> str | None:
    """Why --judge-model cannot run as asked, or None: a judge other than the model under test,
    with neither on a server, would need a second in-process engine."""
    from glm_dspy.lm.models import DEFAULT_MODEL

    under_test = args.model or DEFAULT_MODEL
    if args.judge_model is None or args.judge_server is not None or args.server is not None:
        return None
    if args.judge_model in (under_test, args.model):
        return None
    return (f"--judge-model {args.judge_model}: the model under test ({under_test}) runs in this process, and one "
            "process runs one vLLM engine; serve the judge (glm-dspy vllm-server --model DIR) and pass "
            "--judge-server URL, or test over --server")


def add_eval_command(commands) -> None:
    evaluate = add_command(commands, "eval", "run GLM and the baselines on the same questions; one table")
    asked = evaluate.add_mutually_exclusive_group(required=True)
    asked.add_argument("--dataset", help="nobel | synthetic | pathquestion[:pql] | grbench:DOMAIN | "
                                         "grbench:PATH/graph.json (questions.jsonl beside it); this or --questions")
    asked.add_argument("--questions", type=Path,
                       help='a JSON Lines file, one {"qid", "question", "answer"[, "alternatives"]} per line; '
                            "this or --dataset")
    evaluate.add_argument("--split", choices=("dev", "train", "natural"), default=None,
                          help="a fixed split of --dataset (nobel, pathquestion, synthetic): dev measures and is "
                               "never trained on; train is for optimizers; natural (nobel only) is the 60 questions "
                               "in everyday wording of GLM_DATA_DIR/nobel/natural_dev.jsonl, measured per kind "
                               "(default: all its questions)")
    evaluate.add_argument("--db", required=True, type=Path, help="the graph the questions are about")
    evaluate.add_argument("--programs", type=arm_list, default="glm,graphcot,graphrag,textrag,base",
                          help="comma-separated arms to run, each on every question: " + ", ".join(ARMS))
    evaluate.add_argument("--limit", type=positive_int, default=None,
                          help="ask the first this many questions (default: all)")
    evaluate.add_argument("--concurrency", type=positive_int, default=1, help="questions in flight at once")
    add_server_options(evaluate)
    evaluate.add_argument("--judge-model", default=None,
                          help="default: the largest registered model already fetched (glm-dspy model fetch NAME) "
                               "where it can run: on --judge-server, or in-process when the model under test is on "
                               "--server; else the model under test")
    evaluate.add_argument("--judge-server", default=None,
                          help="URL of a vLLM OpenAI server running the judge model (default: none, see --judge-model)")
    evaluate.add_argument("--shuffle", action="store_true", help="shuffle the questions (by --seed) before --limit")
    evaluate.add_argument("--out", type=Path, default=Path("eval-out"), help="results.jsonl, charts; resumable")
    evaluate.add_argument("--seed", type=int, default=0, help="the seed of --shuffle, kept in each record")
    add_glm_program(evaluate, extra="; its training questions are left out")
    evaluate.set_defaults(run=cmd_eval, check=check_eval)
