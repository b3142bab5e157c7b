"""Sampled tokens' logprobs as dspy.lm15 carries them (`TokenLogprob`, its `top` alternatives best
first), from either transport's form of them:

    from_vllm(token_ids, logprobs)      # in-process: CompletionOutput.token_ids, .logprobs (vllm 0.32)
    from_completions(choice_logprobs)   # a server's /v1/completions choice["logprobs"]

Alternatives a grammar masked out come back from vLLM at -inf; they are not alternatives, and are
dropped (lm15 holds finite logprobs only).
"""

from __future__ import annotations

import math

from dspy import lm15


def from_vllm(token_ids, logprobs) -> tuple[lm15.TokenLogprob, ...]:
    """One TokenLogprob for each of `token_ids`: `logprobs[i]` maps token ids to vLLM `Logprob`s
    (the sampled one and the most likely others); () where the call asked for none."""
    if logprobs is None:
        return ()
    out = []
    for token_id, position in zip(token_ids, logprobs):
        position = position or {}
        chosen = position.get(token_id)
        top = sorted(((tid, lp) for tid, lp in position.items() if math.isfinite(lp.logprob)),
                     key=lambda item: -item[1].logprob)
        out.append(lm15.TokenLogprob(
            token=(chosen.decoded_token if chosen is not None else None) or "",
            logprob=_finite(chosen.logprob if chosen is not None else -math.inf), token_id=int(token_id),
            top=tuple(lm15.TopLogprob(token=lp.decoded_token or "", logprob=float(lp.logprob), token_id=int(tid))
                      for tid, lp in top)))
    return tuple(out)


def from_completions(choice_logprobs: dict | None) -> tuple[lm15.TokenLogprob, ...]:
    """The OpenAI completions form, {"tokens": [...], "token_logprobs": [...], "top_logprobs":
    [{token: logprob}, ...]}, as TokenLogprobs; () where there is none."""
    if not choice_logprobs:
        return ()
    tokens = choice_logprobs.get("tokens") or []
    chosen = choice_logprobs.get("token_logprobs") or [None] * len(tokens)
    tops = choice_logprobs.get("top_logprobs") or [None] * len(tokens)
    return tuple(lm15.TokenLogprob(
        token=token, logprob=_finite(logprob),
        top=tuple(lm15.TopLogprob(token=t, logprob=float(lp))
                  for t, lp in sorted((top or {}).items(), key=lambda item: -item[1]) if math.isfinite(lp)))
        for token, logprob, top in zip(tokens, chosen, tops))


def _finite(logprob) -> float:
    """A sampled token's logprob; one vLLM could not score (None, -inf) as the least float."""
    if logprob is None or not math.isfinite(logprob):
        return -1e30
    return float(logprob)


__all__ = ["from_vllm", "from_completions"]
