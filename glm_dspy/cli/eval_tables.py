"""The tables `glm-dspy eval` prints: one row per arm, then EM per question kind."""

from __future__ import annotations


def eval_tables(rows: dict, title: str) -> list:
    """`glm-dspy eval`'s tables: one row per arm (EM with its 95% bootstrap interval, first-try
    Act share, costs: tokens (prompt + completion), calls and prompt tokens a question, prompt
    tokens per right answer, "-" when none is right), then EM per question kind (arm x kind,
    "0.620 [0.540, 0.700] (n=100)"; kinds as glm_dspy/evaluation/accuracy.py `em_by_kind` names and orders them)."""
    from rich.table import Table

    from glm_dspy.evaluation.accuracy import in_kind_order, interval_cell
    from glm_dspy.evaluation.evaluate import judge_cell

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

