"""`glm-dspy`: build graphs, run snippets, fetch the model, run the demo.

    glm-dspy build nobel --db data/nobel
    glm-dspy exec --db data/nobel 'print(NodeInfo(RetrieveNode("Marie Curie")))'
    glm-dspy ask "Where was Marie Curie born?" --db data/nobel
    glm-dspy model fetch [qwen2.5-coder-0.5b]
    glm-dspy demo --db data/nobel
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.console import Console

console = Console(stderr=True)


def cmd_build(args) -> int:
    from graphs.datasets import build_database

    with console.status(f"building {args.dataset} into {args.db}"):
        report = build_database(args.dataset, args.db, overwrite=args.force, progress=True, seed=args.seed)
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


def cmd_ask(args) -> int:
    from glm_dspy.configure import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM
    from glm_dspy.report import print_prediction

    with console.status("opening graph"):
        graph = open_graph(args.db)
    with graph:
        with console.status("starting the engine" if args.server is None else f"connecting to {args.server}"):
            configure(args.model, server=args.server)
        program = GLM(graph, max_steps=args.max_steps)
        with console.status("answering"):
            prediction = program(question=args.question)
    print(prediction.answer)
    print_prediction(console, prediction)
    return 0 if prediction.answer else 1


def cmd_model_fetch(args) -> int:
    from glm_dspy.models import fetch_model

    path = fetch_model(args.name)
    print(path)
    return 0


def cmd_demo(args) -> int:
    from glm_dspy.demo import run_demo

    return run_demo(Path(args.db), console, retrieval_only=args.retrieval_only, model=args.model)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="glm-dspy", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)

    build = commands.add_parser("build", help="load a dataset into Kuzu and index it for RetrieveNode")
    build.add_argument("dataset", help="synthetic[:NODES] | nobel | pathquestion[:pql] | grbench:PATH/graph.json")
    build.add_argument("--db", required=True, type=Path, help="database directory to create")
    build.add_argument("--force", action="store_true", help="replace an existing database")
    build.add_argument("--seed", type=int, default=0, help="seed for the synthetic generator")
    build.set_defaults(run=cmd_build)

    execute = commands.add_parser("exec", help="run a snippet in the sandbox against a graph")
    execute.add_argument("code", help="Python snippet, or - to read it from stdin")
    execute.add_argument("--db", required=True, type=Path)
    execute.add_argument("--timeout", type=float, default=5.0, help="seconds before the snippet is stopped")
    execute.set_defaults(run=cmd_exec)

    ask = commands.add_parser("ask", help="answer a question over a graph with GLM")
    ask.add_argument("question")
    ask.add_argument("--db", required=True, type=Path)
    ask.add_argument("--model", default=None, help="registered model name, HF folder or hub id (default: GLM_MODEL)")
    ask.add_argument("--server", default=None, help="URL of a vLLM OpenAI server (default: in-process engine)")
    ask.add_argument("--max-steps", type=int, default=10)
    ask.set_defaults(run=cmd_ask)

    model = commands.add_parser("model", help="manage the local LLM")
    model_commands = model.add_subparsers(dest="model_command", required=True)
    fetch = model_commands.add_parser("fetch", help="download and convert a registered model (offline-safe)")
    fetch.add_argument("name", nargs="?", default=None, help="registered model name (default: the default model)")
    fetch.set_defaults(run=cmd_model_fetch)

    demo = commands.add_parser("demo", help="answer sample Nobel questions with GLM, showing every step")
    demo.add_argument("--db", required=True, type=Path)
    demo.add_argument("--model", default=None)
    demo.add_argument("--retrieval-only", action="store_true", help="no LLM: show the graph functions at work")
    demo.set_defaults(run=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    import os

    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # the steps table is the output; keep vLLM quiet
    if args.command == "model" and args.name is None:
        from glm_dspy.models import DEFAULT_MODEL

        args.name = DEFAULT_MODEL
    try:
        return args.run(args)
    except (FileNotFoundError, FileExistsError, ValueError, RuntimeError) as error:
        console.print(f"[red]error:[/] {error}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
