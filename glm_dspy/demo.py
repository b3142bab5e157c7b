"""The `make demo` job over the Nobel graph.

Until the agents exist, the demo shows the retrieval half of GLM: for each sample
question, the snippet an Act agent would write, run through the same sandboxed executor
as `glm-dspy exec`, and the vertex chunks it brings back into the notebook.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.panel import Panel
from rich.syntax import Syntax

SAMPLES = [
    ("Where was Marie Curie born?",
     'print(NodeInfo(RetrieveNode("Marie Curie")))'),
    ("Who were the laureates of the 1903 Nobel Prize in Physics?",
     'print(NodeInfo(RetrieveNode("Nobel Prize in Physics 1903")))'),
    ("Which of Niels Bohr's students also won a Nobel Prize?",
     'bohr = RetrieveNode("Niels Bohr")\n'
     'print(NodeInfo(bohr))\n'
     'students = NeighbourCheck(bohr, "student")\n'
     'print([NodeFeature(s, "name") for s in students if s.startswith("l")])'),
]


def run_demo(db_dir: Path, console: Console) -> int:
    from glm_dspy.graph import open_graph

    with console.status(f"opening {db_dir}"):
        graph = open_graph(db_dir)
    with graph:
        executor = graph.executor()
        for number, (question, code) in enumerate(SAMPLES, 1):
            console.rule(f"[bold]Q{number}[/] {question}")
            console.print(Syntax(code, "python", theme="ansi_dark"))
            result = executor.run(code)
            body = result.output.strip() if result.is_ok else f"[red]{result.error}[/]"
            console.print(Panel(body, title=f"retrieved in {result.duration_s * 1000:.0f} ms "
                                            f"({result.num_calls} graph calls)", expand=False))
    return 0
