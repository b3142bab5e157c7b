"""The commands that answer with GLM: `ask` one question, `batch` a file, `serve` over HTTP, `demo`."""

from __future__ import annotations

import sys
from pathlib import Path

from glm_dspy.cli.server_options import add_server_options, server_options
from glm_dspy.cli.checks import (check_db, check_readable_file, check_writable_file, port, positive_int,
                                 question_text)
from glm_dspy.cli.command import add_command
from glm_dspy.cli.console import console
from glm_dspy.cli.glm_program import add_glm_program, check_glm_program


def check_answering(args) -> None:
    """What every answering command reads: the database and the program."""
    check_db(args.db)
    check_glm_program(args.glm_program)


def cmd_ask(args) -> int:
    from glm_dspy.configuration import configure
    from glm_dspy.graph import open_graph
    from glm_dspy.modules.glm import GLM
    from glm_dspy.cli.report import print_prediction

    with console.status("opening graph"):
        graph = open_graph(args.db)
    with graph:
        with console.status("finding the model" if args.server is None else f"connecting to {args.server}"):
            configure(args.model, **server_options(args))
        program = GLM(graph, max_steps=args.max_steps, compiled=args.glm_program)
        console.print(f"program: {program.program_path or 'hand-written'}")
        with console.status("answering"):
            prediction = program(question=args.question)
        print(prediction.answer if prediction.answer or not getattr(prediction, "guess", None)
              else f"not sure (the best reading says: {prediction.guess})")
        print_prediction(console, prediction)
        if args.show is not None:  # the graph must be open: the evidence is read again from it
            from glm_dspy.evidence.show import default_path, show_evidence

            show_evidence(prediction.steps, prediction.answer, graph,
                          args.show or default_path(prediction.get("query_id")),
                          say=lambda text: console.print(text, markup=False, highlight=False, soft_wrap=True))
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


def check_batch(args) -> None:
    check_readable_file(args.questions, "question file")
    read_batch_questions(args.questions)  # a malformed file fails here, before the engine starts
    check_answering(args)
    for option, path in (("--out", args.out), ("--journal", args.journal)):
        if path is not None:
            check_writable_file(path, f"{option} file")


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
        with console.status("finding the model" if args.server is None else f"connecting to {args.server}"):
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


def check_serve(args) -> None:
    check_answering(args)
    check_writable_file(args.journal, "--journal file")


def cmd_serve(args) -> int:
    from glm_dspy.serving.service import serve

    console.print(f"serving GLM over {args.db} on http://{args.host}:{args.port} (journal {args.journal}); "
                  "Ctrl-C stops")
    serve(args.db, model=args.model, **server_options(args), host=args.host, port=args.port, journal=args.journal,
          concurrency=args.concurrency, compiled=args.glm_program)
    return 0


def cmd_demo(args) -> int:
    from glm_dspy.cli.demo import run_demo

    return run_demo(Path(args.db), console, retrieval_only=args.retrieval_only, model=args.model,
                    glm_program=args.glm_program)


def add_answer_commands(commands) -> None:
    ask = add_command(commands, "ask", "answer a question over a graph with GLM")
    ask.add_argument("question", type=question_text, help="the question, in words")
    ask.add_argument("--db", required=True, type=Path, help="graph database directory (glm-dspy build)")
    add_server_options(ask)
    ask.add_argument("--max-steps", type=positive_int, default=10, help="GLM's reasoning steps at most")
    add_glm_program(ask)
    ask.add_argument("--show", nargs="?", type=Path, const="", default=None, metavar="FILE",
                     help="draw the subgraph the answer came from: list it and write its SVG to FILE "
                          "(default: runs/evidence/<query id>.svg; needs Graphviz's dot, else the DOT source)")
    ask.set_defaults(run=cmd_ask, check=check_answering)

    batch = add_command(commands, "batch", "answer a file of questions concurrently, journaled and resumable")
    batch.add_argument("questions", type=Path, help="one question per line, or .jsonl with a \"question\" field")
    batch.add_argument("--db", required=True, type=Path, help="graph database directory (glm-dspy build)")
    batch.add_argument("--journal", type=Path, default=None,
                       help="SQLite journal: run again on it after a crash or kill and the batch resumes, "
                            "each question answered once (default: in memory)")
    batch.add_argument("--concurrency", type=positive_int, default=4, help="questions in flight on the engine at once")
    batch.add_argument("--out", type=Path, default=None, help="answers as JSON Lines (default: stdout)")
    add_server_options(batch)
    add_glm_program(batch)
    batch.set_defaults(run=cmd_batch, check=check_batch)

    serve = add_command(commands, "serve", "GLM as an HTTP JSON service with a page to ask from (FastAPI)")
    serve.add_argument("--db", required=True, type=Path, help="graph database directory (glm-dspy build)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on")
    serve.add_argument("--port", type=port, default=8000, help="port to listen on")
    serve.add_argument("--journal", type=Path, default=Path("runs/service.sqlite"),
                       help="SQLite journal of every query; a restarted service finishes what was in flight")
    serve.add_argument("--concurrency", type=positive_int, default=4, help="questions answered at once")
    add_server_options(serve)
    add_glm_program(serve)
    serve.set_defaults(run=cmd_serve, check=check_serve)

    demo = add_command(commands, "demo", "answer sample Nobel questions with GLM, showing every step")
    demo.add_argument("--db", required=True, type=Path, help="the Nobel graph's database (glm-dspy build nobel)")
    demo.add_argument("--model", default=None, help="registered model name, HF folder or hub id (default: GLM_MODEL)")
    demo.add_argument("--retrieval-only", action="store_true", help="no LLM: show the graph functions at work")
    add_glm_program(demo)
    demo.set_defaults(run=cmd_demo, check=check_answering)
