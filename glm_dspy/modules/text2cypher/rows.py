"""How Text2Cypher shows a query's rows: as text to AnswerFromRows and in steps, and a value as an answer."""

from __future__ import annotations

MAX_ROWS = 50  # rows shown to AnswerFromRows or joined into an answer


def _value_text(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"  # a query's truth answers a yes/no question in its words
    if isinstance(value, list):
        return ", ".join(_value_text(v) for v in value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # an average of 2014.0 is the year 2014
    return "" if value is None else str(value)


def _rows_text(rows: list[dict]) -> str:
    lines = [" | ".join(f"{column}: {_value_text(value)}" for column, value in row.items()) for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"... {len(rows) - MAX_ROWS} more rows")
    return "\n".join(lines)
