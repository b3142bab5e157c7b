"""Don't generate, discriminate (Pangu, Gu, Deng and Su, ACL 2023): the graph proposes the
readings of a question; the best fitting one answers it (or the model picks one).

    question -> its starts: the nodes it names (RetrieveNode, the exact name) and the nodes met
    by the values it says (graphs/cypher/anchors.py: "the 1913 physics laureate" is a prize of
    year 1913 and category Physics; "since 2020", "the 1990s" bound a year), or says in other
    words (`_likened`: "woman" is a gender of female, by the embedder)
    -> every path of up to 3 hops those starts really have, the nodes two starts' paths both
    reach, and (where the question says "same") the nodes that share a value with a named one
    (graphs/cypher/candidates.py), with what the end may return; where it asks for a first, a
    last, the most or the fewest, the same paths ordered by a date or year on them, or grouped
    by a value on them (graphs/cypher/ranked_candidates.py); where it ties what it asks to
    another thing's time ("born in the year X won"), readings whose start shares a year with a
    time a named node's path holds (graphs/cypher/value_meets.py)
    -> typed: only those whose values can be what the question asks (question_facts.asked: a
    count, a date, a name; each feature's kind read from the graph); who or which thing asks
    for the thing itself, its name, not another of its features unless the question says that
    feature's words ("the family name of ..."); "which <type>", where a word names one of the
    graph's node types, is answered by nodes of that type only
    -> scored: the embedder's cosine of the reading's words and the question, plus how the
    reading binds the question's words (`path_fit`, `returns_fit`: hops cost, relations and
    features the question says, words its starts bind, the type asked for; `unsaid`: schema
    words and stated values it leaves unbound, and a rank the question asks for that it lacks)
    -> run best first (gated, as every query) until `k` read rows that are neither nothing nor
    an echo of the question -> the chooser: NEAREST, the best (no call), or MODEL, the model
    picks one by its number, shown each reading's first values (ChooseReading, one call,
    decoded under a grammar of the numbers) -> its values are the answer, but the things the
    question names ("the co-authors of X on P": P's authors but X); a reading that leaves out
    what the question asks of its answer (an average or a sum, which no reading computes; a
    first or a last it does not order by; the most it does not group by; a bounded count:
    `reading_fit.unrealized`) answers another question, so the fallback answers (lever "gate").

A yes/no question asks whether the two things it states meet (`_yes_no`: a short reading joins
them). A question that states one thing only, a question with no start or whose readings read
nothing, and the model's 0 ("none of these") are not answered here. Those go to `fallback` (a
module taking `question`); in GLM, to Algorithm 1 (`GLM(readings=...)`, glm_dspy/modules/glm.py).
Measured on and off in docs/benchmarks.md (issue 31): with the 0.5B and the 1.5B model,
choosing by number did worse than the best fitting reading.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import replace

import dspy
import numpy as np

from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.grammar.ebnf import choice
from glm_dspy.lm.structured import with_grammar
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.copyable_lock import CopyableLock
from glm_dspy.modules.question_facts import COUNT as COUNT_ASKED
from glm_dspy.modules.embedding_cache import EmbeddingCache
from glm_dspy.modules.person_types import person_types
from glm_dspy.modules.question_facts import (NAME, YES_NO, alternatives, arithmetic, asked, asked_words, asks_one,
                                             asks_person,
                                             compared, compares, count_bound, elided, equates,
                                             extreme, fits, meets_in_time, most, negated, question_values,
                                             refers_back, word_stem)
from glm_dspy.modules.meant_words import meant_by_word, near_names, open_words, schema_names
from glm_dspy.modules.question_starts import question_starts
from glm_dspy.modules.reading_fit import (RANK_COST, UNSAID_COST, answer_types, compared_unsaid, hops_of, is_stated,
                                          named_back, path_fit, repeated, returns_fit, starts_of_reading,
                                          unnamed_time, unrealized, unsaid)
from glm_dspy.modules.relation_voice import object_words
from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.modules.taught_words import mentions, taught_words
from glm_dspy.modules.word_order import ORDER_COST, order_misses, said_at
from glm_dspy.signatures import ChooseReading
from glm_dspy.runs.steps import RETRIEVAL_ERROR, Step, StepLog, listening
from glm_dspy.graphs.cypher.anchors import DATE as VALUE_DATE
from glm_dspy.graphs.cypher.anchors import TEXT as VALUE_TEXT
from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS, ValueIndex, folded, stem
from glm_dspy.graphs.cypher.candidates import (COUNT, Candidate, Start, inverse_relations, joined_candidates, paths_from,
                                      readings_of, same_value_candidates)
from glm_dspy.graphs.cypher.absent import absent_readings
from glm_dspy.graphs.cypher.counted import counted_readings
from glm_dspy.graphs.cypher.compared import TEXT as COMPARED_TEXT
from glm_dspy.graphs.cypher.compared import Compared, compared_of
from glm_dspy.graphs.cypher.loops import MAX_LOOP_HOPS, loops_of
from glm_dspy.graphs.cypher.ranked_candidates import ranked_readings
from glm_dspy.graphs.cypher.value_meets import MAX_MEET_HOPS, value_meet_readings
from glm_dspy.graphs.triples import INVERSE_PREFIX

DEFAULT_K = 8  # readings shown to the model
PATHS = 24  # paths whose readings are ranked one by one
MAX_VALUES = 20  # values joined into an answer
YES_NO_HOPS = 2  # the longest join that states a yes/no question's fact (born in, won, among)
SHOWN_VALUES = 3  # values of each reading the model is shown
MAX_TRIED = 40  # readings run to find `k` that read rows
JOIN_HOPS = 2  # the longest path of a start that joins another's
NONE = "none of these: the question asks something else"
# each measured on and off (bench/readings.py --off)
LEVERS = frozenset({"ranked", "likened", "stated", "yes/no", "meets", "union", "counted", "absent", "loops",
                    "compared", "persons", "meant", "order", "gate", "voice", "one", "repeated", "forms"})
MODEL, NEAREST = "model", "nearest"  # who chooses the reading


class Discriminate(dspy.Module):
    def __init__(self, graph, *, fallback=None, k: int = DEFAULT_K, max_hops: int = 3, chooser: str = NEAREST,
                 relation_words: RelationWords | None = None, levers: frozenset[str] = LEVERS):
        """`chooser`: NEAREST (no call: the best fitting reading that reads rows) or MODEL (one
        ChooseReading call picks among the `k` readings shown). `relation_words`: the words the
        graph's bank teaches for its relations (glm_dspy/modules/relation_words.py; Text2Cypher's
        own, where GLM has one); None: learned from the graph's bank on first use. `levers`: of
        LEVERS, those on (all, but to measure one off): "ranked" readings that order or group,
        "likened" categories said in other words, the cost of leaving a "stated" value unbound,
        "yes/no" questions read as a join, "meets": readings whose start shares a named node's time, and
        "union": several values of one feature as one start of any of them, and "counted": the
        nodes on a path that reach a number of things the question bounds ("in more than one field"),
        "absent": the nodes a path does not reach where the question negates ("where no ... was born"),
        "loops": the ends whose own two paths reach one node, where the question refers back to
        what it asks ("working in their birth city"), "compared": the ends whose two values of their
        own come one before the other as the question says ("won before their mentor did"), or are
        one value where it says "same" ("the same first name as their co-laureate"), "persons": a
        "who" question's readings that end at a type of people (glm_dspy/modules/person_types.py) fit it as those of a type it names,
        "meant": the schema names a question says in other words ("trained": mentor) count as said
        (glm_dspy/modules/meant_words.py), "order": a path's hops said out of their order outwards
        from its start cost (glm_dspy/modules/word_order.py), "one": of a question that asks one value
        ("What year was P published?"), a shorter reading that reads one comes before a longer one
        that reads several (`_one_first`), "repeated": a relation's word said more often than a
        reading takes the relation leaves the rest unsaid ("the mentor of the mentor of ..."),
        "forms": a word says a schema name it derives by its form ("founded": founder; "home":
        hometown; glm_dspy/modules/meant_words.py `derives`)."""
        super().__init__()
        assert levers <= LEVERS, sorted(levers - LEVERS)
        self.levers = frozenset(levers)
        self._relation_words = relation_words
        assert 1 <= k <= 9 and max_hops >= 1 and chooser in (MODEL, NEAREST), (k, max_hops, chooser)
        self.graph, self.fallback, self.k, self.max_hops, self.chooser = graph, fallback, k, max_hops, chooser
        self.choose = dspy.Predict(ChooseReading, max_tokens=24)
        self._inverses: set | None = None
        self._values: ValueIndex | None = None
        self._built = CopyableLock()  # the values, inverses and taught words (`_build`) are read once, by one thread
        self._embed = EmbeddingCache(lambda: graph.retriever.node_index.embedder)
        self._words: set[str] | None = None  # `_schema_words`
        self._taught: dict[str, tuple[str, bool]] | None = None  # `_taught_words`
        self._types: list | None = None  # `_type_starts`
        self._loops: dict[tuple, list] = {}  # (node type, comparison or None) -> its loops (`_looped`)
        self._everys: dict[str, list] = {}  # node type -> the readings of every node of it (`_every`)
        self._persons: frozenset[str] | None = None  # `_person_types`
        self._schema_names: list[str] | None = None  # `_names`

    def starts(self, question: str) -> list[Start]:
        """The nodes the question names, then those the values it says meet
        (glm_dspy/modules/question_starts.py)."""
        self._build()
        return question_starts(self.graph, self._values, question, self._embed, union="union" in self.levers,
                               likened="likened" in self.levers)

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
        for i, first in enumerate(starts):
            for second in starts[i + 1:]:
                short = [[p for p in paths[s] if len(p) <= JOIN_HOPS] for s in (first, second)]
                found += joined_candidates(store, schema, first, short[0], second, short[1])
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
            found += counted_readings(schema, self._values, found + self._every(thing), bound, kind == COUNT_ASKED)
        if negated(question) and "absent" in self.levers:
            found += absent_readings(schema, self._values, found + self._every(thing), kind == COUNT_ASKED)
        if refers_back(question) and "loops" in self.levers:
            found += self._looped(found + self._every(thing), thing)
        if (op := compared(question)) is not None and "compared" in self.levers:
            found += self._looped(found + self._every(thing), thing, op)
        if equates(question) and "compared" in self.levers:  # "the same first name as their co-laureate"
            found += self._looped(found + self._every(thing), thing, "=")
        things = {thing} if thing is not None else set()
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
        if thing is None:
            return []
        if thing not in self._everys:
            start = Start(thing, (), thing)
            paths = paths_from(self.graph.store, start, max_hops=MAX_MEET_HOPS, inverses=self._inverses)
            self._everys[thing] = readings_of(self.graph.schema, start, paths)
        return self._everys[thing]

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
        if self._persons is None:
            self._persons = person_types(self.graph.store, self.graph.schema, self._embed)
        return self._persons

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
        found = self.candidates(question)
        if not found:
            return []
        asked_vector = self._embed([question])[0]
        said = Counter(word_stem(w) for w in re.findall(r"[a-z]+", question.lower()))
        bound = {w for c in found for w in c.bound} | set(self._taught)  # a word the bank teaches is bound
        words = open_words(question, self._names(), bound)
        meant: dict[str, set[str]] = {}
        if "meant" in self.levers:  # schema names said in other words ("trained": mentor)
            meant = meant_by_word(words, self._names(), self._embed, forms="forms" in self.levers)
            said += Counter(stem_ for stems in meant.values() for stem_ in stems)
        near = near_names(words, self._names(), self._embed)
        times = self._time_names()
        time_named = bool(near & times) or any(all(said[word_stem(w)] for w in name.split()) for name in times)
        placed = said_at(question, meant, self._taught) if "order" in self.levers else None
        named = self._named_back()

        ellipsis = elided(question)

        def misplaced(c: Candidate) -> float:
            """Hops said out of their order outwards from the start; compared times left unsaid."""
            return (ORDER_COST * order_misses(c.start.bound, c.hops, placed, named) if placed is not None else 0.0) \
                + UNSAID_COST * compared_unsaid(c, said, near, ellipsis)

        thing = self._thing(question)
        by_path: dict[str, Candidate] = {}
        for c in found:
            by_path.setdefault(c.path_words(), c)
        paths = list(by_path)
        taught, persons = mentions(question, self._taught), self._person_types(question)
        voiced = object_words(question) if "voice" in self.levers else None
        path_scores = self._embed(paths) @ asked_vector \
            + np.array([path_fit(by_path[p], said, thing, taught, persons, named, voiced) - misplaced(by_path[p])
                        for p in paths])
        near = {paths[i] for i in np.argsort(-path_scores, kind="stable")[:PATHS]}
        found = [c for c in found if c.path_words() in near]
        schema_words = self._schema_words() & set(said) - {word_stem(w) for w in self._taught}
        relation_said = Counter({w: n for w, n in said.items() if w in self._relation_words_only}
                                if "repeated" in self.levers else {})
        stated = frozenset().union(*(s.bound for c in found for s in starts_of_reading(c) if is_stated(s))) \
            if "stated" in self.levers else frozenset()
        ranks = (extreme(question) is not None, most(question) is not None,
                 count_bound(question) is not None and "counted" in self.levers,
                 negated(question) and "absent" in self.levers,
                 compared(question) is not None and "compared" in self.levers
                 or equates(question) and "loops" in self.levers)
        scores = self._embed([c.words() for c in found]) @ asked_vector \
            + np.array([path_fit(c, said, thing, taught, persons, named, voiced) + returns_fit(c, said)
                        - UNSAID_COST * (unsaid(c, schema_words, taught, voiced) + len(stated - c.bound)
                                         + repeated(c, relation_said))
                        - RANK_COST * ((ranks[0] and c.order is None) + (ranks[1] and c.group is None)
                                       + (ranks[2] and c.counted is None) + (ranks[3] and c.absent is None)
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

    def shown(self, question: str) -> list[tuple[Candidate, list[str], str]]:
        """The first `k` readings (nearest first) that read rows: each with its values and the
        text that ran. A reading that reads back only what the question states (the full name
        it gives, its start's own name) is an echo and is left out; the names of nodes a path
        reaches are what the graph holds, even where the question says them. Of a question that
        offers answers to choose from ("... a physics or a chemistry prize?"), the best reading
        that reads one of them comes first; elsewhere a reading's values leave out the things the
        question names (`_others`)."""
        kept, seen = [], set()
        said = set(folded(question).split())  # a reading that reads back only what the question says is an echo
        offered = {stem(word) for word in alternatives(question)}
        chosen = []  # of a choice between offered answers, the readings that read one of them
        readings = self.readings(question)[:MAX_TRIED]
        named = {(s.type_name, s.said) for c in readings for s in starts_of_reading(c) if s.is_named}
        for reading in readings:
            try:
                result = self.graph.store.read(reading.cypher)
            except RuntimeError:  # Kuzu could not run it (buffer pool full, past its time): it reads nothing
                continue
            values = list(dict.fromkeys(_text(next(iter(row.values()))) for row in result.rows
                                        if next(iter(row.values())) not in (None, [], "")))
            if offered and values and {stem(v) for v in values} <= offered:
                chosen.append((reading, values, result.text))
            elif not offered:
                values = _others(values, {name for type_name, name in named if type_name in answer_types(reading)})
            if values and not (reading.returns == COUNT and values == ["0"]) and tuple(values) not in seen \
                    and not (_states(reading, self.graph.schema) and all(set(folded(v).split()) <= said for v in values)):
                seen.add(tuple(values))
                kept.append((reading, values, result.text))
            if len(kept) == self.k:
                break
        if "one" in self.levers and asks_one(question):
            kept = _one_first(kept)
        return chosen[:1] + [shown for shown in kept if shown[1] != (chosen[0][1] if chosen else None)][: self.k - bool(chosen)]

    def answer(self, question: str, log: StepLog) -> tuple[str, str] | None:
        """(answer, the query that read it), its steps added to `log`; None where no reading
        answers: a yes/no question (no reading is one), no start, no reading that reads rows, a
        graph Kuzu could not read (its buffer pool full, past a query's time), or the model's 0."""
        if self.graph.retriever.node_index is None:
            return None
        try:
            if asked(question) == YES_NO:
                return self._yes_no(question, log) if "yes/no" in self.levers else None
            shown = self.shown(question)
        except RuntimeError as error:  # Kuzu could not run a reading's query: the readings do not answer
            log.add(Step("graph", output=f"no reading: the graph could not be read ({error})"))
            return None
        if not shown:
            return None
        numbered = "\n".join([f"{i}. {c.words()} = {', '.join(values[:SHOWN_VALUES])}"
                              + (" ..." if len(values) > SHOWN_VALUES else "")
                              for i, (c, values, _) in enumerate(shown, 1)] + [f"0. {NONE}"])
        picked = 1
        if self.chooser == MODEL:
            prediction, step = call_agent("choose", self.choose, question=question, readings=numbered,
                                          config=with_grammar(None, _choice_grammar(len(shown))))
            step.output = numbered
            log.add(step)
            picked = 1 if prediction is None else _number(prediction.choice, len(shown))
            if picked is None:
                picked = 1  # no number: the nearest reading
        else:
            log.add(Step("graph", output=numbered))  # no LLM call: the readings, best first, for the record
        if not picked:
            return None
        reading, values, text = shown[picked - 1]
        missing = unrealized(reading, self._asks(question)) if "gate" in self.levers else []
        if missing:  # it reads another question's answer: the fallback answers
            log.add(Step("graph", code=text, output=f"not answered by a reading: it does not do {', '.join(missing)}"))
            return None
        log.add(Step("graph", code=text, output="\n".join(values[:MAX_VALUES])))
        return ", ".join(values[:MAX_VALUES]), text

    def _asks(self, question: str) -> dict[str, bool]:
        """What the question asks of its answer beyond a path's values (`unrealized`); nothing
        of a choice between offered answers, which a plain reading reads."""
        if alternatives(question):
            return {}
        return {"an average or a sum": arithmetic(question) is not None,
                "a first or a last": extreme(question) is not None,
                "the most or the fewest": most(question) is not None,
                "a bound on a count": count_bound(question) is not None and "counted" in self.levers}

    def _yes_no(self, question: str, log: StepLog) -> tuple[str, str] | None:
        """A yes/no question asks whether the things it states meet: a path of one start only
        reads what the graph has by construction, so only a reading that joins two starts in at
        most YES_NO_HOPS hops (a prize of 1903's laureates and the laureates whose gender is
        female) can say yes, by reading rows; where the question states two things (`is_stated`,
        bound from different words) and no such reading joins them, no. None where it states
        fewer: readings cannot say."""
        readings = self.readings(question)
        joined = [c for c in readings if c.join is not None and len(hops_of(c)) <= YES_NO_HOPS]
        if joined:
            result = self.graph.store.read(joined[0].cypher)
            log.add(Step("graph", output="\n".join(f"{i}. {c.words()}" for i, c in enumerate(joined[:self.k], 1))))
            log.add(Step("graph", code=result.text, output=f"{len(result.rows)} row(s)"))
            return ("yes" if result.rows else "no"), result.text
        starts = [s for s in dict.fromkeys(s for c in readings for s in starts_of_reading(c)) if is_stated(s)]
        if any(not (a.bound & b.bound) for i, a in enumerate(starts) for b in starts[i + 1:]):
            log.add(Step("graph", output="no reading joins " + " and ".join(s.said for s in starts)))
            return "no", ""
        return None

    def forward(self, question: str) -> dspy.Prediction:
        log = StepLog()
        found = self.answer(question, log)
        if found is not None:
            return log.prediction(found[0], None, cypher=found[1])
        if self.fallback is None:
            return log.prediction(None, RETRIEVAL_ERROR, cypher="")
        with listening(log.add):  # its steps join this log as they complete (told once)
            fallen = self.fallback(question=question)
        return log.prediction(fallen.answer or None, fallen.error_category, cypher=getattr(fallen, "cypher", ""))


def _others(values: list[str], named: set[str]) -> list[str]:
    """A list's values but the things the question names: "the co-authors of X on paper P" are
    P's authors but X. A value that is all a reading reads stays (X's own canonical version may
    be X)."""
    others = [v for v in values if v not in named]
    return others or values


def _one_first(kept: list[tuple]) -> list[tuple]:
    """Of a question that asks for one value (`asks_one`: "What year was P published?"), where
    the nearest reading reads several, a shorter reading of the same start, returning the same
    feature of the same type, that reads one value comes first: the many-valued one walked past
    the thing asked about (P -> author -> paper: ten years; P: one)."""
    if not kept or len(kept[0][1]) < 2:
        return kept
    first = kept[0][0]
    one = next((shown for shown in kept[1:] if len(shown[1]) == 1 and shown[0].start == first.start
                and shown[0].returns == first.returns and answer_types(shown[0]) == answer_types(first)
                and len(hops_of(shown[0])) < len(hops_of(first))), None)
    return kept if one is None else [one] + [shown for shown in kept if shown is not one]


def _states(c: Candidate, schema) -> bool:
    """Whether the reading's values could be the question's own words: a feature of its start,
    a feature other than the name of the nodes a path reaches, or anything of an end the join
    holds to be a node the question names ("P -> author and also X" reads X, or nothing)."""
    return not c.hops or c.returns != schema.node_types[c.end_type].text_feature \
        or (c.join is not None and not c.join[1] and c.join[0].is_named)


@functools.cache
def _choice_grammar(count: int) -> str:
    """The reply holds one number of 0..count (glm_dspy/grammar/reply.py)."""
    return reply_grammar(ChooseReading, field_rules={"choice": "number"},
                         rules=[f"number ::= {choice([str(i) for i in range(count + 1)])}"])


def _text(value) -> str:
    if isinstance(value, list):
        return ", ".join(map(str, value))  # a list value is the answer's items, as rows are
    return str(value)


def _number(text: str, count: int) -> int | None:
    """The reading chosen: 1..count, 0 for none of them, None where the reply names neither."""
    found = re.search(r"\d+", str(text))
    value = int(found.group(0)) if found else None
    return value if value is not None and 0 <= value <= count else None
