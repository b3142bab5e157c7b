"""Constrained decoding through DSPy: a grammar rides on one call's config to vLLM's structured outputs.

    predictor(..., config=grammar_config(grammar))

DSPy's LM carries a call's `metadata` (an OpenAI chat key) in `Config.extensions["metadata"]`;
the GLM engine reads `GRAMMAR_KEY` there and nothing else, and both transports hand the grammar
to vLLM (`SamplingParams(structured_outputs=StructuredOutputsParams(grammar=...))` in-process,
`structured_outputs={"grammar": ...}` to a server), which compiles it once per engine (xgrammar's
cache) and masks every token the grammar does not allow. The grammar is part of the request, so
DSPy's response cache never answers a constrained call with an unconstrained one.
"""

from __future__ import annotations

from dspy import lm15

GRAMMAR_KEY = "glm_grammar"


def grammar_config(grammar: str | None) -> dict:
    """The call config that constrains the reply to `grammar` (xgrammar EBNF); {} for None."""
    if grammar is None:
        return {}
    if not isinstance(grammar, str) or not grammar.strip():
        raise ValueError(f"a grammar is non-empty EBNF text, got {grammar!r:.60}")
    return {"metadata": {GRAMMAR_KEY: grammar}}


def with_grammar(config: dict | None, grammar: str | None) -> dict:
    """A call's `config` (DSPy's per-call LM kwargs) plus `grammar`, if any."""
    return {**(config or {}), **grammar_config(grammar)}


def grammar_of(config: lm15.Config) -> str | None:
    """The grammar a call's config asks for; UnsupportedFeatureError for any other extension."""
    extensions = dict(config.extensions or {})
    metadata = extensions.pop("metadata", None)
    if extensions or (metadata is not None and set(metadata) != {GRAMMAR_KEY}):
        unknown = sorted(extensions) + sorted(set(metadata or {}) - {GRAMMAR_KEY})
        raise lm15.UnsupportedFeatureError(f"config extensions {unknown} are not supported by the GLM vLLM engine; "
                                           f"it takes only metadata={{{GRAMMAR_KEY!r}: grammar}} "
                                           "(glm_dspy.lm.structured.grammar_config)", feature="config.extensions")
    grammar = None if metadata is None else metadata[GRAMMAR_KEY]
    if grammar is not None and (not isinstance(grammar, str) or not grammar.strip()):
        raise lm15.InvalidRequestError(f"metadata[{GRAMMAR_KEY!r}] must be non-empty grammar text")
    return grammar
