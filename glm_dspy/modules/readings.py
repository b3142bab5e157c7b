"""A question's readings (Pangu's "don't generate, discriminate": the graph proposes, a
chooser picks; glm_dspy/modules/discriminate.py answers with them): every well-typed reading of
its starts, best first.

    question -> its starts: the nodes it names (RetrieveNode, the exact name) and the nodes met
    by the values it says (graphs/cypher/anchors.py: "the 1913 physics laureate" is a prize of
    year 1913 and category Physics; "since 2020", "the 1990s" bound a year), or says in other
    words ("woman" is a gender of female, by the embedder; glm_dspy/modules/question_starts.py)
    -> every path of up to 3 hops those starts really have, the nodes two starts' paths both
    reach, and (where the question says "same") the nodes that share a value with a named one
    (graphs/cypher/candidates.py), with what the end may return; where it asks for a first, a
    last, the most or the fewest, the same paths ordered by a date or year on them, or grouped
    by a value on them (graphs/cypher/ranked_candidates.py); where it ties what it asks to
    another thing's time ("born in the year X won"), readings whose start shares a year with a
    time a named node's path holds (graphs/cypher/value_meets.py); a bounded count, a negation,
    a reference back and a comparison add the readings that count, leave out, loop or compare
    -> typed: only those whose values can be what the question asks (question_facts.asked: a
    count, a date, a name; each feature's kind read from the graph); who or which thing asks
    for the thing itself, its name, not another of its features unless the question says that
    feature's words ("the family name of ..."); "which <type>" (or "what is the <type> ..."),
    where a word names one of the graph's node types, is answered by nodes of that type only,
    and by their names, but a feature the asked words name ("which institutions in the city
    where X was born": the institutions, not their city)
    -> scored: the embedder's cosine of the reading's words and the question, plus how the
    reading binds the question's words (glm_dspy/modules/reading_fit.py: hops cost, relations
    and features the question says earn, in its words, in words it derives or the bank teaches,
    or in other words by meaning; schema words, stated values, repeated relation words and a
    rank the question asks for that the reading leaves unbound cost; hops said out of order
    cost, glm_dspy/modules/word_order.py).
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import replace

import numpy as np

from glm_dspy.modules.copyable_lock import CopyableLock
from glm_dspy.modules.question_facts import COUNT as COUNT_ASKED
from glm_dspy.modules.embedding_cache import EmbeddingCache
from glm_dspy.modules.person_types import person_types
from glm_dspy.modules.question_absence import absences
from glm_dspy.modules.question_facts import (NAME, YES_NO, asked, asked_span, asked_words, asks_person, compared, compares,
                                             count_bound, elided, equates, extreme, fits, meets_in_time, most, negated,
                                             passive_words, question_values, referred_words, refers_back, same_words,
                                             word_stem)
from glm_dspy.modules.meant_words import meant_by_word, near_names, open_words, schema_names
from glm_dspy.modules.question_starts import question_starts
from glm_dspy.modules.reading_fit import (RANK_COST, UNSAID_COST, answer_types, bound_time_unsaid, compared_unsaid,
                                          fewer_types, is_stated, lacks, meets_unsaid, named_back, path_fit, repeated,
                                          returns_fit, starts_of_reading, unnamed_time, unsaid, unsaid_detour)
from glm_dspy.modules.relation_voice import object_words
from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.modules.taught_words import mentions, taught_words
from glm_dspy.modules.word_order import ORDER_COST, name_end, order_misses, said_after, said_at
from glm_dspy.graphs.cypher.anchors import DATE as VALUE_DATE
from glm_dspy.graphs.cypher.anchors import TEXT as VALUE_TEXT
from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS, ValueIndex, stem
from glm_dspy.graphs.cypher.candidates import (COUNT, Candidate, Start, inverse_relations, joined_candidates, paths_from,
                                               readings_of, same_value_candidates)
from glm_dspy.graphs.cypher.absent import absent_readings
from glm_dspy.graphs.cypher.counted import counted_readings, ordered_counted
from glm_dspy.graphs.cypher.gaps import gap_readings
from glm_dspy.graphs.cypher.compared import TEXT as COMPARED_TEXT
from glm_dspy.graphs.cypher.compared import compared_of
from glm_dspy.graphs.cypher.loops import MAX_LOOP_HOPS, loops_of
from glm_dspy.graphs.cypher.ranked_candidates import ranked_readings
from glm_dspy.graphs.cypher.value_meets import MAX_MEET_HOPS, value_meet_readings
from glm_dspy.graphs.triples import INVERSE_PREFIX

PATHS = 24  # paths whose readings are ranked one by one
JOIN_HOPS = 2  # the longest path of a start that joins another's
YES_NO_HOPS = 2  # the longest join that states a yes/no question's fact (born in, won, among)
# each measured on and off (bench/readings.py --off); "yes/no", "gate" and "one" are Discriminate's
LEVERS = frozenset({"ranked", "likened", "stated", "yes/no", "meets", "union", "counted", "absent", "loops",
                    "compared", "persons", "meant", "order", "gate", "voice", "one", "repeated", "forms",
                    "detour", "which", "passive", "asked-end", "referred", "meet-order", "types",
                    "time-said", "absence", "gaps", "exists", "inverse", "unprobed"})


class Readings:
    """The readings of a graph's questions; what it reads of the graph (values, inverses, the
    bank's words, loops, every node of a type) is read once, by one thread."""

    def __init__(self, graph, *, max_hops: int = 3, relation_words: RelationWords | None = None,
                 levers: frozenset[str] = LEVERS):
        """`relation_words`: the words the graph's bank teaches for its relations
        (glm_dspy/modules/relation_words.py); None: learned from the graph's bank on first use.
        `levers`: of LEVERS, those on (Discriminate's docstring says what each does)."""
        assert levers <= LEVERS and max_hops >= 1, (sorted(levers - LEVERS), max_hops)
        self.graph, self.max_hops, self.levers = graph, max_hops, frozenset(levers)
        self._relation_words = relation_words
        self._inverses: dict | None = None
        self._values: ValueIndex | None = None
        self._built = CopyableLock()  # the values, inverses and taught words (`_build`) are read once, by one thread
        self._embed = EmbeddingCache(lambda: graph.retriever.node_index.embedder)
        self._words: set[str] | None = None  # `_schema_words`
        self._taught: dict[str, tuple[str, bool]] | None = None  # `_taught_words`
        self._types: list | None = None  # `_type_starts`
        self._loops: dict[tuple, list] = {}  # (node type, comparison or None) -> its loops (`_looped`)
        self._everys: dict[tuple[str, int], list] = {}  # (node type, hops) -> the readings of every node of it
        self._persons: frozenset[str] | None = None  # `_person_types`
        self._schema_names: list[str] | None = None  # `_names`

    def starts(self, question: str) -> list[Start]:
        """The nodes the question names, then those the values it says meet
        (glm_dspy/modules/question_starts.py)."""
        self._build()
        return question_starts(self.graph, self._values, question, self._embed, union="union" in self.levers,
                               likened="likened" in self.levers, absence="absence" in self.levers)

    def candidates(self, question: str) -> list[Candidate]:
        """Every reading of every start and of every two starts' meeting, whose values can answer
        the question (unranked)."""
        self._build()
        store, schema = self.graph.store, self.graph.schema
        starts = self.starts(question)
        paths = {start: paths_from(store, start, max_hops=self.max_hops, inverses=self._inverses) for start in starts}
        found = [c for start in starts for c in readings_of(schema, start, paths[start])]
        if compares(question):
            found += [c for start in starts if start.is_named for c in same_value_candidates(schema, start)]
        # a yes/no question's join is its meaning, read or not: the nearest says yes or no
        unprobed = {"probe": False, "max_hops": YES_NO_HOPS} \
            if "unprobed" in self.levers and asked(question) == YES_NO else {}
        for i, first in enumerate(starts):
            for second in starts[i + 1:]:
                short = [[p for p in paths[s] if len(p) <= JOIN_HOPS] for s in (first, second)]
                found += joined_candidates(store, schema, first, short[0], second, short[1], **unprobed)
        if "meets" in self.levers and meets_in_time(question):
            named = [(s, paths[s]) for s in starts if s.is_named]
            targets = [(s, paths[s]) for s in starts if not s.is_named and is_stated(s)] + self._type_starts()
            found += value_meet_readings(schema, self._timed, named, targets, readings_of)
        last, most_of = extreme(question), most(question)
        if (last is not None or most_of is not None) and "ranked" in self.levers:
            found += ranked_readings(schema, self._values, found, descending=last, most=most_of)
        kind, bound = asked(question), count_bound(question)
        said = {stem(w) for w in question_values(question).words}
        thing = self._thing(question)
        if bound is not None and "counted" in self.levers:
            counted = counted_readings(schema, self._values, found + self._every(thing), bound, kind == COUNT_ASKED)
            if last is not None and kind != COUNT_ASKED:  # "the last to win it alone": ordered among those counted
                counted += ordered_counted(found + counted)
            found += counted
        if negated(question) and "absent" in self.levers:
            found += absent_readings(schema, self._values, found + self._every(thing), kind == COUNT_ASKED)
        if refers_back(question) and "loops" in self.levers:
            found += self._looped(found + self._every(thing), thing)
        if (op := compared(question)) is not None and "compared" in self.levers:
            found += self._looped(found + self._every(thing), thing, op)
        if equates(question) and "compared" in self.levers:  # "the same first name as their co-laureate"
            found += self._looped(found + self._every(thing), thing, "=")
        if negated(question) and "gaps" in self.levers:  # "between 1901 and 2022 ... not awarded": years
            found += gap_readings(self._values.years, found, kind == COUNT_ASKED)
        things = {thing} if thing is not None else set()
        if thing is not None and "which" in self.levers:  # "which institutions ...": the institutions, by name
            said = {stem(w) for w in asked_words(question)}
        return [c for c in found
                if fits(kind, self._value_kind(c), c.returns == COUNT)
                and (kind != NAME or c.group is not None
                     or c.returns == schema.node_types[answer_types(c)[0]].text_feature
                     or all(stem(w) in said for w in c.returns.split("_")))
                and (not things or things & set(answer_types(c)))]

    def _timed(self, type_name: str, feature: str) -> str | None:
        """"date" for a date feature, "year" for a number feature of years, else None."""
        if self._values.kind(type_name, feature) == VALUE_DATE:
            return "date"
        return "year" if (type_name, feature) in self._values.years else None

    def _compared(self, type_name: str, feature: str) -> str | None:
        """How a value is compared (graphs/cypher/compared.py): a time by its year, a short
        text as stored; None for the rest (long texts, lists, other numbers)."""
        return self._timed(type_name, feature) or (COMPARED_TEXT if self._values.kind(type_name, feature) == VALUE_TEXT
                                                   else None)

    def _type_starts(self) -> list[tuple[Start, list]]:
        """Every node of each type that holds a time, as a start, with its short paths (read once)."""
        if self._types is None:
            schema = self.graph.schema
            types = [t for t, node_type in schema.node_types.items() if any(self._timed(t, f) for f in node_type.features)]
            starts = [Start(t, (), t) for t in types]
            self._types = [(s, paths_from(self.graph.store, s, max_hops=MAX_MEET_HOPS, inverses=self._inverses))
                           for s in starts]
        return self._types

    def _every(self, thing: str | None) -> list[Candidate]:
        """The readings of every node of the type the question asks for (up to MAX_MEET_HOPS
        hops), for a count to be bounded on ("Which laureates won more than one prize?"): none
        where it names no type. Read once per type: the graph does not change."""
        return [] if thing is None else self.every(thing, MAX_MEET_HOPS)

    def _looped(self, readings: list[Candidate], thing: str | None, op: str | None = None) -> list[Candidate]:
        """Each plain reading of at most MAX_LOOP_HOPS hops that names its end (of the type the
        question asks for, where it names one), with each loop its end's type has
        (graphs/cypher/loops.py), or with each pair of its own values that compare by `op`
        (graphs/cypher/compared.py); those of a type are read once."""
        found = []
        for c in readings:
            if c.join or c.same or c.order or c.group or c.meets or c.counted or c.absent or c.loop \
                    or len(c.hops) > MAX_LOOP_HOPS or (c.hops and c.hops[-1].also) \
                    or (thing is not None and c.end_type != thing) \
                    or c.returns != self.graph.schema.node_types[c.end_type].text_feature:
                continue
            key = (c.end_type, op)
            if key not in self._loops:
                self._loops[key] = loops_of(self.graph.store, c.end_type, self._inverses) if op is None else \
                    compared_of(self.graph.store, self.graph.schema, c.end_type, op, self._inverses, self._compared)
            found += [replace(c, loop=loop) for loop in self._loops[key]]
        return found

    def _person_types(self, question: str) -> frozenset[str]:
        """The graph's types of people, where the question asks "who" (read once)."""
        if "persons" not in self.levers or not asks_person(question):
            return frozenset()
        return self.person_types()

    def person_types(self) -> frozenset[str]:
        """The graph's types of people (glm_dspy/modules/person_types.py; read once)."""
        if self._persons is None:
            self._persons = person_types(self.graph.store, self.graph.schema, self._embed)
        return self._persons

    def every(self, type_name: str, max_hops: int) -> list[Candidate]:
        """The readings of every node of a type, up to `max_hops` hops (read once)."""
        self._build()
        if (type_name, max_hops) not in self._everys:
            start = Start(type_name, (), type_name)
            paths = paths_from(self.graph.store, start, max_hops=max_hops, inverses=self._inverses)
            self._everys[(type_name, max_hops)] = readings_of(self.graph.schema, start, paths)
        return self._everys[(type_name, max_hops)]

    def _value_kind(self, c: Candidate) -> str:
        """The kind of a reading's values: its end's feature's, or its group key's (a date's
        year, month or decade is a date's)."""
        if c.group is None:
            return self._values.kind(answer_types(c)[0], c.returns)
        kind = self._values.kind(c.group.key.type_name, c.group.key.feature)
        return VALUE_DATE if c.group.part is not None else kind

    def _build(self) -> None:
        with self._built:
            if self._values is None:
                self._values = ValueIndex.build(self.graph.store, self.graph.schema)
            if self._inverses is None:
                self._inverses = inverse_relations(self.graph.store, self.graph.schema)
            if self._taught is None:
                self._taught = taught_words(self.graph, self._relation_words)

    def _thing(self, question: str) -> str | None:
        """The node type "which/what <words>" names: the first of those words that is a type's
        name, plurals aside ("Which Nobel laureate ..." asks for a laureate); None if none is."""
        types = {stem(t): t for t in self.graph.schema.node_types}
        return next((types[stem(w)] for w in asked_words(question) if stem(w) in types), None)

    def readings(self, question: str) -> list[Candidate]:
        """All candidates, best first: by meaning (the embedder's cosine of the reading's words and
        the question) plus how the reading binds the question's words (`path_fit`,
        `returns_fit`). The PATHS paths
        that fit best are kept first (by their words up to the end's type), then every reading of
        those is scored, so a question's hundreds of readings cost a few hundred short
        embeddings, most of them cached."""
        return self.rank(question, self.candidates(question))

    def rank(self, question: str, found: list[Candidate]) -> list[Candidate]:
        """`found` (readings of the question's starts), best first, as `readings` ranks them."""
        if not found:
            return []
        asked_vector = self._embed([question])[0]
        said = Counter(word_stem(w) for w in re.findall(r"[a-z]+", question.lower()))
        literal = said.copy()  # the question's own words, before those said in other words ("won": prize)
        bound = {w for c in found for w in c.bound} | set(self._taught)  # a word the bank teaches is bound
        words = open_words(question, self._names(), bound)
        meant: dict[str, set[str]] = {}
        if "meant" in self.levers:  # schema names said in other words ("trained": mentor)
            meant = meant_by_word(words, self._names(), self._embed, forms="forms" in self.levers)
            said += Counter(stem_ for stems in meant.values() for stem_ in stems)
        near = near_names(words, self._names(), self._embed)
        times = self._time_names()
        time_named = bool(near & times) or any(all(said[word_stem(w)] for w in name.split()) for name in times)
        placed = said_at(question, meant, self._taught,
                         asked_span(question) if "asked-end" in self.levers and self._thing(question) else None,
                         frozenset(at for at, _ in referred_words(question)) if "referred" in self.levers else frozenset()) \
            if "order" in self.levers else None
        passive: dict[str, frozenset[str]] = {}  # the stem of a relation said in the passive -> its agent's words
        for w, agent in passive_words(question) if "passive" in self.levers else ():
            for stem_ in {word_stem(w), *meant.get(w, ())}:
                passive[stem_] = passive.get(stem_, frozenset()) | frozenset(agent)
        named = self._named_back()
        inverse = self._inverse_names() if "inverse" in self.levers else {}

        ellipsis = elided(question)

        named_after = {}  # a named start's words -> (what the words after its name say, the names they may say)
        if "meet-order" in self.levers and meets_in_time(question):
            every = said_at(question, meant, self._taught)
            lowered = re.findall(r"[a-z]+", question.lower())
            for c in found:
                if c.meets is not None and c.meets.other.bound not in named_after:
                    end = name_end(c.meets.other.bound, every)
                    tail = [] if end is None else lowered[end + 1:]
                    named_after[c.meets.other.bound] = (said_after(c.meets.other.bound, every),
                                                        near_names(tail, self._names(), self._embed))

        def misplaced(c: Candidate) -> float:
            """Hops said out of their order outwards from the start; compared times, and times a
            start is bound on, left unsaid."""
            return (ORDER_COST * order_misses(c.start.bound, c.hops, placed, named) if placed is not None else 0.0) \
                + UNSAID_COST * compared_unsaid(c, said, near, ellipsis) \
                + UNSAID_COST * ("time-said" in self.levers and bound_time_unsaid(c, said, near, self._timed)) \
                + UNSAID_COST * (c.meets is not None and c.meets.other.bound in named_after
                                 and meets_unsaid(c, *named_after[c.meets.other.bound]))

        thing = self._thing(question)
        by_path: dict[str, Candidate] = {}
        for c in found:
            by_path.setdefault(c.path_words(), c)
        paths = list(by_path)
        taught, persons = mentions(question, self._taught), self._person_types(question)
        voiced = object_words(question) if "voice" in self.levers else None
        path_scores = self._embed(paths) @ asked_vector \
            + np.array([path_fit(by_path[p], said, thing, taught, persons, named, voiced, passive, inverse)
                        - misplaced(by_path[p])
                        for p in paths])
        kept = {paths[i] for i in np.argsort(-path_scores, kind="stable")[:PATHS]}
        found = [c for c in found if c.path_words() in kept]
        schema_words = self._schema_words() & set(said) - {word_stem(w) for w in self._taught}
        # a gap's years are those the start is not in: the words of the event denied ("not awarded") say it
        denied = schema_words & {word_stem(w) for a in absences(question) for w in a.event} \
            if negated(question) else set()
        relation_said = Counter({w: n for w, n in said.items() if w in self._relation_words_only}
                                if "repeated" in self.levers else {})
        if "referred" in self.levers:  # "... Who did the mentor share it with?": the mentor named before
            relation_said -= Counter(word_stem(w) for _, w in referred_words(question))
        relation_same = Counter(word_stem(w) for w in same_words(question))
        said_types = Counter({t: n for t in self.graph.schema.node_types
                              if (n := min(literal[word_stem(w)] for w in t.split("_") if w)) > 1}
                             if "types" in self.levers else {})
        stated = frozenset().union(*(s.bound for c in found for s in starts_of_reading(c) if is_stated(s))) \
            if "stated" in self.levers else frozenset()
        ranks = (extreme(question) is not None, most(question) is not None,
                 count_bound(question) is not None and "counted" in self.levers,
                 negated(question) and "absent" in self.levers,
                 compared(question) is not None and "compared" in self.levers
                 or equates(question) and "loops" in self.levers)
        scores = self._embed([c.words() for c in found]) @ asked_vector \
            + np.array([path_fit(c, said, thing, taught, persons, named, voiced, passive, inverse) + returns_fit(c, said)
                        - UNSAID_COST * (unsaid(c, schema_words - denied if c.gap is not None else schema_words,
                                                taught, voiced, inverse) + len(stated - c.bound)
                                         + repeated(c, relation_said, relation_same, inverse)
                                         + fewer_types(c, said_types))
                        - UNSAID_COST * ("detour" in self.levers and unsaid_detour(c, said, taught))
                        - RANK_COST * ((ranks[0] and c.order is None) + (ranks[1] and c.group is None)
                                       + (ranks[2] and c.counted is None)
                                       + (ranks[3] and c.absent is None and c.gap is None and not lacks(c))
                                       + (ranks[4] and c.loop is None))
                        - misplaced(c) - UNSAID_COST * (not time_named and unnamed_time(c, self._timed))
                        for c in found])
        return [found[i] for i in np.argsort(-scores, kind="stable")]

    @functools.cached_property
    def _relation_words_only(self) -> frozenset[str]:
        """The stems of the words of relation names that name no node type nor feature:
        `repeated` counts how often the question says them."""
        schema = self.graph.schema
        others = {word_stem(w) for name in [*schema.node_types, *(f for t in schema.node_types.values()
                                                                  for f in t.features)] for w in name.split("_")}
        return frozenset({word_stem(w) for name in schema.relations for w in name.lower().split("_")
                          if w and w not in FUNCTION_WORDS} - others - {word_stem(INVERSE_PREFIX.rstrip("_"))})

    @functools.cached_property
    def _schema_facts(self) -> tuple[frozenset[str], frozenset[str]]:
        """(the relations a backward hop over which is named by its type: `named_back`; the
        names, in words, of the features that hold a time): the schema's, read once."""
        self._build()
        schema = self.graph.schema
        return named_back(schema), frozenset(f.replace("_", " ") for t, node_type in schema.node_types.items()
                                             for f in node_type.features if self._timed(t, f))

    def _inverse_names(self) -> dict[str, str]:
        """relation -> the name the graph stores it under the other way (`inverse_relations`:
        the edge sets exactly another's reversed, which no path takes): a hop backwards over
        mentor is a student hop. Not a triples graph's written inverses (`inv_r`), nor a name
        that is the node type the hop reaches (institution -> laureate): they say no more."""
        self._build()
        types = self.graph.schema.node_types
        return {kept[0]: skipped[0] for skipped, kept in self._inverses.items()
                if not skipped[0].startswith(INVERSE_PREFIX) and skipped[0] not in types}

    def _named_back(self) -> frozenset[str]:
        return self._schema_facts[0]

    def _time_names(self) -> frozenset[str]:
        return self._schema_facts[1]

    def _names(self) -> list[str]:
        if self._schema_names is None:
            self._schema_names = schema_names(self.graph.schema)
        return self._schema_names

    def _schema_words(self) -> set[str]:
        """The stems of the words of the graph's relation, node type and feature names, but
        function words ("of", "in")."""
        if self._words is None:
            schema = self.graph.schema
            names = [*schema.relations, *schema.node_types,
                     *(f for t in schema.node_types.values() for f in t.features)]
            self._words = {word_stem(w) for name in names for w in name.lower().split("_")
                           if w and w not in FUNCTION_WORDS and not w.isdigit()} - {word_stem(INVERSE_PREFIX.rstrip("_"))}
        return self._words

