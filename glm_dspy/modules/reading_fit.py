"""How a reading binds a question's words, in the embedder's cosine units (Discriminate's
ranking, glm_dspy/modules/discriminate.py): hops cost, relations, features and node types the
question says earn, the words a reading's starts bind earn, and each schema word, stated value
or rank the question says and the reading leaves unbound costs."""

from __future__ import annotations

from collections import Counter

from glm_dspy.readings.words import word_stem
from glm_dspy.modules.join_roles import roles_against
from glm_dspy.readings.relation_voice import said_as_object, said_as_owner
from glm_dspy.graphs.cypher.anchors import FUNCTION_WORDS
from glm_dspy.graphs.cypher.condition import ABSENT
from glm_dspy.graphs.cypher.value_index import stem
from glm_dspy.graphs.cypher.candidate import COUNT, Candidate, Start
from glm_dspy.graphs.cypher.compared import Compared

HOP_COST = 0.06  # of cosine, per hop: of two readings alike in meaning, the shorter first
THING_BONUS = 0.15  # of cosine, to a reading that ends at the node type the question asks for by name
COVER_BONUS = 0.05  # of cosine, per word of the question a reading's starts bind
UNION_BONUS = 0.02  # of cosine, to a last hop read into all the types it reaches (a mentor, laureate or not)
RELATION_BONUS = 0.06  # of cosine, per hop whose relation the question says
FEATURE_BONUS = 0.05  # of cosine, to a reading that returns a feature the question names
UNSAID_COST = 0.06  # of cosine, per schema word or stated value of the question the reading leaves unbound
WAY_COST = 0.1  # of cosine, to a reading whose first hop goes against the way the question says its relation
ROLE_COST = 0.3  # of cosine, to a reading that takes a named thing in the role the grammar does not give it
RANK_COST = 0.1  # of cosine, to a reading that does not rank where the question asks for a first, a last or the most


def path_fit(c: Candidate, said: Counter, thing: str | None, taught: Counter,
             persons: frozenset[str] = frozenset(), named_back: frozenset[str] = frozenset(),
             words: list[str] | None = None, passive: dict[str, frozenset[str]] | None = None,
             inverse: dict[str, str] | None = None, roles: dict[str, set[str]] | None = None,
             verbs: bool = True) -> float:
    """How a reading's path binds the question's words, in cosine units: each hop costs HOP_COST
    (of two readings alike in meaning, the shorter first) and each hop taken forwards whose
    relation the question says (as often as it says it; "mentored" says mentor) earns
    RELATION_BONUS back and more (a hop taken backwards over a relation of `named_back`, one
    that never joins a type to itself, is named for the type it reaches: "his prize" from a
    laureate, backwards over the prize's laureate; a laureate's student, backwards over mentor,
    is not named by "laureate"), as
    does each hop the question says in words the bank teaches (`taught`: "darling" -> spouse); the
    question's words its starts bind earn COVER_BONUS each; an end of the type the question asks
    for by name, or (`persons`: the person types of a "who" question) of a type of people, earns
    THING_BONUS; an end read into every type its relation reaches earns UNION_BONUS, unless the
    question names the type it asks for (then that type alone fits best: "how many countries",
    not countries and institutions). Where the question (`words`) says a start as the object of
    its first hop's relation ("cited by P": glm_dspy/readings/relation_voice.py), that hop is
    said taken backwards, not forwards. A relation the question says in the passive with its
    agent after it (`passive`: the stems of those words -> the agent's words, "trained by the
    man who ...": mentor) is said by a hop taken backwards over it too: the path comes from the
    agent's side (the man's student); where the start is that agent ("who was trained by X"), a
    first hop forwards over it goes against the way it is said. A hop backwards over a
    relation the graph also stores the other way under a name of its own (`inverse`: mentor ->
    student) is said by that name too. `roles` (the words that mean schema names, word -> their
    stems; None: roles not read): a reading that takes a named thing in the role the question's
    grammar does not give it costs ROLE_COST, more than the embedder's cosine tells the two ways
    apart (it is blind to direction: "X -> mentor" sits nearer "Who did X mentor?" than X's
    students do, by up to 0.15): the grammar fixes the direction
    (glm_dspy/modules/join_roles.py: "Did X mentor Y?" is Y's mentor X, "Who did X mentor?" X's
    students)."""
    hops = hops_of(c)
    back = said_back(c, words, verbs)
    passive, inverse = passive or {}, inverse or {}

    def saying(at: int, hop) -> str:  # hops_of(c) begins with c.hops: at 0 is the first hop
        if back and at == 0:
            return "" if hop.outgoing else hop.relation
        if not hop.outgoing and hop.relation not in named_back \
                and {word_stem(w) for w in hop.relation.split("_")} <= passive.keys():
            return hop.relation
        if hop.outgoing:
            return hop.relation
        return "_".join(dict.fromkeys([hop.type_name] * (hop.relation in named_back)
                                      + inverse.get(hop.relation, "").split("_")))

    relations = Counter(word_stem(word) for at, hop in enumerate(hops)
                        for word in dict.fromkeys(saying(at, hop).split("_")) if word)
    relation_words = sum(min(n, said[word]) for word, n in relations.items())
    taken = _taken(c, back)
    relation_words += sum(min(n, taught[relation]) for relation, n in taken.items())
    end_types = {stem(t) for t in answer_types(c)}
    asked_type = (thing is not None and stem(thing) in end_types) or bool(persons & set(answer_types(c)))
    return (- HOP_COST * len(hops) + RELATION_BONUS * relation_words + COVER_BONUS * len(c.bound)
            + THING_BONUS * asked_type + UNION_BONUS * bool(c.hops and c.hops[-1].also and thing is None)
            - WAY_COST * (against_way(c, words, back, verbs) or agent_forwards(c, passive))
            - ROLE_COST * (roles is not None and roles_against(c, words, passive, inverse, roles)))


def agent_forwards(c: Candidate, passive: dict[str, frozenset[str]]) -> bool:
    """Whether a reading's first hop goes forwards over a relation the question says in the
    passive with the start as its agent ("who was trained by X": X's students, backwards over
    mentor, not X's mentor)."""
    if not c.hops or not c.hops[0].outgoing:
        return False
    stems = {word_stem(w) for w in c.hops[0].relation.split("_")}
    own = {w for w in c.start.bound if w not in FUNCTION_WORDS}
    return bool(own) and all(s in passive and own & passive[s] for s in stems)


def against_way(c: Candidate, words: list[str] | None, back: bool, verbs: bool = True) -> bool:
    """Whether the reading's first hop goes against the way the question says its relation:
    forwards where the start is said as its object ("cited by P": `said_back`), backwards where
    the relation is said as the start's own ("the mentors of X", "X's mentor": `said_as_owner`)."""
    if not c.hops or words is None:
        return False
    first = c.hops[0]
    return (back and first.outgoing) \
        or (not first.outgoing and said_as_owner(words, c.start.bound, first.relation, verbs))


def said_back(c: Candidate, words: list[str] | None, verbs: bool = True) -> bool:
    """Whether the question (`words`) says the reading's start as the object of its first hop's
    relation (glm_dspy/readings/relation_voice.py): the words that say that relation say it
    taken backwards from there."""
    return bool(c.hops) and words is not None and said_as_object(words, c.start.bound, c.hops[0].relation, verbs)


def _taken(c: Candidate, back: bool) -> Counter:
    """(relation, outgoing) of each hop, as the question's words for relations say them: where
    the start is said as its first relation's object (`said_back`), that hop's way turned."""
    return Counter((hop.relation, hop.outgoing != (back and i == 0)) for i, hop in enumerate(hops_of(c)))


def named_back(schema) -> frozenset[str]:
    """The relations a hop backwards over which is named for the type it reaches (`path_fit`):
    those that never join a type to itself, so the type says which way the hop goes."""
    return frozenset(name for name, pairs in schema.relations.items() if all(a != b for a, b in pairs))


def hops_of(c: Candidate) -> tuple:
    """Every hop a reading takes: its path's, the joined path's, the path to the time it meets,
    and the two paths of a loop."""
    return c.hops + (c.join[1] if c.join else ()) + (c.meets.hops if c.meets is not None else ()) \
        + (c.loop.hops if c.loop is not None else ())


def unsaid(c: Candidate, asked: set[str], taught: Counter, words: list[str] | None = None,
           inverse: dict[str, str] | None = None, verbs: bool = True) -> int:
    """How many of the question's schema words the reading leaves unbound: of `asked` (stems of
    the words of relation, type and feature names the question says, but for those its starts
    were bound from), those said neither by its relations, nor its node types, nor what it
    returns or ranks by; of `taught` (how often the question says each relation in the bank's words), the
    mentions beyond the times it takes that relation. Where the question says the start as the
    object of the first hop's relation (`said_back`), a first hop forwards does not say it."""
    hops = hops_of(c)
    starts = starts_of_reading(c)
    back = said_back(c, words, verbs)
    turned = back and c.hops[0].outgoing  # the first hop, forwards where the start is said as its object
    names = [hop.relation for at, hop in enumerate(hops) if not (turned and at == 0)] \
        + [(inverse or {}).get(hop.relation, "") for hop in hops if not hop.outgoing] \
        + [t for hop in hops for t in hop.labels] + [c.returns] \
        + [s.type_name for s in starts] + [cond.feature for s in starts for cond in s.conditions] \
        + [key.feature for key in ranked_keys(c)] + ([c.group.part] if c.group is not None and c.group.part else []) \
        + ([c.meets.feature, c.meets.own, c.meets.other.type_name] if c.meets is not None else []) \
        + ([c.counted.type_name, c.counted.feature or ""] if c.counted is not None else [])
    used = {word_stem(w) for name in names for w in name.split("_")}
    bound = {word_stem(w) for s in starts for w in s.bound}
    taken = _taken(c, back)
    return len(asked - used - bound) + sum(max(0, n - taken[relation]) for relation, n in taught.items())


def unsaid_detour(c: Candidate, said: Counter, taught: Counter) -> bool:
    """Whether a reading of a named start walks back to the start's own type (P -> author ->
    paper: P's author's other papers) through hops no word of the question says (neither
    their relations, nor the types they reach, nor the bank's words for them): such a reading
    reads other things than the one the question names, which the question would say."""
    hops = c.hops
    if not c.start.is_named or len(hops) < 2 or hops[-1].type_name != c.start.type_name \
            or all(hop.type_name == c.start.type_name for hop in hops[:-1]):
        return False  # no way back: the path never left the start's type (a graph of one type: every path)
    taught_relations = {relation for relation, _ in taught}
    return not any(any(said[word_stem(w)] for w in (*hop.relation.split("_"), *hop.type_name.split("_")))
                   or hop.relation in taught_relations for hop in hops[:-1])


def repeated(c: Candidate, said: Counter, same: Counter = Counter(), inverse: dict[str, str] | None = None) -> int:
    """Of the relation words the question says (`said`: stem -> how often, of the words that
    name only relations), the mentions beyond the hops that take a relation of that word, and
    the hops beyond its mentions: "the mentor of the mentor of the mentor of X" says three hops
    over mentor, and a reading that takes two leaves one unsaid (its first mention, where it
    takes none, is `unsaid`'s), as `unsaid` counts the mentions of a relation in the bank's
    words; "the mentors of X" says one, and X -> mentor -> the mentor's students takes two. A
    relation said after "same" (`same`: stem -> how often) may be taken twice, there and back:
    "studied under the same mentor as X" is X -> mentor -> the mentor's students. A relation of
    one word said by the one word the graph names it by the other way (`inverse`: mentor ->
    student) is said once either way: "a student of Y" takes mentor once, not twice."""
    inverse = inverse or {}
    folded = {kept: name for kept, name in inverse.items() if "_" not in kept + name}  # one word each way
    as_kept = {word_stem(name): word_stem(kept) for kept, name in folded.items()}
    said_once = Counter()
    for word, n in said.items():
        said_once[as_kept.get(word, word)] += n
    said = said_once
    taken = Counter(word_stem(w) for hop in hops_of(c) for w in hop.relation.split("_")) \
        + Counter(word_stem(w) for hop in hops_of(c) if not hop.outgoing and hop.relation not in folded
                  for w in inverse.get(hop.relation, "").split("_") if w)
    return sum(max(0, n - max(1, taken[word])) + max(0, taken[word] - n - same[word]) for word, n in said.items())


def fewer_types(c: Candidate, said_types: Counter) -> int:
    """Of the node types the question says more than once (`said_types`: type -> how often:
    "How many medicine laureates ... had a Nobel laureate as a mentor?" says two laureates), the
    mentions beyond the reading's nodes of that type (its starts', and its hops' ends, a hop
    read into several types counting for each): a reading through a mentor who is a scholar
    holds one laureate, and leaves one unsaid."""
    held = Counter(s.type_name for s in starts_of_reading(c)) + Counter(t for hop in hops_of(c) for t in set(hop.labels))
    return sum(max(0, n - held[type_name]) for type_name, n in said_types.items())


def compared_unsaid(c: Candidate, said: Counter, near: set[str], elided: bool) -> int:
    """Of a reading that compares two values of its end's own (graphs/cypher/compared.py), how
    many are unsaid: each side's time must be said, by its feature's words or a word near it in
    meaning (`near`, names in words: "born" may say birth date, "died" death date), or by the
    thing that holds it ("their prize", "their mentor"; `_time_said`): the end's own time only by
    its feature.
    Where the question leaves out the verb of its second side (`elided`: "before their mentor
    did"), both sides compare the same feature, else one more is unsaid."""
    compared = c.loop
    if not isinstance(compared, Compared):
        return 0
    sides = ((compared.first, compared.first_feature), (compared.second, compared.second_feature))
    missing = sum(not _time_said(hops, feature, said, c.end_type) and feature.replace("_", " ") not in near
                  for hops, feature in sides)
    return missing + (elided and compared.first_feature != compared.second_feature)


TIME_WORDS = frozenset({"date", "year", "month", "day", "time", "decade"})  # what names a time, not which one


def bound_time_unsaid(c: Candidate, said: Counter, near: set[str], timed) -> int:
    """How many of the reading's starts are bound on a time (`timed(type, feature)`: "since
    2020", "in the 1990s", "on 25 June 1864") that the question does not name: a time feature's
    words beyond its being a time ("death" of death date, "awarded" of date awarded) must be
    said, or the feature be near a word said (`near`: "died" -> death date). A bare year or date
    is its node's own time and needs no word: "physics laureates since 2020 ... when they won"
    bounds the prize's year, not a death date no word says."""
    return sum(any(timed(s.type_name, condition.feature) and condition.value is not None
                   and not all(said[word_stem(w)] for w in condition.feature.split("_") if w not in TIME_WORDS)
                   and condition.feature.replace("_", " ") not in near
                   for condition in s.conditions)
               for s in starts_of_reading(c))


def _time_said(hops: tuple, feature: str, said: Counter, end_type: str) -> bool:
    """Whether a time is said by its feature's words, or by the thing that holds it: the last
    hop's relation (backwards, its type), but for the end's own type, which the question's word
    for what it asks names ("laureates" says no other laureate)."""
    holder = [hops[-1].relation if hops[-1].outgoing else hops[-1].type_name] if hops else []
    holder = [name for name in holder if name != end_type]
    return any(said[word_stem(w)] for name in (feature, *holder) for w in name.split("_"))


def meets_unsaid(c: Candidate, after: set, near_after: set[str]) -> bool:
    """Whether a reading that meets a named thing's time (graphs/cypher/value_meets.py) leaves
    that time unsaid where the question says it: right after the thing's name ("born in the
    year Hershey won his prize": the year of Hershey's prize, not of his birth). `after`: what
    the words after the name say (word_order.said_after); `near_after`: the schema names those
    words may say in other words ("died": death date). The time is said by its feature's words
    or by the hops that reach it ("his prize")."""
    if c.meets is None:
        return False
    names = [c.meets.feature, *(hop.relation if hop.outgoing else hop.type_name for hop in c.meets.hops)]
    return not any(word_stem(w) in after for name in names for w in name.split("_")) \
        and c.meets.feature.replace("_", " ") not in near_after


def unnamed_time(c: Candidate, timed) -> bool:
    """Whether a reading ranks by a time (`timed(type, feature)`) that is not its stated start's:
    where the question names no time ("Which decade saw the most chemistry laureates?"), the
    time it ranks by is that of the thing it states (the chemistry prizes' years), not another
    node's on the path (the laureates' birth dates)."""
    return any(timed(key.type_name, key.feature) and not (key.side == "a" and key.at == 0 and is_stated(c.start))
               for key in ranked_keys(c))


def returns_fit(c: Candidate, said: Counter) -> float:
    """FEATURE_BONUS to a reading that returns a feature the question names ("in which year":
    the prize's `year`, not its `date_awarded`)."""
    return FEATURE_BONUS * (c.returns != COUNT and all(said[word_stem(w)] for w in c.returns.split("_")))


def unrealized(c: Candidate, facts: dict[str, bool]) -> list[str]:
    """What the question asks of its answer that the reading does not do (`facts`: whether it
    asks for each of "an average or a sum", "a first or a last", "the most or the fewest", "a
    bound on a count"):
    an average or a sum no reading computes; a first or a last it does not order by; the most or
    the fewest it neither groups by nor orders by a number of ("the most populous"); a count it
    does not bound. A reading that leaves out what
    the question asks reads another question's answer."""
    done = {"an average or a sum": False, "a first or a last": c.order is not None,
            "the most or the fewest": c.group is not None or c.order is not None and c.order.number,
            "a bound on a count": c.counted is not None}
    return [what for what, asks in facts.items() if asks and not done[what]]


def starts_of_reading(c: Candidate) -> tuple[Start, ...]:
    return (c.start,) + ((c.join[0],) if c.join else ()) + ((c.meets.other,) if c.meets is not None else ())


def is_stated(start: Start) -> bool:
    """Whether a start is a thing the question states: a node it names, or nodes that equal
    (or start with) a value it says; not those whose long texts mention its words (a
    motivation that mentions "first"), which are often chance, nor every node of a type."""
    return bool(start.conditions) and all(condition.op != "CONTAINS" for condition in start.conditions)


def lacks(c: Candidate) -> bool:
    """Whether a start of the reading is the nodes that lack a value ("with no death date"): a
    reading of what is not so, as the absent path's are."""
    return any(condition.op == ABSENT for s in starts_of_reading(c) for condition in s.conditions)


def ranked_keys(c: Candidate) -> list:
    return [ranking.key for ranking in (c.order, c.group) if ranking is not None]


def answer_types(c: Candidate) -> tuple[str, ...]:
    """The node types a reading's values are of: its end's, its group key's node's, those of
    the nodes it counts by (but where it orders among them: then its end's), or its start's (of
    the starts a path leaves from nothing, of the years of a start's range nothing holds)."""
    if c.counted is not None and c.order is None:
        return (c.counted.type_name,)
    if c.absent is not None and c.absent.side == "start" or c.gap is not None:
        return (c.start.type_name,)
    return (c.group.key.type_name,) if c.group is not None else c.end_labels
