"""Don't generate, discriminate (Pangu, Gu, Deng and Su, ACL 2023): the graph proposes the
readings of a question; the best fitting one answers it (or the model picks one).

    question -> its readings, well-typed and best first (glm_dspy/modules/readings.py)
    -> run best first (gated, as every query) until `k` read rows that are neither nothing nor
    an echo of the question; of a question that asks one value of a named thing, a shorter
    reading that reads one comes before a longer one that reads several (`_one_first`)
    -> the chooser: NEAREST, the best (no call), or MODEL, the model picks one by its number,
    shown each reading's first values (ChooseReading, one call, decoded under a grammar of the
    numbers) -> its values are the answer, but the things the question names ("the co-authors
    of X on P": P's authors but X); a reading that leaves out what the question asks of its
    answer (an average or a sum, which no reading computes; a first or a last it does not order
    by; the most it does not group by; a bounded count: `reading_fit.unrealized`) answers
    another question, so the fallback answers (lever "gate").

Before a reading runs, its values must be what the question asks (glm_dspy/readings/answer_type.py:
a "who" a type of people, a year a date's year); an age, a span of years or which of two is
computed (glm_dspy/readings/compute.py), never read; and the answer comes with how sure it is
(`judge`, glm_dspy/readings/confidence.py): `answer` gives only a sure one.

A yes/no question asks whether the two things it states meet (`_yes_no`: a short reading joins
them; a named thing and a stated value of its type, with no hop: "Is X still alive?"), or, of
one named thing, whether it has what "anyone" or "anything" asks for (`_exists`). A question
that states one thing only, a question with no start or whose readings read
nothing, and the model's 0 ("none of these") are not answered here. Those go to `fallback` (a
module taking `question`); in GLM, to Algorithm 1 (`GLM(readings=...)`, glm_dspy/modules/glm.py).
NEAREST is the default because choosing by number did worse than the best fitting reading
(docs/benchmarks.md, "Measured and left out": 10-11 right against 13-14, at 5f7b07f).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

import dspy

from glm_dspy.grammar.reply import reply_grammar
from glm_dspy.grammar.ebnf import choice
from glm_dspy.lm.structured import with_grammar
from glm_dspy.modules.calls import call_agent
from glm_dspy.modules.confident_choice import ConfidentChoice
from glm_dspy.modules.question_facts import YES_NO, alternatives, asked, asks_one
from glm_dspy.readings.existential import PERSON, existential
from glm_dspy.modules.reading_fit import answer_types, hops_of, is_stated, starts_of_reading, unrealized
from glm_dspy.modules.readings import LEVERS, YES_NO_HOPS, Readings
from glm_dspy.modules.relation_words import RelationWords
from glm_dspy.readings.answer_type import COUNT as COUNT_KIND
from glm_dspy.readings.answer_type import DATE, NUMBER, YEAR, fits, project, unknown_noun
from glm_dspy.readings.compute import Program
from glm_dspy.readings.confidence import Confidence, features
from glm_dspy.modules.reading_judge import ReadingJudge, best_judged
from glm_dspy.readings.pick_confidence import PICK, pick_threshold, picks_can_be_sure
from glm_dspy.readings.question import LARGER, SMALLER, read
from glm_dspy.signatures import ChooseReading
from glm_dspy.runs.steps import NOT_SURE, RETRIEVAL_ERROR, Step, StepLog, listening
from glm_dspy.graphs.cypher.value_index import folded, stem
from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Start

DEFAULT_K = 8  # readings shown to the model
MAX_VALUES = 20  # values joined into an answer
SHOWN_VALUES = 3  # values of each reading the model is shown
MAX_TRIED = 40  # readings run to find `k` that read rows
NONE = "none of these: the question asks something else"
MODEL, NEAREST = "model", "nearest"  # who chooses the reading


class Discriminate(dspy.Module):
    def __init__(self, graph, *, fallback=None, k: int = DEFAULT_K, max_hops: int = 3, chooser: str = NEAREST,
                 relation_words: RelationWords | None = None, levers: frozenset[str] = LEVERS,
                 confidence: "Confidence | None | str" = "default"):
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
        reading takes the relation leaves the rest unsaid ("the mentor of the mentor of ..."), and
        a relation taken more often than said (but there and back after "same") is a hop unsaid,
        "forms": a word says a schema name it derives by its form ("founded": founder; "home":
        hometown; glm_dspy/modules/meant_words.py `derives`), "detour": a reading of a named
        thing that leaves its type and comes back to it through hops no word says (P -> author
        -> paper for "the keywords of P") costs as a word left unsaid (`reading_fit.unsaid_detour`),
        "which": "which <type>" is answered by those nodes' names, not another feature the
        question says ("which institutions in the city ...": not the city), "passive": a relation
        said in the passive with its agent after "by" ("trained by the man who ...") is said by a
        hop backwards over it, "asked-end": the words naming the type of the thing asked say the
        path's end, not the place of a hop on the way (word_order.said_at), "referred": a thing named again
        ("X's mentor ... the mentor") is no further hop (question_facts.referred_words), and
        "meet-order": of a reading that meets a named thing's time, that time must be said after
        its name ("born in the year X won": X's prize; `reading_fit.meets_unsaid`), "types": a
        node type the question says twice wants two nodes of it ("laureates ... had a Nobel
        laureate as a mentor"; `reading_fit.fewer_types`), and "time-said": a start bound on a
        time needs the words naming which time ("since 2020 ... when they won": the prize's year,
        not a death date; `reading_fit.bound_time_unsaid`), "absence": a state or a negation
        that says a thing lacks (or holds) a value ("still alive", "with no death date",
        "deceased") starts at the nodes that lack (hold) the feature recording it
        (question_starts.absent_values), "gaps": where the question negates and bounds a year by a
        range ("between 1901 and 2022 ... not awarded"), the years of the range that no path
        holds (graphs/cypher/gaps.py), and "exists": a yes/no question of one named thing that
        asks whether it has "anyone" or "anything" ("Did X share the prize with anyone?") is
        whether it has the best fitting path of its type's (`_exists`), "inverse": a hop
        backwards over a relation the graph also stores the other way under a name of its own
        is said by that name ("students": backwards over mentor; `Readings._inverse_names`),
        "unprobed": a yes/no question's joins are not filtered by a probe (the nearest says yes
        or no), "type-paths": its named starts join by the paths nodes of their type have, not
        only their own (a fact stated the wrong way round reads nothing: no), and "roles": a join
        of two starts that takes one in the role the question does not give it over a relation
        named by a noun ("Did X mentor Y?" is Y's mentor X) goes against the way
        (glm_dspy/modules/join_roles.py)."""
        super().__init__()
        assert 1 <= k <= 9 and chooser in (MODEL, NEAREST), (k, chooser)
        self.found = Readings(graph, max_hops=max_hops, relation_words=relation_words, levers=levers)
        self.levers = self.found.levers
        self.graph, self.fallback, self.k, self.chooser = graph, fallback, k, chooser
        self.choose = ConfidentChoice(ChooseReading, "choice", max_tokens=24)
        self.judge_each = ReadingJudge()  # the other chooser: one yes/no a reading
        # how sure the best reading is (glm_dspy/readings/confidence.py); lever "confidence" off: always sure
        self.confidence = (Confidence.load() if confidence == "default" else confidence) \
            if "confidence" in self.levers else None

    def as_written(self, question: str, log: StepLog | None = None) -> str:
        """The question with its names as the graph writes them (case; one slip of spelling:
        glm_dspy/readings/as_written.py), what was restored said in `log`. GLM reads every
        question so before its readings and agents do."""
        restored = self.found.as_written(question)
        if restored and log is not None:
            log.add(Step("graph", output="read as written in the graph: "
                                         + "; ".join(f"{said!r} as {name!r}" for said, name in restored.changes)))
        return restored.text

    def starts(self, question: str) -> list[Start]:
        """The nodes the question names, then those the values it says meet."""
        return self.found.starts(question)

    def candidates(self, question: str) -> list[Candidate]:
        """Every reading of the question whose values can answer it (unranked)."""
        return self.found.candidates(question)

    def readings(self, question: str) -> list[Candidate]:
        """Every reading of the question, best first (glm_dspy/modules/readings.py)."""
        return self.found.readings(question)

    def shown(self, question: str) -> list[tuple[Candidate, list[str], str]]:
        """The first `k` readings (nearest first) that read rows, each with its values and the
        text that ran (`_shown`)."""
        return self._shown(question)[0]

    def _shown(self, question: str) -> tuple[list[tuple[Candidate, list[str], str]], dict[int, tuple[float, int]], float]:
        """The first `k` readings (nearest first) that read rows: each with its values and the
        text that ran. A reading that reads back only what the question states (the full name
        it gives, its start's own name) is an echo and is left out; the names of nodes a path
        reaches are what the graph holds, even where the question says them. Of a question that
        offers answers to choose from ("... a physics or a chemistry prize?"), the best reading
        that reads one of them comes first; elsewhere a reading's values leave out the things the
        question names (`_others`). Also each shown reading's (score, readings tried before it),
        by its id, and the score of the best fitting reading of all."""
        kept, seen, scores = [], set(), {}
        read_as = read(question)
        typed = "answer-type" in self.levers
        persons = self.found.person_types() if typed else frozenset()
        said = set(folded(question).split())  # a reading that reads back only what the question says is an echo
        offered = {stem(word) for word in alternatives(question)}
        chosen = []  # of a choice between offered answers, the readings that read one of them
        scored = self.found.scored(question)[:MAX_TRIED]
        readings = [c for c, _ in scored]
        named = {(s.type_name, s.said) for c in readings for s in starts_of_reading(c) if s.is_named}
        for tried, (reading, score) in enumerate(scored):
            scores[id(reading)] = (score, tried)
            is_ = self.found.result(reading) if typed else None
            if typed and not offered and not fits(read_as, is_, persons=persons, nouns=self.found.schema_nouns):
                continue  # its values cannot be what the question asks (glm_dspy/readings/answer_type.py)
            values, text = self._values(reading)  # none where Kuzu could not run it (buffer pool full, past its time)
            if typed:
                values = project(read_as, is_, values)  # a date's year where a year is asked
            if offered and values and {stem(v) for v in values} <= offered:
                chosen.append((reading, values, text))
            elif not offered:
                values = _others(values, {name for type_name, name in named if type_name in answer_types(reading)})
            answer = _answer_of(reading, values)
            if values and not (reading.returns == COUNT and values == ["0"]) and answer not in seen \
                    and not (_states(reading, self.graph.schema) and all(set(folded(v).split()) <= said for v in values)):
                seen.add(answer)
                kept.append((reading, values, text))
            if len(kept) == self.k:
                break
        if "one" in self.levers and asks_one(question):
            kept = _one_first(kept)
        first = _answer_of(*chosen[0][:2]) if chosen else None
        shown = chosen[:1] + [shown for shown in kept if _answer_of(*shown[:2]) != first][: self.k - bool(chosen)]
        return shown, scores, scored[0][1] if scored else 0.0

    def answer(self, question: str, log: StepLog) -> tuple[str, str] | None:
        """(answer, the query that read it), its steps added to `log`; None where no reading
        answers (`judge`, which also says how sure the answer is: GLM routes by it)."""
        judged = self.judge(question, log)
        return (judged.answer, judged.cypher) if judged is not None else None

    def judge(self, question: str, log: StepLog) -> "Judgement | None":
        """The best reading's answer and how sure it is, its steps added to `log`; None where no
        reading answers: a yes/no question (no reading is one), no start, no reading that reads
        rows, a graph Kuzu could not read (its buffer pool full, past a query's time), or the
        model's 0. A yes/no answer and a computed one are sure: their readings state the facts."""
        if self.graph.retriever.node_index is None:
            return None
        judged = self._judge(question, log)
        if isinstance(judged, tuple):
            return Judgement(judged[0], judged[1], None, True, {})
        return judged

    def _judge(self, question: str, log: StepLog):
        try:
            if asked(question) == YES_NO:
                return self._yes_no(question, log) if "yes/no" in self.levers else None
            read_as = read(question)
            if "compute" in self.levers and (read_as.asks_duration or read_as.compare and read_as.offered):
                return self._computed(question, read_as, log)
            shown, scores, best_score = self._shown(question)
        except RuntimeError as error:  # Kuzu could not run a reading's query: the readings do not answer
            log.add(Step("graph", output=f"no reading: the graph could not be read ({error})"))
            return None
        if not shown:
            return None
        picked = 1
        if self.chooser == MODEL:
            picked, _ = self._pick(question, shown, log)
            if picked is None:
                picked = 1  # no number: the nearest reading
        else:
            log.add(Step("graph", output=_numbered(shown)))  # no LLM call: the readings, best first, for the record
        if not picked:
            return None
        reading, values, text = shown[picked - 1]
        if self._unrealized(question, reading, text, log):
            return None
        found = features(score=scores[id(reading)][0], best_score=best_score, tried=scores[id(reading)][1],
                         next_score=next((scores[id(c)][0] for c, _, _ in shown if c is not reading), None),
                         hops=len(hops_of(reading)), values=len(values), asks_one=asks_one(question),
                         kind_said=read_as.asked is not None,
                         noun_unknown=unknown_noun(read_as, self.found.schema_nouns))
        probability = self.confidence.probability(found) if self.confidence is not None else None
        sure = probability is None or probability >= self.confidence.threshold
        doubt = "" if sure else f"\n(not sure: the readings' confidence {probability:.2f} is below " \
                                f"{self.confidence.threshold:.2f})"
        log.add(Step("graph", code=text, output="\n".join(values[:MAX_VALUES]) + doubt))
        return Judgement(", ".join(values[:MAX_VALUES]), text, probability, sure, found, reading.words(),
                         shown=() if sure else tuple(shown))

    def picks_can_be_sure(self, by: str = PICK) -> bool:
        """Whether the model's pick among the readings by `by` can be given (glm_dspy/readings/
        pick_confidence.py): not where no pick of the current LM's model reached the target where
        it was fitted."""
        return picks_can_be_sure(getattr(dspy.settings.lm, "model", None), chooser=by)

    def choose_among(self, question: str, judged: "Judgement", log: StepLog, by: str = PICK) -> "Judgement | None":
        """Where the best reading is not sure (`judge`), the model picks the reading the question
        asks among those shown, best first, or none of them (one ChooseReading call, decoded under
        a grammar of their numbers: it can answer nothing else). The class of questions served:
        those the readings hold but do not rank right with confidence, a relation said in other
        words or a reading that ties with another. The pick comes with the model's probability of
        it (glm_dspy/modules/confident_choice.py); it is sure at or above the threshold fitted for
        the model (glm_dspy/readings/pick_confidence.py; none fitted: every pick is sure). None,
        and so the agents, where the model picks none, its reply names no number, or the pick
        leaves out what the question asks (`unrealized`). `by` JUDGE: the model judges each of the
        first readings yes or no instead (glm_dspy/modules/reading_judge.py, one call each), and the
        one of highest P(yes) is its pick, at that probability."""
        if not judged.shown:
            return None
        if by == PICK:
            picked, probability = self._pick(question, list(judged.shown), log)
        else:
            yes = self.judge_each(question, list(judged.shown), log)
            best = best_judged(yes)
            picked, probability = (None, None) if best is None else (best + 1, yes[best])
        if not picked:
            log.add(Step("graph", output="the model chose none of the readings: the agents decide"))
            return None
        reading, values, text = judged.shown[picked - 1]
        if self._unrealized(question, reading, text, log):
            return None
        threshold = pick_threshold(getattr(dspy.settings.lm, "model", None), chooser=by)
        sure = probability is None or threshold is None or probability >= threshold
        said = "" if probability is None else f" at a probability of {probability:.2f}" + (
            "" if threshold is None else f" ({'at or above' if sure else 'below'} its threshold {threshold:.2f})")
        log.add(Step("graph", code=text, output=f"the model chose reading {picked} ({reading.words()}) of "
                                                f"{len(judged.shown)}{said}:\n" + "\n".join(values[:MAX_VALUES])))
        return Judgement(", ".join(values[:MAX_VALUES]), text, probability, sure, {}, reading.words())

    def _pick(self, question: str, shown: list, log: StepLog) -> tuple[int | None, float | None]:
        """The model's pick among the shown readings, 1..len(shown), 0 for none, None where its
        call failed or named no number; and the model's probability of it (None: not known)."""
        numbered = _numbered(shown)
        prediction, step = call_agent("choose", self.choose, question=question, readings=numbered,
                                      options=[str(i) for i in range(len(shown) + 1)],
                                      config=with_grammar(None, _choice_grammar(len(shown))))
        step.output = numbered + (f"\n-> {prediction.choice}" if prediction is not None else "")
        log.add(step)
        if prediction is None:
            return None, None
        return _number(prediction.choice, len(shown)), prediction.get("probability")

    def _unrealized(self, question: str, reading: Candidate, text: str, log: StepLog) -> bool:
        """Whether the reading leaves out what the question asks of its answer (lever "gate":
        it reads another question's answer, so the fallback answers); said in `log`."""
        missing = unrealized(reading, self._asks(question)) if "gate" in self.levers else []
        if missing:
            log.add(Step("graph", code=text, output=f"not answered by a reading: it does not do {', '.join(missing)}"))
        return bool(missing)

    def _computed(self, question: str, read_as, log: StepLog) -> tuple[str, str] | None:
        """An age, a span of years or which of two, computed from the values the question's
        readings read (glm_dspy/readings/compute.py); None where no program computes it: no plain
        reading can be its answer, so the question goes on."""
        kinds = frozenset({NUMBER, COUNT_KIND}) if read_as.compare in (LARGER, SMALLER) else frozenset({DATE, YEAR})
        offered = read_as.offered if read_as.compare is not None and read_as.offered else ()
        readings = self.found.value_readings(question, kinds, offered)[:MAX_TRIED]
        computed = Program(read_as, readings, self.found.result, self._values).answer()
        if computed is None:
            log.add(Step("graph", output=f"not answered by a reading: no reading computes {_what(read_as)}"))
            return None
        log.add(Step("graph", code="\n".join(computed.queries), output=f"{computed.how} = {computed.answer}"))
        return computed.answer, computed.queries[-1]

    def _values(self, reading: Candidate) -> tuple[list[str], str]:
        """A reading's distinct values, as text, and the query that ran (none where Kuzu could
        not run it)."""
        try:
            result = self.graph.store.read(reading.cypher)
        except RuntimeError:
            return [], ""
        return list(dict.fromkeys(_text(next(iter(row.values()))) for row in result.rows
                                  if next(iter(row.values())) not in (None, [], ""))), result.text

    def _asks(self, question: str) -> dict[str, bool]:
        """What the question asks of its answer beyond a path's values (`unrealized`); nothing
        of a choice between offered answers, which a plain reading reads."""
        if alternatives(question):
            return {}
        ops = read(question).operators
        return {"an average or a sum": ops.arithmetic is not None,
                "a first or a last": ops.extreme is not None,
                "the most or the fewest": ops.most is not None,
                "a bound on a count": ops.count_bound is not None and "counted" in self.levers}

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
        if any(not a.said_alike(b) for i, a in enumerate(starts) for b in starts[i + 1:]):
            log.add(Step("graph", output="no reading joins " + " and ".join(s.said for s in starts)))
            return "no", ""
        named = [s for s in starts if s.is_named]
        if len(starts) == 1 and named and "exists" in self.levers and (wanted := existential(read(question))):
            return self._exists(question, named[0], wanted, log)
        return None

    def _exists(self, question: str, start: Start, wanted: str, log: StepLog) -> tuple[str, str] | None:
        """Whether the named `start` has what the question asks exists ("Did X share the prize
        with anyone?"): of the paths of at most YES_NO_HOPS hops that nodes of its type have
        (those that end at a type of people, where it asks for "anyone"), the best fitting one,
        taken from the start: yes if it reaches something. Its own paths would not do: they
        are only those it has."""
        schema = self.graph.schema
        persons = self.found.person_types() if wanted == PERSON else None
        paths = [replace(c, start=start) for c in self.found.every(start.type_name, YES_NO_HOPS)
                 if 1 <= len(c.hops) <= YES_NO_HOPS and c.returns == schema.node_types[c.end_type].text_feature
                 and (persons is None or c.end_type in persons)]
        ranked = self.found.rank(question, paths)
        if not ranked:
            return None
        result = self.graph.store.read(ranked[0].cypher)
        log.add(Step("graph", output="\n".join(f"{i}. {c.words()}" for i, c in enumerate(ranked[:self.k], 1))))
        log.add(Step("graph", code=result.text, output=f"{len(result.rows)} row(s)"))
        return ("yes" if result.rows else "no"), result.text

    def forward(self, question: str) -> dspy.Prediction:
        log = StepLog()
        judged = self.judge(question, log)
        if judged is not None and judged.sure:
            return log.prediction(judged.answer, None, cypher=judged.cypher)
        guess = judged.answer if judged is not None else None  # not sure: said so, with the guess beside it
        if self.fallback is None:
            return log.prediction(None, RETRIEVAL_ERROR if guess is None else NOT_SURE, cypher="", guess=guess)
        with listening(log.add):  # its steps join this log as they complete (told once)
            fallen = self.fallback(question=question)
        if not fallen.answer and guess is not None:
            return log.prediction(None, NOT_SURE, cypher="", guess=guess)
        return log.prediction(fallen.answer or None, fallen.error_category, cypher=getattr(fallen, "cypher", ""))


@dataclass(frozen=True, slots=True)
class Judgement:
    """The best reading's answer (`answer`, read by the query `cypher`), the probability that it
    is right (None: no model, or a yes/no or computed answer; of the model's pick, the model's
    probability of it) and whether that is sure enough to give it (with no LLM call, or as the
    pick); `features` what the readings' probability was computed from."""
    answer: str
    cypher: str
    probability: float | None
    sure: bool
    features: dict
    words: str = ""
    shown: tuple = ()  # where not sure: the readings shown, best first, (reading, values, query) each, to choose among


def _numbered(shown: list) -> str:
    """The readings shown, one a line, by number, each with its first values; 0 is none of them."""
    return "\n".join([f"{i}. {c.words()} = {', '.join(values[:SHOWN_VALUES])}"
                      + (" ..." if len(values) > SHOWN_VALUES else "")
                      for i, (c, values, _) in enumerate(shown, 1)] + [f"0. {NONE}"])


def _what(read_as) -> str:
    if read_as.compare is not None and read_as.offered is not None:
        return f"which of {read_as.offered[0]} and {read_as.offered[1]} is {read_as.compare}"
    return "an age" if read_as.asked == "age" else "a span of years"


def _answer_of(reading: Candidate, values: list[str]) -> tuple[str, ...]:
    """The answer a reading's values say: in their order where the reading orders its ends (a
    first, a most), else as a set. Kuzu returns unordered rows in any order, so two readings of
    the same things are one answer, whatever order each read them in."""
    if reading.order is not None or reading.group is not None:
        return tuple(values)
    return tuple(sorted(values))


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
        return ", ".join(map(_text, value))  # a list value is the answer's items, as rows are
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))  # a whole number stored as a double (an area of 103000.0 km²) as people write it
    return str(value)


def _number(text: str, count: int) -> int | None:
    """The reading chosen: 1..count, 0 for none of them, None where the reply names neither."""
    found = re.search(r"\d+", str(text))
    value = int(found.group(0)) if found else None
    return value if value is not None and 0 <= value <= count else None
