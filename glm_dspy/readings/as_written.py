"""A question's names as the graph writes them: their case, and one slip of a name's spelling,
restored from the graph's own names before anything reads the question.

Why: a question's names are found as they are written — a run of capitalised words, then the
node so named (`question_names`, `named_nodes`), a value written letter for letter (anchors).
A question typed in lower case ("which countries border mozambique", "who was marie curie's
husband") names nothing that way, and one typo ("Ernest Rutherfrod") names nobody. The graph
knows how its names are written: each short text value it stores (graphs/cypher/value_index.py)
is a name written as it should be.

The rules (none reads a graph's types or a question's shape):
- Case is the writer's where the writer uses it: only a question with no capital letter past its
  first, or none but capitals, is given the graph's case. There each longest run of its words that is, folded, a value
  the graph stores is written as stored, unless its words are only the lexicon's (question,
  function and number words: glm_dspy/readings/lexicon.py) or it is one word English uses as
  anything but a name of its own: lemminflect knows it as a verb, adjective, adverb or
  auxiliary, or as another word's plural ("most", "reading", "may", "people", "cars" stay;
  "china", "mozambique", "curie" are written as stored).
- A word of the question that is no English word (lemminflect and wordfreq know it not at all)
  and no word of the graph's names is a slip where exactly one word of the graph's names is one
  edit from it (a letter added, dropped or changed, or two neighbours swapped); it is read as
  that word only where the run it then stands in is a whole name the graph stores ("Rutherfrod"
  of "Ernest Rutherfrod"). Where the writer uses case, only a word they capitalised is a name's
  slip ("listed undre a title" is no slip of the name "Andre").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from glm_dspy.graphs.cypher.rare_words import zipf
from glm_dspy.readings import lexicon
from glm_dspy.readings.words import english_lemmas

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@dataclass(frozen=True, slots=True)
class Restored:
    text: str  # the question with its names as the graph writes them
    changes: tuple[tuple[str, str], ...]  # (as said, as written) of each name restored

    def __bool__(self) -> bool:
        return bool(self.changes)


class AsWritten:
    """The graph's names (`written`: a folded value -> how the graph writes it), and the words
    they are made of, for restoring a question's names (module doc)."""

    def __init__(self, written: dict[str, str]):
        self._written = written
        self._words = frozenset(w for name in written for w in name.split())
        self._longest_name = max((len(name.split()) for name in written), default=0)

    @classmethod
    def of(cls, values) -> "AsWritten":
        """From a graph's ValueIndex: of each folded value, the way one of its nodes writes it
        (the first in order where several do)."""
        return cls({key: sorted(value for _, _, value in entries)[0] for key, entries in values.values.items()})

    def restore(self, question: str) -> Restored:
        tokens = [(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(question)]
        said = [t.lower() for t, _, _ in tokens]
        caseless = bool(tokens) and (not any(ch.isupper() for ch in question[tokens[0][1] + 1:])
                                     or not any(ch.islower() for ch in question))  # typed in capitals
        # where the writer uses case, a name is a capitalised word: "sharre" is no slip of "Sharpe"
        slips = {i: self._slip(word) for i, word in enumerate(said)
                 if self._may_be_slip(word) and (caseless or tokens[i][0][:1].isupper())}
        slips = {i: word for i, word in slips.items() if word is not None}
        read = [slips.get(i, word) for i, word in enumerate(said)]
        pieces, changes, at, i = [], [], 0, 0
        while i < len(read):
            match = self._longest(read, i)
            if match is not None:
                end, name = match
                slipped = any(j in slips for j in range(i, end))
                if slipped or caseless and self._names(read[i:end]):
                    start, stop = tokens[i][1], tokens[end - 1][2]
                    if question[start:stop] != name:
                        pieces.append(question[at:start] + name)
                        changes.append((question[start:stop], name))
                        at = stop
                    i = end
                    continue
            i += 1
        return Restored("".join(pieces) + question[at:], tuple(changes))

    def _longest(self, read: list[str], i: int) -> tuple[int, str] | None:
        for end in range(min(len(read), i + self._longest_name), i, -1):
            name = self._written.get(" ".join(read[i:end]))
            if name is not None:
                return end, name
        return None

    @staticmethod
    def _names(words: list[str]) -> bool:
        """Whether a caseless run of words may be a name (module doc)."""
        if all(w in lexicon.CLOSED_CLASS or w.isdigit() for w in words):
            return False
        if len(words) > 1:
            return True
        lemmas = english_lemmas(words[0])
        return not lemmas or set(lemmas) == {"NOUN"} and lemmas["NOUN"] == (words[0],)

    def _may_be_slip(self, word: str) -> bool:
        return word.isalpha() and word not in self._words and not english_lemmas(word) and not _known(word)

    def _slip(self, word: str) -> str | None:
        """The one word of the graph's names one edit from `word`, if exactly one is."""
        near = {w for w in self._near(word) if _one_edit(word, w)}
        return next(iter(near)) if len(near) == 1 else None

    def _near(self, word: str) -> set[str]:
        """The names' words that share `word` or one of its one-letter deletions as one of theirs."""
        index = self._deletions
        return set().union(*(index.get(key, ()) for key in {word, *_deletions(word)}))

    @functools.cached_property
    def _deletions(self) -> dict[str, frozenset[str]]:
        index: dict[str, set[str]] = {}
        for word in self._words:
            if word.isalpha():
                for key in {word, *_deletions(word)}:
                    index.setdefault(key, set()).add(word)
        return {key: frozenset(words) for key, words in index.items()}


def _deletions(word: str) -> set[str]:
    return {word[:i] + word[i + 1:] for i in range(len(word))}


def _one_edit(a: str, b: str) -> bool:
    """Whether `b` is one letter added to, dropped from or changed in `a`, or two neighbours swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        differ = [i for i in range(len(a)) if a[i] != b[i]]
        return len(differ) == 1 or (len(differ) == 2 and differ[1] == differ[0] + 1
                                    and a[differ[0]] == b[differ[1]] and a[differ[1]] == b[differ[0]])
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1:] == short for i in range(len(long)))


def _known(word: str) -> bool:
    """Whether English frequency lists know the word at all (wordfreq)."""
    return zipf(word) > 0


__all__ = ["AsWritten", "Restored"]
