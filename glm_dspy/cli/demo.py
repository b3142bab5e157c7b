"""The `make demo` job: GLM answers sample questions over the Nobel graph, showing its steps.

It starts the default local model on the in-process vLLM engine, then for each question
prints the answer and every step (agent, code, output, tokens prompt/cached/generated,
latency). `--retrieval-only` skips the LLM and shows what the graph functions return for
the snippets an Act agent would write — the retrieval half of GLM, in seconds.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax

# Lookups the default 0.5B model answers as shipped (tests/test_end_to_end.py checks these three);
# none of them mirrors a demo in glm_dspy/prompts/fewshot.py, so no answer is copied from a prompt.
QUESTIONS = [
    "In which year did Marie Curie receive the Nobel Prize in Physics?",
    "When was Marie Curie born?",
    "When did Niels Bohr die?",
]

RETRIEVAL_SNIPPETS = [
    ("Where was Marie Curie born?", 'print(NodeInfo(RetrieveNode("Marie Curie")))'),
    ("Who were the laureates of the 1903 Nobel Prize in Physics?",
     'print(NodeInfo(RetrieveNode("Nobel Prize in Physics 1903")))'),
    ("Which of Niels Bohr's students also won a Nobel Prize?",
     'bohr = RetrieveNode("Niels Bohr")\n'
     'students = NeighbourCheck(bohr, "student")\n'
     'print([NodeFeature(s, "name") for s in students if s.startswith("l")])'),
]


def run_demo(db_dir: Path, console: Console, *, retrieval_only: bool = False, model: str | None = None,
             glm_program: Path | str | None = "default") -> int:
    """`glm_program`: GLM's `compiled` argument ("default": the program shipped for the model, if any)."""
    from glm_dspy.graph import open_graph

    with console.status(f"opening {db_dir}"):
        graph = open_graph(db_dir)
    with graph:
        if retrieval_only:
            return _retrieval(graph, console)
        from glm_dspy.configuration import configure
        from glm_dspy.modules.glm import GLM
        from glm_dspy.cli.report import print_prediction

        with console.status("starting the local model on the in-process vLLM engine"):
            configure(model)
        program = GLM(graph, compiled=glm_program)
        console.print(f"program: {program.program_path or 'hand-written'}")
        for number, question in enumerate(QUESTIONS, 1):
            console.rule(f"[bold]Q{number}[/] {question}")
            with console.status("answering"):
                prediction = program(question=question)
            console.print(f"[bold green]answer:[/] {prediction.answer or '(none)'}")
            print_prediction(console, prediction)
    return 0


def _retrieval(graph, console: Console) -> int:
    executor = graph.executor()
    for number, (question, code) in enumerate(RETRIEVAL_SNIPPETS, 1):
        console.rule(f"[bold]Q{number}[/] {question}")
        console.print(Syntax(code, "python", theme="ansi_dark"))
        result = executor.run(code)
        body = result.output.strip() if result.is_ok else f"[red]{result.error}[/]"
        console.print(Panel(body, title=f"retrieved in {result.duration_s * 1000:.0f} ms "
                                        f"({result.num_calls} graph calls)", expand=False))
    return 0
