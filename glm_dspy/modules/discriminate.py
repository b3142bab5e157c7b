"""Don't generate, discriminate (Pangu, Gu, Deng and Su, ACL 2023): the graph proposes the
readings of a question; the best fitting one answers it (or the model picks one).

    question -> its starts: the nodes it names (RetrieveNode, the exact name) and the nodes met
    by the values it says (graphs/cypher/anchors.py: "the 1913 physics laureate" is a prize of
    year 1913 and category Physics)
    -> every path of up to 3 hops those starts really have, the nodes two starts' paths both
    reach, and (where the question says "same") the nodes that share a value with a named one
    (graphs/cypher/candidates.py), with what the end may return
    -> typed: only those whose values can be what the question asks (question_facts.asked: a
    count, a date, a name; each feature's kind read from the graph); who or which thing asks
    for the thing itself, its name, not another of its features unless the question says that
    feature's words ("the family name of ..."); "which <type>", where a word names one of the
    graph's node types, is answered by nodes of that type only
    -> scored: the embedder's cosine of the reading's words and the question, plus how the
    reading binds the question's words (`_path_fit`, `_returns_fit`: hops cost, relations and
    features the question says, words its starts bind, the type asked for)
    -> run best first (gated, as every query) until `k` read rows that are neither nothing nor
    an echo of the question -> the chooser: NEAREST, the best (no call), or MODEL, the model
    picks one by its number, shown each reading's first values (ChooseReading, one call,
    decoded under a grammar of the numbers) -> its values are the answer.

A yes/no question is no reading; neither is a question with no start, nor one whose readings
read nothing, nor the model's 0 ("none of these"). Those go to `fallback` (a module taking
`question`); in GLM, to Algorithm 1 (`GLM(readings=...)`, glm_dspy/modules/glm.py).
Measured on and off in docs/benchmarks.md (issue 31): with the 0.5B and the 1.5B model,
choosing by number did worse than the best fitting reading.
"""

from __future__ import annotations

import functools
import re
from collections import Counter, OrderedDict

import dspy
import numpy as np

from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.grammar.snippet import choice
from glm_dspy.lm.structured import with_grammar
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.copyable_lock import CopyableLock
from glm_dspy.modules.question_facts import (NAME, YES_NO, alternatives, asked, asked_words, compares, fits,
                                             question_values, word_stem)
from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.modules.text2cypher.examples import default_examples_path, read_examples
from glm_dspy.signatures import ChooseReading
from glm_dspy.steps import RETRIEVAL_ERROR, Step, StepLog
from graphs.cypher.anchors import FUNCTION_WORDS, ValueIndex, anchors, folded, starts_of, stem
from graphs.cypher.candidates import (COUNT, Candidate, Start, inverse_relations, joined_candidates, paths_from,
                                      readings_of, same_value_candidates)
from graphs.triples import INVERSE_PREFIX

DEFAULT_K = 8  # readings shown to the model
PATHS = 24  # paths whose readings are ranked one by one
HOP_COST = 0.06  # of cosine, per hop: of two readings alike in meaning, the shorter first
THING_BONUS = 0.15  # of cosine, to a reading that ends at the node type the question asks for by name
COVER_BONUS = 0.05  # of cosine, per word of the question a reading's starts bind
UNION_BONUS = 0.02  # of cosine, to a last hop read into all the types it reaches (a mentor, laureate or not)
RELATION_BONUS = 0.06  # of cosine, per hop whose relation the question says
FEATURE_BONUS = 0.05  # of cosine, to a reading that returns a feature the question names
UNSAID_COST = 0.06  # of cosine, per word of the question's that names a schema relation, type or feature the reading leaves unbound
MAX_VALUES = 20  # values joined into an answer
SHOWN_VALUES = 3  # values of each reading the model is shown
MAX_TRIED = 40  # readings run to find `k` that read rows
JOIN_HOPS = 2  # the longest path of a start that joins another's
EMBEDDING_CACHE = 20_000  # reading words -> vector
NONE = "none of these: the question asks something else"
MODEL, NEAREST = "model", "nearest"  # who chooses the reading


class Discriminate(dspy.Module):
    def __init__(self, graph, *, fallback=None, k: int = DEFAULT_K, max_hops: int = 3, chooser: str = NEAREST,
                 relation_words: RelationWords | None = None):
        """`chooser`: NEAREST (no call: the best fitting reading that reads rows) or MODEL (one
        ChooseReading call picks among the `k` readings shown). `relation_words`: the words the
        graph's bank teaches for its relations (glm_dspy/modules/relation_words.py; Text2Cypher's
        own, where GLM has one); None: learned from the graph's bank on first use."""
        super().__init__()
        self._relation_words = relation_words
        assert 1 <= k <= 9 and max_hops >= 1 and chooser in (MODEL, NEAREST), (k, max_hops, chooser)
        self.graph, self.fallback, self.k, self.max_hops, self.chooser = graph, fallback, k, max_hops, chooser
        self.choose = dspy.Predict(ChooseReading, max_tokens=24)
        self._inverses: set | None = None
        self._values: ValueIndex | None = None
        self._built = CopyableLock()  # the values, inverses and taught words (`_build`) are read once, by one thread
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._words: set[str] | None = None  # `_schema_words`
        self._taught: dict[str, tuple[str, bool]] | None = None  # `_taught_words`

    def starts(self, question: str) -> list[Start]:
        """The nodes the question names, then those the values it says meet."""
        from glm_dspy.modules.text2cypher import named_nodes

        store = self.graph.store
        self._build()
        starts, bound = [], set()
        for node_id in named_nodes(self.graph, question):
            type_name = store.type_of(node_id)
            feature = self.graph.schema.node_types[type_name].text_feature if type_name else None
            name = self.graph.retriever.label(node_id)
            if feature and name:
                starts.append(Start.named(type_name, feature, name, node_id))
                bound.add(folded(name))
        found = anchors(self._values, store, question_values(question), exclude=bound)
        starts += [Start.anchored(type_name, conditions, words) for type_name, conditions, words in starts_of(found, store)]
        return starts

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
        kind = asked(question)
        said = {stem(w) for w in question_values(question).words}
        thing = self._thing(question)
        things = {thing} if thing is not None else set()
        return [c for c in found
                if fits(kind, self._values.kind(c.end_type, c.returns), c.returns == COUNT)
                and (kind != NAME or c.returns == schema.node_types[c.end_type].text_feature
                     or all(stem(w) in said for w in c.returns.split("_")))
                and (not things or things & set(_end_labels(c)))]

    def _build(self) -> None:
        with self._built:
            if self._values is None:
                self._values = ValueIndex.build(self.graph.store, self.graph.schema)
            if self._inverses is None:
                self._inverses = inverse_relations(self.graph.store, self.graph.schema)
            if self._taught is None:
                self._taught = self._taught_words()

    def _mentions(self, question: str) -> Counter:
        """How often the question says each relation in words the bank teaches for it (a run
        of words taught for one relation is one mention: "other half")."""
        found: Counter = Counter()
        previous = None
        for word in re.findall(r"[a-z]+", question.lower()):
            relation = self._taught.get(word)
            if relation is not None and relation != previous:
                found[relation] += 1
            previous = relation
        return found

    def _taught_words(self) -> dict[str, tuple[str, bool]]:
        """word -> the (relation, outgoing) the graph's bank teaches it for ("darling" ->
        spouse), where the bank shows its questions spell their paths (`RelationWords.usable`);
        a triples graph's inverse relation read as its relation backwards, as readings take it."""
        words = self._relation_words
        if words is None:
            path = default_examples_path(self.graph)
            examples = read_examples(path) if path is not None else []
            words = RelationWords.learn(examples, self.graph.schema.relations) if examples else None
        if words is None or not words.usable:
            return {}
        return {word: _forwards(relation, outgoing, self.graph.schema.relations)
                for word, (relation, outgoing) in words.words.items()}

    def _thing(self, question: str) -> str | None:
        """The node type "which/what <words>" names: the first of those words that is a type's
        name, plurals aside ("Which Nobel laureate ..." asks for a laureate); None if none is."""
        types = {stem(t): t for t in self.graph.schema.node_types}
        return next((types[stem(w)] for w in asked_words(question) if stem(w) in types), None)

    def readings(self, question: str) -> list[Candidate]:
        """All candidates, best first: by meaning (the embedder's cosine of the reading's words and
        the question) plus how the reading binds the question's words (`_path_fit`,
        `_returns_fit`). The PATHS paths
        that fit best are kept first (by their words up to the end's type), then every reading of
        those is scored, so a question's hundreds of readings cost a few hundred short
        embeddings, most of them cached."""
        found = self.candidates(question)
        if not found:
            return []
        asked_vector = self._embed([question])[0]
        said = Counter(word_stem(w) for w in re.findall(r"[a-z]+", question.lower()))
        thing = self._thing(question)
        by_path: dict[str, Candidate] = {}
        for c in found:
            by_path.setdefault(c.path_words(), c)
        paths = list(by_path)
        taught = self._mentions(question)
        path_scores = self._embed(paths) @ asked_vector + np.array([_path_fit(by_path[p], said, thing, taught)
                                                                    for p in paths])
        near = {paths[i] for i in np.argsort(-path_scores, kind="stable")[:PATHS]}
        found = [c for c in found if c.path_words() in near]
        schema_words = self._schema_words() & set(said) - {word_stem(w) for w in self._taught}
        scores = self._embed([c.words() for c in found]) @ asked_vector \
            + np.array([_path_fit(c, said, thing, taught) + _returns_fit(c, said)
                        - UNSAID_COST * _unsaid(c, schema_words, taught) for c in found])
        return [found[i] for i in np.argsort(-scores, kind="stable")]

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

    def _embed(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            for text, vector in zip(missing, self.graph.retriever.node_index.embedder.encode(missing)):
                self._vectors[text] = vector
            while len(self._vectors) > EMBEDDING_CACHE:
                self._vectors.popitem(last=False)
        return np.stack([self._vectors[t] for t in texts])

    def shown(self, question: str) -> list[tuple[Candidate, list[str], str]]:
        """The first `k` readings (nearest first) that read rows: each with its values and the
        text that ran. A reading that reads back only what the question states (the full name
        it gives, its start's own name) is an echo and is left out; the names of nodes a path
        reaches are what the graph holds, even where the question says them. Of a question that
        offers answers to choose from ("... a physics or a chemistry prize?"), the best reading
        that reads one of them comes first."""
        kept, seen = [], set()
        said = set(folded(question).split())  # a reading that reads back only what the question says is an echo
        offered = {stem(word) for word in alternatives(question)}
        chosen = []  # of a choice between offered answers, the readings that read one of them
        for reading in self.readings(question)[:MAX_TRIED]:
            result = self.graph.store.read(reading.cypher)
            values = list(dict.fromkeys(_text(next(iter(row.values()))) for row in result.rows
                                        if next(iter(row.values())) not in (None, [], "")))
            if offered and values and {stem(v) for v in values} <= offered:
                chosen.append((reading, values, result.text))
            if values and not (reading.returns == COUNT and values == ["0"]) and tuple(values) not in seen \
                    and not (_states(reading, self.graph.schema) and all(set(folded(v).split()) <= said for v in values)):
                seen.add(tuple(values))
                kept.append((reading, values, result.text))
            if len(kept) == self.k:
                break
        return chosen[:1] + [shown for shown in kept if shown[1] != (chosen[0][1] if chosen else None)][: self.k - bool(chosen)]

    def answer(self, question: str, log: StepLog) -> tuple[str, str] | None:
        """(answer, the query that read it), its steps added to `log`; None where no reading
        answers: a yes/no question (no reading is one), no start, no reading that reads rows, or
        the model's 0."""
        if self.graph.retriever.node_index is None or asked(question) == YES_NO:
            return None
        shown = self.shown(question)
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
        log.add(Step("graph", code=text, output="\n".join(values[:MAX_VALUES])))
        return ", ".join(values[:MAX_VALUES]), text

    def forward(self, question: str) -> dspy.Prediction:
        log = StepLog()
        found = self.answer(question, log)
        if found is not None:
            return log.prediction(found[0], None, cypher=found[1])
        if self.fallback is None:
            return log.prediction(None, RETRIEVAL_ERROR, cypher="")
        fallen = self.fallback(question=question)
        for step in fallen.steps:
            log.add(Step(**step))
        return log.prediction(fallen.answer or None, fallen.error_category, cypher=getattr(fallen, "cypher", ""))


def _path_fit(c: Candidate, said: Counter, thing: str | None, taught: Counter) -> float:
    """How a reading's path binds the question's words, in cosine units: each hop costs HOP_COST
    (of two readings alike in meaning, the shorter first) and each hop taken forwards whose
    relation the question says (as often as it says it; "mentored" says mentor) earns
    RELATION_BONUS back and more (a hop taken backwards is named for where it comes from), as
    does each hop the question says in words the bank teaches (`taught`: "darling" -> spouse); the
    question's words its starts bind earn COVER_BONUS each; an end of the type the question asks
    for by name earns THING_BONUS; an end read into every type its relation reaches earns UNION_BONUS."""
    hops = _hops(c)
    relations = Counter(word_stem(word) for hop in hops if hop.outgoing for word in hop.relation.split("_"))
    relation_words = sum(min(n, said[word]) for word, n in relations.items())
    taken = Counter((hop.relation, hop.outgoing) for hop in hops)
    relation_words += sum(min(n, taught[relation]) for relation, n in taken.items())
    end_types = {stem(t) for t in _end_labels(c)}
    asked_type = thing is not None and stem(thing) in end_types
    return (- HOP_COST * len(hops) + RELATION_BONUS * relation_words + COVER_BONUS * len(c.bound)
            + THING_BONUS * asked_type + UNION_BONUS * bool(c.hops and c.hops[-1].also))


def _hops(c: Candidate) -> tuple:
    return c.hops + (c.join[1] if c.join else ())


def _forwards(relation: str, outgoing: bool, relations) -> tuple[str, bool]:
    """A triples graph's `inv_r` taken forwards is `r` taken backwards: readings never take the
    inverse (`inverse_relations`)."""
    if relation.startswith(INVERSE_PREFIX) and relation[len(INVERSE_PREFIX):] in relations:
        return relation[len(INVERSE_PREFIX):], not outgoing
    return relation, outgoing


def _states(c: Candidate, schema) -> bool:
    """Whether the reading's values could be the question's own words: a feature of its start,
    or a feature other than the name of the nodes a path reaches."""
    return not c.hops or c.returns != schema.node_types[c.end_type].text_feature


def _unsaid(c: Candidate, asked: set[str], taught: Counter) -> int:
    """How many of the question's schema words the reading leaves unbound: of `asked` (stems of
    the words of relation, type and feature names the question says, but for those its starts
    were bound from), those said neither by its relations, nor its node types, nor what it
    returns; of `taught` (how often the question says each relation in the bank's words), the
    mentions beyond the times it takes that relation."""
    hops = _hops(c)
    starts = (c.start, c.join[0]) if c.join else (c.start,)
    names = [hop.relation for hop in hops] + [t for hop in hops for t in hop.labels] + [c.returns] \
        + [s.type_name for s in starts] + [cond.feature for s in starts for cond in s.conditions]
    used = {word_stem(w) for name in names for w in name.split("_")}
    bound = {word_stem(w) for s in starts for w in s.bound}
    taken = Counter((hop.relation, hop.outgoing) for hop in hops)
    return len(asked - used - bound) + sum(max(0, n - taken[relation]) for relation, n in taught.items())


def _returns_fit(c: Candidate, said: Counter) -> float:
    """FEATURE_BONUS to a reading that returns a feature the question names ("in which year":
    the prize's `year`, not its `date_awarded`)."""
    return FEATURE_BONUS * (c.returns != COUNT and all(said[word_stem(w)] for w in c.returns.split("_")))


def _end_labels(candidate: Candidate) -> tuple[str, ...]:
    return candidate.hops[-1].labels if candidate.hops else (candidate.start.type_name,)


@functools.cache
def _choice_grammar(count: int) -> str:
    """The reply holds one number of 0..count (glm_dspy/grammar/reply.py)."""
    return reply_grammar(ChooseReading, field_rules={"choice": "number"},
                         rules=[f"number ::= {choice([str(i) for i in range(count + 1)])}"])


def _text(value) -> str:
    if isinstance(value, list):
        return "; ".join(map(str, value))
    return str(value)


def _number(text: str, count: int) -> int | None:
    """The reading chosen: 1..count, 0 for none of them, None where the reply names neither."""
    found = re.search(r"\d+", str(text))
    value = int(found.group(0)) if found else None
    return value if value is not None and 0 <= value <= count else None
