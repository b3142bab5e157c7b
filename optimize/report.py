"""The compile report as one table: dev figures and stable-prefix tokens, before and after."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table


def _cell(value) -> str:
    return "-" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def report_table(report: dict) -> Table:
    table = Table(title=f"{report['optimizer']} on {report['dataset']} ({report['model']}): "
                        f"{report['dev_before']['num_questions']} dev questions"
                        + (f", proposer {report['proposer']}" if report.get("proposer") not in (None, report["model"])
                           else ""))
    for column in ("", "before", "after"):
        table.add_column(column, justify="left" if not column else "right")
    for key, label in (("em", "dev EM"), ("act_first_try", "Act first try"), ("classify_ok", "Classify right")):
        table.add_row(label, _cell(report["dev_before"][key]), _cell(report["dev_after"][key]))
        if key == "em" and len(report["dev_before"].get("em_by_graph") or {}) > 1:
            for graph, em in report["dev_before"]["em_by_graph"].items():
                table.add_row(f"  on {graph}", _cell(em), _cell(report["dev_after"]["em_by_graph"].get(graph)))
    prefixes = report["prefix_tokens"]
    for agent in ("classify", "reason", "act", "cypher"):
        table.add_row(f"{agent} prefix tokens", *(_cell((prefixes[when] or {}).get(agent)) for when in ("before", "after")))
    calls = report["compile_calls"]
    table.caption = (f"compiling: {calls['glm_runs']} GLM runs, {calls['made']} LLM calls made, "
                     f"{calls['replayed']} replayed from the cache; demos {report['demos']}; {report['minutes']} min")
    return table


def print_report(report: dict, console: Console | None = None) -> None:
    (console or Console(width=120, stderr=True)).print(report_table(report))
