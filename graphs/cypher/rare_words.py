"""Which words are rare enough to say what a long text is about: a question's "bubble chamber"
or "positron" says which motivation it means; "based", "other", "since", "discovered" are
common English, found in a few long texts by chance ("the city where X is based" is no
motivation that mentions "based"). Rarity is read from general English word frequencies
(wordfreq's Zipf scale: log10 of uses per billion words), not from the graph, whose long texts
are too few to tell a common word from a rare one."""

from __future__ import annotations

import functools

COMMON_ZIPF = 4.5  # a word used more than ~30 times per million English words is common ("discovered" 4.7)


@functools.lru_cache(maxsize=4096)
def zipf(word: str) -> float:
    """How common an English word is, on the Zipf scale (0: unknown; "the" 7.7, "positron" 2.6)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def rare(word: str) -> bool:
    """Whether a word is rarer than COMMON_ZIPF in English: it can say what a text is about."""
    return zipf(word) < COMMON_ZIPF


def any_rare(words) -> bool:
    """Whether a run of words holds a rare one ("heavy hydrogen": hydrogen; "prize money": none)."""
    return any(rare(w) for w in words)


__all__ = ["COMMON_ZIPF", "any_rare", "rare", "zipf"]
