"""Constrained decoding through DSPy: a grammar rides on one call's config to vLLM's structured outputs.

    predictor(..., config=with_grammar(config, grammar))   # routed for the LM in use (backend.py)

DSPy's LM carries a call's `metadata` (an OpenAI chat key) in `Config.extensions["metadata"]`;
the GLM engine reads `GRAMMAR_KEY` there and nothing else, and both transports hand the grammar
to vLLM (`SamplingParams(structured_outputs=StructuredOutputsParams(grammar=...))` in-process,
`structured_outputs={"grammar": ...}` to a server), which compiles it once per engine (xgrammar's
cache) and masks every token the grammar does not allow. The grammar is part of the request, so
DSPy's response cache never answers a constrained call with an unconstrained one.

Another LM (backend.py GENERIC) gets the grammar as `extra_body={"structured_outputs": {"grammar":
...}}` where its server is known to be vLLM, and nothing elsewhere (an OpenAI server refuses unknown
body fields): there the reply is decoded free, parsed as usual, and a warning says so once.
"""

from __future__ import annotations

import dspy
from dspy import lm15

from glm_dspy.lm.backend import GRAMMAR_EXTRA_BODY, GRAMMAR_METADATA, backend_of, warn_grammar_not_sent

GRAMMAR_KEY = "glm_grammar"


def grammar_config(grammar: str | None) -> dict:
    """The call config that constrains the reply to `grammar` (xgrammar EBNF); {} for None."""
    if grammar is None:
        return {}
    if not isinstance(grammar, str) or not grammar.strip():
        raise ValueError(f"a grammar is non-empty EBNF text, got {grammar!r:.60}")
    return {"metadata": {GRAMMAR_KEY: grammar}}


def with_grammar(config: dict | None, grammar: str | None, lm=None) -> dict:
    """A call's `config` (DSPy's per-call LM kwargs) plus `grammar`, if any, as `lm` (default: the
    configured LM) takes it (module doc)."""
    config = dict(config or {})
    if grammar is None:
        return config
    lm = dspy.settings.lm if lm is None else lm
    route = backend_of(lm).grammar_route
    if route == GRAMMAR_METADATA:
        return {**config, **grammar_config(grammar)}
    if route == GRAMMAR_EXTRA_BODY:
        grammar_config(grammar)  # the same check of the grammar's text
        extra_body = {**(config.get("extra_body") or {}), "structured_outputs": {"grammar": grammar}}
        return {**config, "extra_body": extra_body}
    warn_grammar_not_sent(lm)
    return config


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
