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
    -> scored (glm_dspy/modules/reading_rank.py): the embedder's cosine of the reading's words
    and the question, plus how the reading binds the question's words
    (glm_dspy/modules/reading_fit.py).
"""

from __future__ import annotations

import functools
from dataclasses import replace

from glm_dspy.graphs.cypher.absent import absent_readings
from glm_dspy.graphs.cypher.value_index import DATE as VALUE_DATE
from glm_dspy.graphs.cypher.value_index import LIST as VALUE_LIST
from glm_dspy.graphs.cypher.value_index import NUMBER as VALUE_NUMBER
from glm_dspy.graphs.cypher.value_index import TEXT as VALUE_TEXT
from glm_dspy.graphs.cypher.value_index import ValueIndex, stem
from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Start
from glm_dspy.graphs.cypher.candidates import joined_candidates, readings_of, same_value_candidates
from glm_dspy.graphs.cypher.compared import TEXT as COMPARED_TEXT
from glm_dspy.graphs.cypher.compared import compared_of
from glm_dspy.graphs.cypher.counted import counted_readings, ordered_counted
from glm_dspy.graphs.cypher.gaps import gap_readings
from glm_dspy.graphs.cypher.loops import MAX_LOOP_HOPS, loops_of
from glm_dspy.graphs.cypher.ranked_candidates import ranked_readings
from glm_dspy.graphs.cypher.value_index import NUMBER as NUMBER_VALUE
from glm_dspy.graphs.cypher.value_meets import MAX_MEET_HOPS, value_meet_readings
from glm_dspy.graphs.cypher.walk import inverse_relations, paths_from
from glm_dspy.modules.copyable_lock import CopyableLock
from glm_dspy.modules.embedding_cache import EmbeddingCache
from glm_dspy.modules.person_types import person_types
from glm_dspy.modules.question_facts import COUNT as COUNT_ASKED
from glm_dspy.modules.question_facts import NAME, YES_NO, asked, asked_words, asks_person, fits
from glm_dspy.modules.question_starts import question_starts
from glm_dspy.modules.question_values import question_values
from glm_dspy.modules.reading_fit import answer_types, is_stated
from glm_dspy.modules.reading_rank import rank
from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.readings import answer_type
from glm_dspy.readings.as_written import AsWritten, Restored
from glm_dspy.readings.question import read
from glm_dspy.readings.answer_type import Result, SchemaNouns
from glm_dspy.modules.schema_words import SchemaWords
from glm_dspy.modules.taught_words import taught_words

JOIN_HOPS = 2  # the longest path of a start that joins another's
YES_NO_HOPS = 2  # the longest join that states a yes/no question's fact (born in, won, among)
# each measured on and off (bench/readings.py --off); "yes/no", "gate" and "one" are Discriminate's
LEVERS = frozenset({"ranked", "likened", "stated", "yes/no", "meets", "union", "counted", "absent", "loops",
                    "compared", "persons", "meant", "order", "gate", "voice", "one", "repeated", "forms",
                    "detour", "which", "passive", "asked-end", "referred", "meet-order", "types",
                    "time-said", "absence", "gaps", "exists", "inverse", "unprobed", "roles",
                    "type-paths", "answer-type", "compute", "confidence", "as-written", "superlative",
                    "verb-voice"})


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
        self._taught: dict[str, tuple[str, bool]] | None = None  # `_taught_words`
        self._types: list | None = None  # `_type_starts`
        self._loops: dict[tuple, list] = {}  # (node type, comparison or None) -> its loops (`_looped`)
        self._everys: dict[tuple[str, int], list] = {}  # (node type, hops) -> the readings of every node of it
        self._typed_paths: dict[str, list] = {}  # node type -> the short paths its nodes have (`_type_paths`)
        self._persons: frozenset[str] | None = None  # `_person_types`

    def as_written(self, question: str) -> Restored:
        """The question with its names' case and one slip of their spelling restored from the
        graph's names (glm_dspy/readings/as_written.py); as it is with lever "as-written" off."""
        if "as-written" not in self.levers:
            return Restored(question, ())
        self._build()
        return self._as_written.restore(question)

    @functools.cached_property
    def _as_written(self) -> AsWritten:
        return AsWritten.of(self._values)

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
        ops = read(question).operators
        if ops.says_same:
            found += [c for start in starts if start.is_named for c in same_value_candidates(schema, start)]
        # a yes/no question's join is its meaning, read or not: the nearest says yes or no
        yes_no = "unprobed" in self.levers and asked(question) == YES_NO
        unprobed = {"probe": False, "max_hops": YES_NO_HOPS} if yes_no else {}
        for i, first in enumerate(starts):
            for second in starts[i + 1:]:
                short = [self._join_paths(s, paths[s], yes_no) for s in (first, second)]
                found += joined_candidates(store, schema, first, short[0], second, short[1], **unprobed)
        if "meets" in self.levers and ops.meets_in_time:
            named = [(s, paths[s]) for s in starts if s.is_named]
            targets = [(s, paths[s]) for s in starts if not s.is_named and is_stated(s)] + self._type_starts()
            found += value_meet_readings(schema, self._timed, named, targets, readings_of)
        last, most_of = ops.extreme, ops.most
        read_as = read(question)
        by_number = read_as.ranked if "superlative" in self.levers else None
        # "the biggest city": a number of a city, where the noun it ranks names a type
        ranked_types = (self.schema_nouns.types.get(by_number.noun or "")
                        or self.schema_nouns.types.get(read_as.noun or "")) if by_number else None
        if by_number is not None and (by_number.adjective or self._numbered(by_number.said)):
            most_of = None  # "the most populous", "the least area": a number's order, not the value most share
        if by_number is not None and ranked_types and not any(s.is_named for s in starts):
            # "Which company has the fewest employees?": every node of the type it ranks
            found += [c for t in sorted(ranked_types) for c in self.every(t, 0)]
        if (last is not None or most_of is not None or by_number is not None) and "ranked" in self.levers:
            found += ranked_readings(schema, self._values, found, descending=last, most=most_of, by_number=by_number,
                                     key_types=ranked_types)
        kind, bound = asked(question), ops.count_bound
        noun = read(question).noun
        if kind == NAME and noun in self.schema_nouns.features and noun not in self.schema_nouns.types:
            kind = None  # "Which country code do I dial?": a feature's value (calling_codes), not a node's name
        said = {stem(w) for w in question_values(question).words}
        thing = self._thing(question)
        if bound is not None and "counted" in self.levers:
            counted = counted_readings(schema, self._values, found + self._every(thing), bound, kind == COUNT_ASKED)
            if last is not None and kind != COUNT_ASKED:  # "the last to win it alone": ordered among those counted
                counted += ordered_counted(found + counted)
            found += counted
        if ops.negated and "absent" in self.levers:
            found += absent_readings(schema, self._values, found + self._every(thing), kind == COUNT_ASKED)
        if ops.refers_back and "loops" in self.levers:
            found += self._looped(found + self._every(thing), thing)
        if (op := ops.compared) is not None and "compared" in self.levers:
            found += self._looped(found + self._every(thing), thing, op)
        if ops.equates and "compared" in self.levers:  # "the same first name as their co-laureate"
            found += self._looped(found + self._every(thing), thing, "=")
        if ops.negated and "gaps" in self.levers:  # "between 1901 and 2022 ... not awarded": years
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

    def _numbered(self, noun: str) -> bool:
        """Whether the noun names a feature that holds numbers ("area": area_km2)."""
        features = self.schema_nouns.features.get(noun, frozenset())
        return any(self._values.kind(t, f) == NUMBER_VALUE for t, node in self.graph.schema.node_types.items()
                   for f in node.features if f in features)

    def _join_paths(self, start: Start, paths: list, yes_no: bool) -> list:
        """The paths by which `start` may join another start: its own of at most JOIN_HOPS hops;
        of a yes/no question's named start, those nodes of its type have (lever "type-paths"):
        what the question states may be false ("Did Y mentor X?" where X mentored Y), and a
        path the node lacks reads nothing, which says no."""
        if yes_no and start.is_named and "type-paths" in self.levers:
            return self._type_paths(start.type_name)
        return [p for p in paths if len(p) <= JOIN_HOPS]

    def _type_paths(self, type_name: str) -> list:
        """The paths of at most JOIN_HOPS hops that nodes of a type have (read once per type)."""
        if type_name not in self._typed_paths:
            self._typed_paths[type_name] = paths_from(self.graph.store, Start(type_name, (), type_name),
                                                      max_hops=JOIN_HOPS, inverses=self._inverses)
        return self._typed_paths[type_name]

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

    def value_readings(self, question: str, kinds: frozenset[str], names_in: tuple[str, ...] = ()) -> list[Candidate]:
        """The paths of each thing the question names (a node it names, or a name it states:
        "laureate whose name is X"), one by one (not several names as one start, one start of
        names said alike; the names in `names_in` where given, each text read on its own: the two
        things a question offers, "The Matrix or The Matrix Reloaded"), whose values are of `kinds`
        (answer_type's), best first: what a program that
        computes with values reads (glm_dspy/readings/compute.py)."""
        self._build()
        store, schema = self.graph.store, self.graph.schema
        starts = []  # a thing the question names, or a name it states as a value; one start a thing
        found_in = [start for text in (names_in or (question,))
                    for start in question_starts(self.graph, self._values, text, self._embed, union=False,
                                                 likened=False, absence=False)]
        for s in found_in:
            names = s.is_named or len(s.conditions) == 1 and s.conditions[0].op == "=" \
                and self._result_kind(s.type_name, s.conditions[0].feature) == answer_type.NAMES
            if names and not any(_same_thing(s, other) for other in starts):
                starts.append(s)
        found = [c for start in starts
                 for c in readings_of(schema, start, paths_from(store, start, max_hops=self.max_hops,
                                                                inverses=self._inverses))]
        return self.rank(question, [c for c in found if self.result(c).kind in kinds])

    def result(self, c: Candidate) -> Result:
        """What a reading's values are (glm_dspy/readings/answer_type.py): a count, a date, a
        year, a number, a type's names or another text, with the type, feature and last relation."""
        self._build()
        relation = c.hops[-1].relation if c.hops else None
        if c.returns == COUNT:
            return Result(answer_type.COUNT, answer_types(c)[0], None, relation)
        if c.group is not None:
            key = c.group.key
            if c.group.part is not None:  # a date's year, month or decade, read as such
                kind = {"year": answer_type.YEAR, "month": answer_type.MONTH_OF,
                        "decade": answer_type.DECADE_OF}.get(c.group.part, answer_type.TEXT)
            else:
                kind = self._result_kind(key.type_name, key.feature)
            return Result(kind, key.type_name, key.feature, None)  # the key's values: no relation reaches them last
        type_name = answer_types(c)[0]
        return Result(self._result_kind(type_name, c.returns), type_name, c.returns, relation)

    def _result_kind(self, type_name: str, feature: str) -> str:
        kind = self._values.kind(type_name, feature)
        if kind == VALUE_DATE:
            return answer_type.DATE
        if kind == VALUE_NUMBER:
            return answer_type.YEAR if (type_name, feature) in self._values.years else answer_type.NUMBER
        if kind == VALUE_LIST:
            return answer_type.LIST
        return answer_type.NAMES if feature == self.graph.schema.node_types[type_name].text_feature \
            else answer_type.TEXT

    @functools.cached_property
    def schema_nouns(self) -> SchemaNouns:
        """The schema's names by the lemmas of their words, inverse names too (read once)."""
        return SchemaNouns.of(self.graph.schema, self._inverse_names())

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
        """All candidates, best first: by meaning plus how the reading binds the question's words
        (glm_dspy/modules/reading_rank.py)."""
        return self.rank(question, self.candidates(question))

    def rank(self, question: str, found: list[Candidate], scores_out: list[float] | None = None) -> list[Candidate]:
        """`found` (readings of the question's starts), best first, as `readings` ranks them
        (glm_dspy/modules/reading_rank.py); each one's score appended to `scores_out` where given."""
        self._build()
        return rank(question, found, embed=self._embed, vocabulary=self._schema_words, taught=self._taught,
                    levers=self.levers, thing=self._thing(question), persons=self._person_types(question),
                    timed=self._timed, scores_out=scores_out)

    def scored(self, question: str) -> list[tuple[Candidate, float]]:
        """Every reading of the question with its score, best first."""
        scores: list[float] = []
        ranked = self.rank(question, self.candidates(question), scores)
        return list(zip(ranked, scores))

    @functools.cached_property
    def _schema_words(self) -> SchemaWords:
        self._build()
        return SchemaWords(self.graph.schema, self._timed, self._inverses)

    def _inverse_names(self) -> dict[str, str]:
        """relation -> its name the other way (glm_dspy/modules/schema_words.py)."""
        return self._schema_words.inverse_names


def _same_thing(a: Start, b: Start) -> bool:
    """Whether two starts of names are one thing: one node; one value of one feature; else a
    name said again in other parts (a family name, a full name: `Start.said_alike`). Two names
    of one feature are two things, though one holds the other's words ("The Matrix", "The Matrix
    Reloaded")."""
    if a.is_named and b.is_named:
        return a.node_id == b.node_id
    if not a.is_named and not b.is_named and a.type_name == b.type_name \
            and a.conditions[0].feature == b.conditions[0].feature:
        return str(a.conditions[0].value).lower() == str(b.conditions[0].value).lower()
    return a.said_alike(b)
