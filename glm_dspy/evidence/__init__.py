"""The answer's evidence: the subgraph a prediction's answer was read from, and its drawing.

    evidence = evidence_of(prediction.steps, prediction.answer, graph)   # an Evidence (subgraph.py)
    svg = draw_svg(evidence)                                            # draw.py, Graphviz's `dot`
    drawn_evidence(prediction.steps, prediction.answer, graph)          # both, as JSON (the service's)

Which step: the last one that read the graph and succeeded (it has code, no error and printed
something; a writer's step not marked failed): a Cypher query (Text2Cypher's run, a reading of
Discriminate, which makes no LLM call) or a Python snippet (GLM's Act, an autofix). Its code is
Cypher where the read-only gate parses it (cypher.py runs it again, returning what it matched),
else a snippet (snippet.py runs it again, recording its graph calls). No LLM is called.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace

from glm_dspy.graphs.cypher import CypherSyntaxError, QueryRefused, gate

from glm_dspy.evidence.cypher import cypher_evidence
from glm_dspy.evidence.draw import draw_svg, evidence_text
from glm_dspy.evidence.snippet import snippet_evidence
from glm_dspy.evidence.subgraph import MAX_NODES, Evidence, EvidenceEdge, EvidenceNode


def answering_step(steps: list[dict]) -> dict | None:
    """The last step (a `Step.as_dict`) that read the graph and succeeded, or None."""
    for step in reversed(steps):
        if step.get("code") and step.get("error") is None and (step.get("output") or "").strip() \
                and step["agent"] in ("act", "graph") and step.get("ok") is not False:
            return step
    return None


def is_cypher(code: str) -> bool:
    """Whether the read-only gate reads `code` as a query (else it is taken for a snippet)."""
    try:
        gate(code)
    except (CypherSyntaxError, QueryRefused):
        return False
    return True


def evidence_of(steps: list[dict], answer: str, graph) -> Evidence:
    """The evidence of one prediction (its `steps` and `answer`) over `graph` (glm_dspy.graph.Graph).
    Never raises for a query or snippet that fails again: the evidence is then of kind "none"
    and its note says why."""
    if not answer:
        return Evidence("none", note="there is no answer to draw")
    step = answering_step(steps)
    if step is None:
        return Evidence("none", note="no step read the graph")
    code = step["code"]
    try:
        if is_cypher(code):
            return cypher_evidence(graph.store, code, answer)
        return snippet_evidence(graph, code, answer)
    except (RuntimeError, ValueError) as error:  # Kuzu's errors; a refused id
        return Evidence("none", code, note=f"could not run it again: {error}")


def drawn_evidence(steps: list[dict], answer: str, graph) -> dict:
    """{"evidence": the Evidence as a dict, "svg": its drawing or None (nothing to draw, or no
    Graphviz: the evidence's note then says so)}; what the service's answer carries."""
    evidence = evidence_of(steps, answer, graph)
    svg = None
    if evidence.nodes:
        try:
            svg = draw_svg(evidence)
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as error:
            evidence = replace(evidence, note=f"not drawn: {error}")
    return {"evidence": evidence.as_dict(), "svg": svg}


__all__ = ["Evidence", "EvidenceNode", "EvidenceEdge", "MAX_NODES", "evidence_of", "answering_step", "is_cypher",
           "drawn_evidence", "draw_svg", "evidence_text"]
