"""The pieces every grammar here is written with: a string literal and a choice among strings,
in the EBNF that xgrammar and llguidance read (glm_dspy/grammar/reply.py)."""

from __future__ import annotations

import json


def literal(text: str) -> str:
    """`text` as an EBNF string literal (JSON escapes, which xgrammar reads)."""
    return json.dumps(text, ensure_ascii=False)


def choice(options) -> str:
    """Any one of `options`, each as written."""
    return "(" + " | ".join(literal(option) for option in options) + ")"


__all__ = ["literal", "choice"]
