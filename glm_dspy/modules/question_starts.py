"""Where a question's readings start (Discriminate, glm_dspy/modules/discriminate.py): the nodes
it names (RetrieveNode, the exact name), the nodes the values it says meet (graphs/cypher/anchors.py:
"the 1913 physics laureate" is a prize of year 1913 and category Physics; "since 2020", "the
1990s" bound a year), values it lists together as one start of any of them ("physics, chemistry
and medicine"), categories it says in other words ("woman" is a gender of female, by the
embedder), and values it says a thing lacks or holds ("still alive": no death date)."""

from __future__ import annotations

import functools

import numpy as np

from glm_dspy.readings.absence import absences
from glm_dspy.readings.words import word_stem
from glm_dspy.readings.operators import coordinated
from glm_dspy.readings.question import read
from glm_dspy.modules.question_values import question_values
from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS, Anchor, anchors, starts_of
from glm_dspy.graphs.cypher.condition import ABSENT, PRESENT, Condition
from glm_dspy.graphs.cypher.value_index import ValueIndex, folded, stem
from glm_dspy.graphs.cypher.candidate import Start

VALUE_LIKENESS = 0.6  # cosine of a question word and a category's value, to mean it ("woman" -> female 0.80)
VALUE_MARGIN = 0.1  # ... and nearer to it than to the category's other values by this ("woman": male 0.49)
EVENT_LIKENESS = 0.45  # cosine of an event's words and a feature's name, to mean it ("died" -> death date 0.46)
EVENT_MARGIN = 0.1  # ... and nearer to it than to its type's other features by this ("died": given name 0.30)


def question_starts(graph, values: ValueIndex, question: str, embed, *, union: bool = True,
                    likened: bool = True, absence: bool = True) -> list[Start]:
    """The nodes the question names, then those the values it says meet. `embed`: an
    EmbeddingCache, texts -> vectors (glm_dspy/modules/embedding_cache.py); `union`: values
    listed together are also one start of any of them; `likened`: categories said in other words
    bind too; `absence`: a value said to be lacking or held ("still alive") too."""
    from glm_dspy.modules.text2cypher import named_nodes

    store = graph.store
    starts, bound = [], set()
    for node_id in named_nodes(graph, question):
        type_name = store.type_of(node_id)
        feature = graph.schema.node_types[type_name].text_feature if type_name else None
        name = graph.retriever.label(node_id)
        if feature and name:
            starts.append(Start.named(type_name, feature, name, node_id))
            bound.add(folded(name))
    found = anchors(values, store, question_values(question), exclude=bound,
                    types=frozenset(stem(t) for t in graph.schema.node_types), operators=read(question).operators.words)
    if likened:
        found += likened_values(values, question, found, bound, embed)
    if absence:
        found += absent_values(values, graph.schema, question, embed)
    listed = functools.partial(coordinated, read(question).words) if union else None
    return longest(starts + [Start.anchored(type_name, conditions, words)
                             for type_name, conditions, words in starts_of(found, store, listed=listed)], graph.schema)


def longest(starts: list[Start], schema) -> list[Start]:
    """The starts but those whose words a start bound by a longer name holds too: of "Cambridge,
    MA", the city named so, not Cambridge; of "Kaiser-Wilhelm-Institut (now Max-Planck Institut)
    für Chemie", that institute, not Max Planck. A name binds the longest run of the question's
    words it can (a start by name: one equal to its type's name feature), and the node named
    exactly wins over the names of its type that merely hold the same words (where names are
    few enough to be a category, "one of Deep Nets, Wide Nets")."""
    def by_name(s: Start) -> bool:
        return any(c.op == "=" and c.feature == schema.node_types[s.type_name].text_feature for c in s.conditions)

    def loose(s: Start) -> bool:  # names of its type that merely hold the words ("one of Deep Nets, Wide Nets")
        return not by_name(s) and any(c.feature == schema.node_types[s.type_name].text_feature for c in s.conditions)

    names = [(s.type_name, s.bound) for s in starts if by_name(s)]
    return [s for s in starts if not any(s.bound < bound or (loose(s) and s.bound == bound and s.type_name == type_name)
                                         for type_name, bound in names)]


def likened_values(values: ValueIndex, question: str, found: list[Anchor], bound: set[str], embed) -> list[Anchor]:
    """The categorical values the question says in other words ("woman": a laureate's gender
    female; "chemist": a prize's category Chemistry): a word of the question no anchor or name
    binds, within VALUE_LIKENESS of one value of a category (the embedder's cosine) and nearer
    to it than to the category's other values by VALUE_MARGIN."""
    used = {w for a in found for w in folded(a.said).split()} | {w for name in bound for w in name.split()}
    words = [w for w in dict.fromkeys(folded(question).split())
             if w.isalpha() and len(w) >= 3 and w not in FUNCTION_WORDS and w not in used]
    if not words or not values.choices:
        return []
    asked_vectors = embed(words)
    likened = []
    for (type_name, feature), choices in sorted(values.choices.items()):
        if len(choices) < 2:
            continue
        likeness = asked_vectors @ embed.fixed(list(choices)).T
        for i, word in enumerate(words):
            order = np.argsort(-likeness[i])
            best, second = likeness[i, order[0]], likeness[i, order[1]]
            if best >= VALUE_LIKENESS and best - second >= VALUE_MARGIN:
                likened.append(Anchor(type_name, Condition(feature, "=", choices[order[0]]), word))
    return likened


def absent_values(values: ValueIndex, schema, question: str, embed) -> list[Anchor]:
    """The features the question says its things lack or hold (glm_dspy/readings/absence.py `absences`:
    "still alive" is no death, "never married" no marriage): of the features some nodes of a
    type hold and others lack (`values.partial`), the one whose own word the event's words say
    (a word of its name no other feature of its type has: "death" of death date, not "date"),
    else the one its words are within EVENT_LIKENESS of (the embedder's cosine), nearer to it
    than to the type's other features by EVENT_MARGIN. Each is a start: the nodes that lack it
    (hold it, where the event happened)."""
    said = absences(read(question), negations=read(question).operators.negated)
    if not said or not values.partial:
        return []
    found = []
    for absence in said:
        event = {word_stem(w) for w in absence.event}
        event_vector = embed([" ".join(absence.event)])
        for type_name in sorted({t for t, _ in values.partial}):
            features = list(schema.node_types[type_name].features)
            own = {f: {word_stem(w) for w in f.split("_") if w and w not in FUNCTION_WORDS} for f in features}
            likeness = (event_vector @ embed([f.replace("_", " ") for f in features]).T)[0]
            order = np.argsort(-likeness)
            for i, feature in enumerate(features):
                if (type_name, feature) not in values.partial:
                    continue
                distinct = own[feature] - set().union(*(own[f] for f in features if f != feature))
                near = order[0] == i and likeness[i] >= EVENT_LIKENESS \
                    and (len(features) < 2 or likeness[i] - likeness[order[1]] >= EVENT_MARGIN)
                if event & distinct or near:
                    found.append(Anchor(type_name, Condition(feature, PRESENT if absence.happened else ABSENT, None),
                                        absence.said))
    return found


__all__ = ["question_starts", "likened_values", "absent_values", "longest", "VALUE_LIKENESS", "VALUE_MARGIN",
           "EVENT_LIKENESS", "EVENT_MARGIN"]
