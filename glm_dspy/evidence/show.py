"""`glm-dspy ask --show`: the answer's evidence in the terminal (a listing, the answer's nodes
starred) and as a file: the SVG Graphviz draws (open it in any browser or image viewer), or,
where Graphviz is not installed, its DOT source (render it with `dot -Tsvg FILE`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from glm_dspy.evidence.draw import GraphvizMissing, draw_svg, evidence_text, to_dot

DEFAULT_FOLDER = Path("runs/evidence")  # git-ignored (runs/)


def default_path(query_id: str | None) -> Path:
    return DEFAULT_FOLDER / f"{query_id or 'answer'}.svg"


def show_evidence(steps: list[dict], answer: str, graph, path: Path, *,
                  say: Callable[[str], None] = print) -> Path | None:
    """Say the evidence of `answer` (read off `steps`) and write its drawing to `path` (.dot in
    place of .svg without Graphviz); the file written, or None where there is nothing to draw."""
    from glm_dspy.evidence import evidence_of

    evidence = evidence_of(steps, answer, graph)
    say(evidence_text(evidence))
    if not evidence.nodes:
        return None
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        path.write_text(draw_svg(evidence), encoding="utf-8")
    except GraphvizMissing as missing:
        path = path.with_suffix(".dot")
        path.write_text(to_dot(evidence), encoding="utf-8")
        say(f"{missing}; wrote the DOT source instead")
    say(f"drawing: {path}")
    return path


__all__ = ["show_evidence", "default_path", "DEFAULT_FOLDER"]
