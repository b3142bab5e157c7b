"""Anchors by value: where a question names no node but a value the graph stores ("the 1913 physics
laureate" is a prize whose year is 1913 and whose category is Physics; "born on 25 June 1864" is
a laureate whose birth date is 1864-06-25; "female" is a laureate's gender).

    ValueIndex.build(store, schema)  # once per graph: what each feature holds (value_index.py)
    anchors(index, store, facts)     # the conditions a question's words, numbers and dates meet
    starts_of(anchors, store)        # those conditions as candidate starts, per node type

Everything here is read from the graph, not from any question or template:
- a feature's *kind* (text, date, number, list) from its type and its values (ISO dates);
- a *categorical* feature (at most CATEGORICAL distinct values, e.g. a prize's category) is met
  by a question word that is one of a value's words, plurals aside ("medicine" meets "Physiology
  or Medicine", "economics" meets "Economic Sciences");
- any other short text value is met only by the same words in the question, written as stored
  ("Zernike" meets a family name, "Charles Thomson Rees Wilson" a full name; "born" does not meet
  the family name Born, nor a run of function words a value);
- a number meets an integer feature that holds it, and a year the dates that start with it; a
  date meets a date feature that holds it.
A condition that no node meets is no anchor (each is checked with one count query).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from glm_dspy.graphs.cypher.condition import DECADE, RANGE, Condition
from glm_dspy.graphs.cypher.printer import print_expression
from glm_dspy.graphs.cypher.rare_words import any_rare
from glm_dspy.graphs.cypher.value_index import DATE, LIST, LONG_TEXT, NUMBER, ValueIndex, folded, stem
from glm_dspy.graphs.literal import cypher_name

MAX_STARTS = 8
MAX_SHARE = 0.05  # words in long texts that more than this share of a type's nodes mention meet nothing
MIN_MENTION = 5  # characters of a single word looked for in long texts
MAX_COMBINED = 256  # ways of combining a type's conditions looked at

FUNCTION_WORDS = frozenset({"a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or",
                            "not", "no", "is", "was", "are", "were", "be", "who", "what", "which", "when", "where",
                            "how", "did", "does", "do", "has", "have", "had", "it", "its", "their", "his", "her",
                            "there", "they", "them", "this", "that", "these", "those", "than", "then"})


@dataclass(frozen=True, slots=True)
class Anchor:
    type_name: str
    condition: Condition
    said: str  # the question's words it was read from


@dataclass(frozen=True, slots=True)
class QuestionValues:
    """What the question says that a stored value may equal: its lower-case words, its runs of
    words (as written, for whole values), its whole numbers and its dates (ISO)."""

    words: tuple[str, ...]
    phrases: tuple[str, ...]
    numbers: tuple[int, ...]
    dates: tuple[str, ...]
    bounds: tuple[tuple[str, int], ...] = ()  # (">=", 2020) of "since 2020": a year the values are on one side of
    decades: tuple[int, ...] = ()  # 1990 of "the 1990s"
    amounts: tuple[tuple[str, int], ...] = ()  # (">=", 1000000) of "reach one million": a quantity the values pass
    tokens: tuple[str, ...] = ()  # the lower-case words in their order, each time said (`words` holds each once)
    ranges: tuple[tuple[int, int], ...] = ()  # (1901, 2022) of "between 1901 and 2022": years the values lie within


def anchors(index: ValueIndex, store, said: QuestionValues, *, exclude: set[str] = frozenset(),
            types: frozenset[str] = frozenset(), operators: frozenset[str] = frozenset()) -> list[Anchor]:
    """The conditions the question's values meet, each met by some node; `exclude`: folded
    phrases already bound to nodes by name (they are starts of their own); `types`: the stems
    of the graph's node type names, which say what a question asks about, no long text's mention
    ("countries" is the country type, not a motivation that mentions countries); `operators`:
    words that say what to do with the values ("first", "most", "average"), no mention either."""
    found: dict[tuple[str, Condition], str] = {}
    bound = [f" {name} " for name in exclude]
    for phrase in said.phrases:
        key = folded(phrase)
        if any(f" {key} " in name for name in bound) or set(key.split()) <= FUNCTION_WORDS:
            continue
        for type_name, feature, value in sorted(index.values.get(key, ())):
            if _written(value, phrase) or _categorical(index, type_name, feature):
                found.setdefault((type_name, Condition(feature, "=", value)), phrase)
    for word in said.words:
        for type_name, feature, value in sorted(index.categories.get(stem(word), ())):
            found.setdefault((type_name, Condition(feature, "=", value)), word)
    for (type_name, feature), kind in sorted(index.kinds.items()):
        if kind == NUMBER:
            for number in said.numbers:
                found.setdefault((type_name, Condition(feature, "=", number)), str(number))
        elif kind == DATE:
            for date in said.dates:
                found.setdefault((type_name, Condition(feature, "=", date)), date)
            for number in said.numbers:
                if 1000 <= number <= 2999 and not any(d.startswith(str(number)) for d in said.dates):
                    found.setdefault((type_name, Condition(feature, "STARTS WITH", str(number))), str(number))
            for decade in said.decades:
                found.setdefault((type_name, Condition(feature, "STARTS WITH", str(decade)[:3])), f"{decade}s")
            for op, year in said.bounds:  # ISO dates compare as text: since 2020 is >= "2020", after it >= "2021"
                op, year = {">": (">=", year + 1), "<=": ("<", year + 1)}.get(op, (op, year))
                found.setdefault((type_name, Condition(feature, op, str(year))), str(year))
            for low, high in said.ranges:
                found.setdefault((type_name, Condition(feature, RANGE, (str(low), str(high + 1)))), f"{low} {high}")
        if kind == NUMBER and (type_name, feature) not in index.years:
            for op, amount in said.amounts:  # "reach one million": an amount the values pass, not one they equal
                found.setdefault((type_name, Condition(feature, op, amount)), str(amount))
        if (type_name, feature) in index.years:
            for decade in said.decades:
                found.setdefault((type_name, Condition(feature, DECADE, decade)), f"{decade}s")
            for op, year in said.bounds:
                found.setdefault((type_name, Condition(feature, op, year)), str(year))
            for low, high in said.ranges:
                found.setdefault((type_name, Condition(feature, RANGE, (low, high))), f"{low} {high}")
    met = [Anchor(t, c, s) for (t, c), s in found.items() if _met(store, t, (c,))]
    used = {word for anchor in met for word in folded(anchor.said).split()}
    return met + _mentions(index, store, said, used | operators, types)


def _written(value: str, phrase: str) -> bool:
    """Whether the question's phrase writes the stored value (a name, not a category) as it is
    written, letter case and all, its punctuation aside: "Cambridge MA" writes "Cambridge, MA",
    "Kaiser-Wilhelm-Institut now Max-Planck Institut für Chemie" writes the institute's name
    with its brackets; "may" does not write "May"."""
    return re.findall(r"[^\W_]+", value) == re.findall(r"[^\W_]+", phrase)


def _mentions(index: ValueIndex, store, said: QuestionValues, used: set[str], types: frozenset[str]) -> list[Anchor]:
    """Long texts (and lists of texts) that mention a run of the question's words (not those
    another anchor holds; function words only inside it: "the invention of the bubble chamber"
    is one phrase): the longest pieces first, each beginning and ending on a content word, a
    shorter piece only where the longer meet nothing; a piece more than MAX_SHARE of the nodes
    mention is no anchor, nor one of common English words only ("where X is based", "the
    other": graphs/cypher/rare_words.py)."""
    runs, run = [], []
    for word in (*(said.tokens or said.words), ""):
        if word and not word.isdigit() and word not in used and (word not in FUNCTION_WORDS or run):
            run.append(word)  # a function word inside a run is the phrase's ("the invention of the bubble chamber")
        elif run:
            runs.append(run)
            run = []
    found = []
    for (type_name, feature), kind in sorted(index.kinds.items()):
        if kind not in (LONG_TEXT, LIST):
            continue
        total = index.sizes.get(type_name, 0)
        for words in runs:
            pieces = [words[i:j] for n in range(len(words), 0, -1) for i, j in [(i, i + n) for i in range(len(words) - n + 1)]]
            for piece in pieces:
                if piece[0] in FUNCTION_WORDS or piece[-1] in FUNCTION_WORDS:
                    continue  # a phrase begins and ends on its own words
                text = " ".join(piece)
                if len(piece) == 1 and (len(text) < MIN_MENTION or stem(text) in types) or not any_rare(piece):
                    continue
                condition = Condition(feature, "CONTAINS", text, kind == LIST)
                count = _count(store, type_name, (condition,))
                if 0 < count <= max(1, MAX_SHARE * total):
                    found.append(Anchor(type_name, condition, text))
                    break
    return found


def starts_of(found: list[Anchor], store, *, max_starts: int = MAX_STARTS,
              listed=None) -> list[tuple[str, tuple[Condition, ...], frozenset[str]]]:
    """The anchors as starts: per node type, its conditions together (each of the question's
    words bound once: `_combinations`) where some node meets them all (of one feature, one
    value: "physics or chemistry" is two starts), then each alone;
    where `listed(said, said)` says two anchors' words stand in one list of the question, the
    values of one feature so listed ("physics, chemistry and medicine") are also one start of
    any of them (a condition IN), alone and with the others; at most `max_starts`, those that
    bind more of the question's values first; each with the question's words it binds."""
    by_type: dict[str, list[Condition]] = defaultdict(list)
    words, said = {}, {}  # (type, condition) -> the question's words it binds, as said
    for anchor in found:
        by_type[anchor.type_name].append(anchor.condition)
        words[(anchor.type_name, anchor.condition)] = frozenset(folded(anchor.said).split())
        said[(anchor.type_name, anchor.condition)] = anchor.said
    starts = []
    for type_name, conditions in by_type.items():
        per_feature: dict[str, list[Condition]] = defaultdict(list)
        for condition in conditions:
            per_feature[condition.feature].append(condition)
        for group in per_feature.values():
            lists = _lists([c for c in group if c.op == "="], lambda a, b: listed is not None
                           and listed(said[(type_name, a)], said[(type_name, b)]))
            for equal in lists:
                group.insert(0, Condition.union(equal))
                words[(type_name, group[0])] = frozenset().union(*(words[(type_name, c)] for c in equal))
        combined = _combinations(list(per_feature.values()), lambda c: words[(type_name, c)])
        together = [c for c in combined if len(c) > 1 and _met(store, type_name, c)]
        starts += [(type_name, c) for c in together]
        starts += [(type_name, (c,)) for group in per_feature.values() for c in group]
    starts = list(dict.fromkeys(starts))
    starts.sort(key=lambda start: -sum(len(c.values) for c in start[1]))
    return [(t, c, frozenset().union(*(words[(t, one)] for one in c))) for t, c in starts[:max_starts]]


def _categorical(index: ValueIndex, type_name: str, feature: str) -> bool:
    return (type_name, feature) in index.categorical


def _lists(conditions: list[Condition], listed) -> list[list[Condition]]:
    """The runs of two or more conditions each listed with the next (a chain of pairs)."""
    runs: list[list[Condition]] = []
    for condition in conditions:
        joined = next((run for run in runs if any(listed(other, condition) for other in run)), None)
        if joined is None:
            runs.append([condition])
        else:
            joined.append(condition)
    return [run for run in runs if len(run) >= 2]


def _combinations(groups: list[list[Condition]], words, limit: int = 16) -> list[tuple[Condition, ...]]:
    """At most one condition of each feature, every way that binds each of the question's words
    once (`words(condition)`: those it was bound from; "1935" is a prize's year or its date
    awarded, not both at once, so the prize awarded a year late is met too), keeping those no
    other way holds more of: the fullest first, at most `limit` ways."""
    combined: list[tuple[Condition, ...]] = [()]
    for group in groups:
        combined += [(*c, g) for c in combined for g in group if not any(words(g) & words(other) for other in c)]
        combined = combined[:MAX_COMBINED]
    held = [frozenset(c) for c in combined]
    fullest = [c for c, conditions in zip(combined, held) if not any(conditions < other for other in held)]
    return sorted(fullest, key=len, reverse=True)[:limit]


def _met(store, type_name: str, conditions: tuple[Condition, ...]) -> bool:
    where = " AND ".join(print_expression(c.expression("n")) for c in conditions)
    return bool(store.query(f"MATCH (n:{cypher_name(type_name)}) WHERE {where} RETURN n LIMIT 1"))


def _count(store, type_name: str, conditions: tuple[Condition, ...]) -> int:
    where = " AND ".join(print_expression(c.expression("n")) for c in conditions)
    return store.query(f"MATCH (n:{cypher_name(type_name)}) WHERE {where} RETURN count(*) AS c")[0]["c"]


__all__ = ["Anchor", "QuestionValues", "anchors", "starts_of", "FUNCTION_WORDS", "MAX_STARTS"]
