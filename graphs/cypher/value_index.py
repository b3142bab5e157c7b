"""What each feature of a graph holds, read once per graph: its kind (text, date, number, list,
long text: from its type and its values, ISO dates), the whole short text values a question's
words may meet as written, the words of categorical values (at most CATEGORICAL distinct values,
e.g. a prize's category), the number features that hold years, and the features some nodes of
their type lack. Everything here is read from the graph, not from any question or template.
"""

from __future__ import annotations

import re
from collections import defaultdict

from glm_dspy.graphs.literal import cypher_name

CATEGORICAL = 64  # a text feature with at most this many distinct values is a category
MAX_VALUE_WORDS = 6  # longer text values (motivations, abstracts) are not matched whole
MIN_WORD = 4  # shorter words of a categorical value ("or", "of") meet nothing
MAX_VALUES = 50_000  # distinct values read per feature
YEARS = (1000, 2999)
ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TEXT, DATE, NUMBER, LIST, LONG_TEXT = "text", "date", "number", "list", "long text"


class ValueIndex:
    """Per graph: each feature's kind, and the text values a question's words may meet."""

    def __init__(self, kinds: dict[tuple[str, str], str], categories: dict[str, set[tuple[str, str, str]]],
                 values: dict[str, set[tuple[str, str, str]]], sizes: dict[str, int]):
        self.sizes = sizes
        self.categorical = {(t, f) for entries in categories.values() for t, f, _ in entries}
        self.kinds = kinds  # (type, feature) -> TEXT | DATE | NUMBER | LIST
        self.categories = categories  # a value word's stem -> {(type, feature, value)}
        self.values = values  # a whole value, folded -> {(type, feature, value)}; met as written
        self.choices: dict[tuple[str, str], tuple[str, ...]] = {}  # a categorical feature -> its values
        for entries in categories.values():
            for type_name, feature, value in entries:
                self.choices.setdefault((type_name, feature), ())
        for entries in values.values():
            for type_name, feature, value in entries:
                if (type_name, feature) in self.choices:
                    self.choices[(type_name, feature)] += (value,)
        self.choices = {key: tuple(sorted(set(values))) for key, values in self.choices.items()}
        self.years: set[tuple[str, str]] = set()  # number features whose every value is a year (`_years`)
        self.partial: set[tuple[str, str]] = set()  # features some nodes of their type hold and others lack

    @classmethod
    def build(cls, store, schema) -> "ValueIndex":
        kinds, categories, values = {}, defaultdict(set), defaultdict(set)
        for type_name, node_type in schema.node_types.items():
            for feature, kind in node_type.features.items():
                kinds[(type_name, feature)] = _kind(kind)
                if kinds[(type_name, feature)] != TEXT:
                    continue
                label, key = cypher_name(type_name), cypher_name(feature)
                rows = store.query(f"MATCH (n:{label}) WHERE n.{key} IS NOT NULL "
                                   f"RETURN DISTINCT n.{key} AS v LIMIT {MAX_VALUES}")
                stored = [row["v"] for row in rows if isinstance(row["v"], str) and row["v"].strip()]
                if stored and all(ISO_DATE.match(v) for v in stored[:200]):
                    kinds[(type_name, feature)] = DATE
                    continue
                categorical = len(stored) <= CATEGORICAL
                if sorted(len(v.split()) for v in stored)[len(stored) // 2] > MAX_VALUE_WORDS:
                    kinds[(type_name, feature)] = LONG_TEXT  # most values are sentences, not names
                for value in stored:
                    if len(value.split()) > MAX_VALUE_WORDS or len(value) < 3:
                        continue
                    values[folded(value)].add((type_name, feature, value))
                    if categorical:
                        for word in re.findall(r"\w+", value.lower()):
                            if len(word) >= MIN_WORD:
                                categories[stem(word)].add((type_name, feature, value))
        sizes = {t: n.num_nodes for t, n in schema.node_types.items()}
        index = cls(kinds, dict(categories), dict(values), sizes)
        index.years = {key for key, kind in kinds.items() if kind == NUMBER and _years(store, *key)}
        index.partial = {(type_name, feature) for type_name, node_type in schema.node_types.items()
                         for feature in _partial(store, type_name, list(node_type.features))}
        return index

    def kind(self, type_name: str | None, feature: str) -> str:
        return self.kinds.get((type_name, feature), TEXT)


def folded(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def stem(word: str) -> str:
    """A word without its plural or adjective ending, for meeting a category's words."""
    word = word.lower()
    for ending in ("ies", "s"):
        if len(word) > 4 and word.endswith(ending) and not word.endswith("ss"):
            return word[: -len(ending)] + ("y" if ending == "ies" else "")
    return word


def _partial(store, type_name: str, features: list[str]) -> list[str]:
    """The features that some nodes of the type hold and others lack (NULL), read in one query."""
    if not features:
        return []
    label = cypher_name(type_name)
    counted = ", ".join(f"count(n.{cypher_name(f)}) AS f{i}" for i, f in enumerate(features))
    row = store.query(f"MATCH (n:{label}) RETURN count(n) AS n, {counted}")[0]
    return [f for i, f in enumerate(features) if 0 < row[f"f{i}"] < row["n"]]


def _kind(type_text: str) -> str:
    if type_text.endswith("[]"):
        return LIST
    if type_text.upper() in {"INT64", "INT32", "INT16", "INT8", "DOUBLE", "FLOAT", "UINT64", "UINT32"}:
        return NUMBER
    if type_text.upper() in {"DATE", "TIMESTAMP"}:
        return DATE
    return TEXT


def _years(store, type_name: str, feature: str) -> bool:
    """Whether every value of a number feature could be a year of the common era (YEARS), and
    it holds some: a prize's year is; its amount is not."""
    key = cypher_name(feature)
    rows = store.query(f"MATCH (n:{cypher_name(type_name)}) WHERE n.{key} IS NOT NULL "
                       f"RETURN min(n.{key}) AS low, max(n.{key}) AS high")
    return bool(rows) and rows[0]["low"] is not None and YEARS[0] <= rows[0]["low"] and rows[0]["high"] <= YEARS[1]


__all__ = ["ValueIndex", "folded", "stem", "TEXT", "DATE", "NUMBER", "LIST", "LONG_TEXT", "YEARS", "ISO_DATE"]
