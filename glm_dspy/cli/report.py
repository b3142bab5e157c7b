"""Print a GLM prediction for people: the answer, then every step with its cost."""

from __future__ import annotations

import dspy
from rich.console import Console
from rich.table import Table


def steps_table(prediction: dspy.Prediction) -> Table:
    table = Table(show_lines=True)
    for column, justify in (("#", "right"), ("agent", "left"), ("prompt", "right"), ("cached", "right"),
                            ("out", "right"), ("s", "right"), ("code / output / error", "left")):
        table.add_column(column, justify=justify, overflow="fold")
    for number, step in enumerate(prediction.steps, 1):
        detail = []
        if step["code"]:
            detail.append(step["code"].strip())
        if step["output"]:
            output = step["output"]
            detail.append("→ " + (output if len(output) <= 400 else output[:400] + " …"))
        if step["error"]:
            detail.append(f"[red]{step['error']}[/]")
        if step.get("num_truncated"):
            detail.append(f"[yellow]{_truncated(step)}[/]")
        kind = "sample" if step.get("sampled") else "repair"
        agent = f"{step['agent']} ({kind} {step['attempt']})" if step.get("attempt") else step["agent"]
        table.add_row(str(number), agent, str(step["prompt_tokens"]), str(step["cached_tokens"]),
                      str(step["completion_tokens"]), f"{step['latency_s']:.1f}", "\n".join(detail))
    return table


def _truncated(step: dict) -> str:
    """The step's truncation, as a line of the table (the engine's finish reason "length")."""
    calls = f"{step['num_truncated']} of {step['num_calls']} calls" if step["num_calls"] > 1 else "the output"
    return f"{calls} stopped at max_tokens (truncated)"


def print_prediction(console: Console, prediction: dspy.Prediction) -> None:
    console.print(steps_table(prediction))
    console.print(f"{prediction.kind}, {prediction.num_calls} LLM calls, {prediction.prompt_tokens} prompt tokens "
                  f"({prediction.cached_tokens} cached), {prediction.completion_tokens} generated"
                  + (f", [red]{prediction.error_category}[/]" if prediction.error_category else ""))
    if note := backend_note(prediction):
        console.print(f"[dim]{note}[/]")


def backend_note(prediction: dspy.Prediction) -> str | None:
    """A line saying the LLM calls ran without GLM's engine (steps' `hints_sent` False), or None."""
    if not any(step.get("hints_sent") is False for step in prediction.steps):
        return None
    return ("the LLM calls ran on a generic dspy.LM: chat messages, no cache-tier hints, token counts as its "
            "server reported them (docs/models.md)")
