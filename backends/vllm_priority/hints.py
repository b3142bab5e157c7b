"""The per-request cache hints: the one wire format the LM client writes and the cache policy reads.

Dependency-free on purpose (no dspy, no vllm): `glm_dspy.lm` imports it to encode, the scheduler
side imports it to decode. A request's hints say which token ranges of its prompt belong to which
cache tier (the GLM paper's §5.2; docs/architecture.md, "Cache policy") and which query it serves.

Wire format, identical in-process (`SamplingParams.extra_args`) and over HTTP
(`extra_body={"vllm_xargs": ...}`), because vLLM 0.32's `vllm_xargs` only carries
`str | int | float | list[str | int | float]` values (entrypoints/openai/completion/protocol.py):

    {"glm_hints": 1,                          # format version
     "glm_segments": [s0, e0, t0, s1, e1, t1, ...],   # flat ints, token offsets, half-open [s, e)
     "glm_query_id": "q-17",                  # absent when the call belongs to no query
     "glm_finished_queries": ["q-16"]}        # queries that ended since the client's last request

Invariant of an encoded list: segments are sorted, non-empty, contiguous and start at token 0, so
together they cover the prompt `[0, segments[-1].end)` exactly once.
"""

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

HINTS_VERSION = 1
VERSION_KEY = "glm_hints"
SEGMENTS_KEY = "glm_segments"
QUERY_ID_KEY = "glm_query_id"
FINISHED_KEY = "glm_finished_queries"


class Tier(IntEnum):
    """Cache tiers of the GLM paper's §5.2; a lower number is kept longer. The client sends 1, 2 and 4 only:
    III is what the policy makes of a notebook (II) once its query is done."""

    PREFIX = 1
    NOTEBOOK = 2
    FINISHED_NOTEBOOK = 3
    VARIABLE = 4


_TIER_VALUES = frozenset(int(tier) for tier in Tier)


@dataclass(frozen=True, slots=True)
class Segment:
    """Prompt tokens `[start, end)` that belong to cache tier `tier`."""

    start: int
    end: int
    tier: Tier

    def __post_init__(self) -> None:
        assert isinstance(self.start, int) and isinstance(self.end, int), (self.start, self.end)
        assert 0 <= self.start < self.end, f"segment [{self.start}, {self.end}) is empty or negative"
        assert self.tier in _TIER_VALUES, f"unknown tier {self.tier!r}"
        object.__setattr__(self, "tier", Tier(self.tier))


@dataclass(frozen=True, slots=True)
class CacheHints:
    """What one request told the cache: its query (None: no query) and its prompt's segments."""

    query_id: str | None
    segments: tuple[Segment, ...]

    def __post_init__(self) -> None:
        _check_cover(self.segments)
        assert self.query_id is None or (isinstance(self.query_id, str) and self.query_id), self.query_id

    @property
    def num_tokens(self) -> int:
        return self.segments[-1].end if self.segments else 0


def _check_cover(segments: tuple[Segment, ...]) -> None:
    position = 0
    for segment in segments:
        assert isinstance(segment, Segment), segment
        assert segment.start == position, f"segments must be contiguous from 0; {segment} starts at {position}?"
        position = segment.end


def encode_hints(query_id: str | None, segments: Iterable[Segment], finished: Iterable[str] = ()) -> dict:
    """The `extra_args` / `vllm_xargs` dict for one request (JSON scalars and flat lists)."""
    hints = CacheHints(query_id, tuple(segments))
    encoded: dict = {VERSION_KEY: HINTS_VERSION,
                     SEGMENTS_KEY: [value for s in hints.segments for value in (s.start, s.end, int(s.tier))]}
    if query_id is not None:
        encoded[QUERY_ID_KEY] = query_id
    finished = list(finished)
    if finished:
        encoded[FINISHED_KEY] = finished
    return encoded


def decode_hints(extra_args: dict | None) -> CacheHints | None:
    """The hints of a request's `extra_args`; None when it carries none (a client other than ours).

    Malformed hints raise ValueError naming the key: they come off the wire, so they are checked
    explicitly rather than with asserts."""
    if not extra_args or VERSION_KEY not in extra_args:
        return None
    if extra_args[VERSION_KEY] != HINTS_VERSION:
        raise ValueError(f"{VERSION_KEY}={extra_args[VERSION_KEY]!r}: this side reads version {HINTS_VERSION}; "
                         "client and backend come from different versions of glm-dspy")
    flat = extra_args.get(SEGMENTS_KEY)
    if not isinstance(flat, list) or len(flat) % 3 or not all(type(v) is int for v in flat):
        raise ValueError(f"{SEGMENTS_KEY} must be a flat list of ints [start, end, tier, ...], got {flat!r}")
    query_id = extra_args.get(QUERY_ID_KEY)
    if query_id is not None and (not isinstance(query_id, str) or not query_id):
        raise ValueError(f"{QUERY_ID_KEY} must be a non-empty string, got {query_id!r}")
    segments, position = [], 0
    for start, end, tier in zip(flat[0::3], flat[1::3], flat[2::3]):
        if start != position or end <= start or tier not in _TIER_VALUES:
            raise ValueError(f"{SEGMENTS_KEY}: bad segment ({start}, {end}, tier {tier}) at token {position}; "
                             "segments must be contiguous from 0, non-empty, with tiers 1-4")
        segments.append(Segment(start, end, Tier(tier)))
        position = end
    return CacheHints(query_id, tuple(segments))


def finished_queries(extra_args: dict | None) -> list[str]:
    """The query ids a request reports as done (their notebooks go from tier II to III)."""
    value = (extra_args or {}).get(FINISHED_KEY, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(f"{FINISHED_KEY} must be a list of query ids, got {value!r}")
    return value


def block_tiers(segments: Sequence[Segment], block_size: int, start: int, stop: int) -> list[Tier]:
    """The tiers of KV blocks `start..stop-1`: each block takes the tier of the segment holding its
    last token (a block mixing the prefix's end with the notebook's start is reused only with that
    notebook); tokens past the segments — generated ones — are tier IV."""
    ends = [segment.end for segment in segments]
    tiers = []
    for index in range(start, stop):
        where = bisect_right(ends, (index + 1) * block_size - 1)
        tiers.append(segments[where].tier if where < len(segments) else Tier.VARIABLE)
    return tiers
