"""The evidence drawn: Graphviz DOT laid out by `dot` into SVG (the page shows it inline, `ask
--show` writes it to a file), and a plain-text listing for the terminal.

Graphviz is Debian's `graphviz` package (`apt-get install graphviz`, the Makefile's `graphviz`
target); nothing is fetched at run time. In the SVG each node is a `<g class="node ...">` whose
id is `ev_<index>` and whose `<title>` is the node's id; the answer's nodes have the class
`answer` and are filled gold; each relationship is a `<g class="edge">` labelled with its name.
"""

from __future__ import annotations

import shutil
import subprocess

from glm_dspy.evidence.subgraph import Evidence

DOT_TIMEOUT_S = 10.0
ANSWER_FILL = "#f6e05e"
NODE_FILL = "#edf2f7"


class GraphvizMissing(RuntimeError):
    """`dot` is not on PATH."""


def to_dot(evidence: Evidence) -> str:
    """The evidence as a DOT digraph (left to right; the answer's nodes gold, with the value read)."""
    lines = ['digraph evidence {', '  graph [rankdir=LR, fontname="Helvetica", bgcolor="transparent"];',
             f'  node [shape=box, style="rounded,filled", fillcolor="{NODE_FILL}", fontname="Helvetica", '
             'fontsize=11];', '  edge [fontname="Helvetica", fontsize=9, color="#4a5568"];']
    for index, node in enumerate(evidence.nodes):
        label = f"{node.name}\n({node.type})" + (f"\n{node.detail}" if node.detail else "")
        answer = f', class="answer", fillcolor="{ANSWER_FILL}", penwidth=2.5' if node.is_answer else ""
        lines.append(f'  {_quoted(node.id)} [id="ev_{index}", label={_quoted(label)}, '
                     f'tooltip={_quoted(node.id)}{answer}];')
    for edge in evidence.edges:
        lines.append(f'  {_quoted(edge.source)} -> {_quoted(edge.target)} [label={_quoted(edge.relation)}];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def draw_svg(evidence: Evidence) -> str:
    """The evidence laid out by Graphviz's `dot`, as an SVG document. Raises GraphvizMissing
    where `dot` is not installed, RuntimeError where it fails."""
    dot = shutil.which("dot")
    if dot is None:
        raise GraphvizMissing("drawing the evidence needs Graphviz's `dot`: apt-get install graphviz "
                              "(or `make graphviz`)")
    done = subprocess.run([dot, "-Tsvg"], input=to_dot(evidence), capture_output=True, text=True,
                          timeout=DOT_TIMEOUT_S, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed (exit {done.returncode}): {done.stderr.strip()[:300]}")
    return done.stdout


def evidence_text(evidence: Evidence) -> str:
    """The evidence for a terminal: where it came from, each node (the answer's starred), each
    relationship."""
    lines = [f"evidence ({evidence.kind}): {evidence.source}" if evidence.source else f"evidence ({evidence.kind})"]
    if evidence.note:
        lines.append(f"  note: {evidence.note}")
    names = {node.id: node.name for node in evidence.nodes}
    for node in evidence.nodes:
        lines.append(f"  {'*' if node.is_answer else ' '} {node.name} [{node.type} {node.id}]"
                     + (f"  {node.detail}" if node.detail else ""))
    for edge in evidence.edges:
        lines.append(f"    {names[edge.source]} -[{edge.relation}]-> {names[edge.target]}")
    if evidence.num_left_out:
        lines.append(f"  ({evidence.num_left_out} more nodes touched, not drawn)")
    return "\n".join(lines)


def _quoted(text: str) -> str:
    """A DOT quoted string: backslashes and quotes escaped, a newline as DOT's centred line break."""
    cleaned = "".join(ch for ch in text if ch == "\n" or ord(ch) >= 0x20)
    return '"' + cleaned.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


__all__ = ["to_dot", "draw_svg", "evidence_text", "GraphvizMissing"]
