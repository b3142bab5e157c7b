"""The relations a question's words spell, learned from a graph's Cypher example bank.

PathQuestion asks along a path in words: "the faith of muhammad_al-mahdi 's parent ?" is
`parents`, then `religion`. The 0.5B model drops a hop (`-[:rel_parents]->` alone answered with
the parent) or takes a neighbouring relation ("johann_bernoulli 's son 's nation" written
`rel_spouse`, `rel_nationality`). Text2Cypher rebuilds such a chain from the question's own
relation words (`Text2Cypher._spelled_path`); this module finds those words.

* `RelationWords.learn(examples, relations)` counts, over the bank's chain queries that start at a
  node matched by name, which (relation, direction) each question word comes with. A word is a
  relation word where one (relation, direction), and only one, comes with it in at least
  MIN_SHARE of its MIN_COUNT or more questions ("dad" -> parents; "from" comes with several), FILLER words aside
  (a bank of few templates pairs "who" with one relation); a word without which more of the
  bank's chains are given back is dropped ("type", said only in "type of religion": one hop, not
  two). A word the bank does not teach that spells a relation or the end of one (PathQuestion-L's
  `disciplines_or_subjects`) stands for each relation it spells.
* `path(question, name)`: the relation words in the order the path takes them, by how English
  chains possessives and "of": the words after the name in the order said ("X 's mother 's
  faith": parents, religion), then the words before it, the nearest first ("the faith of the
  mother of X"). Neighbouring words of one relation are one ("other half": spouse); the word
  right before the name says what the name is ("the paper 'Notes on ...'"), not a hop.
* Whether a graph's questions spell their paths at all is measured on its bank, not assumed:
  `reproduced` is the share of the bank's chains whose relations `path` gives back with the words
  as counted (before the pruning, which fits them to the bank). Below MIN_REPRODUCED the words are
  not used (`usable`): Nobel's questions (22%) and the synthetic graph's (35%) say much more than a
  path, PathQuestion's (85%, 99% for PQL) say the path.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from glm_dspy.modules.cypher_paths import Chain
from glm_dspy.graphs.cypher.syntax import Literal
from glm_dspy.graphs.schema import spells

MIN_COUNT = 5  # questions a word must come in before it can be a relation word
MIN_SHARE = 0.9  # of those, the share that must have its one relation
MIN_REPRODUCED = 0.6  # of the bank's chains, the share the words must give back for the graph to use them
MAX_PHRASE = 4  # the most words read together as one relation's name ("place of birth")
MIN_SPELLED_LENGTH = 4  # a word shorter than this never stands for a relation by spelling it
SPELLING_CACHE = 100_000  # words and phrases whose spelled relations are kept (a service asks without end)
POSSESSIVE = re.compile(r"(\w)(['’]s)\b")
FILLER = frozenset({"a", "an", "the", "of", "'s", "’s", "is", "are", "was", "were", "what", "who", "whom", "which",
                    "where", "when", "does", "did", "do", "how"})

Relation = tuple[str, bool]  # (relation, outgoing)


def _folded_words(text: str) -> list[str]:
    return re.sub(r"[\W_]+", " ", text.lower()).split()


def _tokens(question: str) -> list[str]:
    return POSSESSIVE.sub(r"\1 \2", question).split()


def _word(token: str) -> str:
    return token.strip("?,.;:!()\"").lower()


def start_name(path: Chain) -> str | None:
    """The name the chain's first node is matched by (`{name: 'X'}`: the string its pattern's
    first property is), or None."""
    properties = path.nodes[0].properties
    value = properties[0][1] if properties else None
    return value.value if isinstance(value, Literal) and isinstance(value.value, str) else None


def chain_relations(path: Chain) -> list[Relation]:
    from glm_dspy.graphs.schema import REL_PREFIX

    return [(hop.relation.removeprefix(REL_PREFIX), hop.outgoing) for hop in path.hops]


def name_span(tokens: list[str], name: str) -> tuple[int, int] | None:
    """[start, end) of the tokens that say `name` (case, underscores, punctuation aside): the run
    that spells it whole, else the longest run of its words; None where none of its words is said."""
    words = set(_folded_words(name))
    whole = " ".join(_folded_words(name))
    best = None
    for start in range(len(tokens)):
        end = start
        while end < len(tokens) and (folded := _folded_words(tokens[end])) and set(folded) <= words:
            end += 1
        if end == start:
            continue
        if " ".join(w for token in tokens[start:end] for w in _folded_words(token)) == whole:
            return start, end
        if best is None or end - start > best[1] - best[0]:
            best = (start, end)
    return best


@dataclass
class RelationWords:
    words: dict[str, Relation]  # word -> the one (relation, direction) it says
    relations: frozenset[str]
    reproduced: float = 0.0  # of the bank's chains, the share `path` gives back (words as counted)
    chains: int = 0  # the bank's chains that start at a named node
    _spelling: dict[str, list[Relation]] = field(default_factory=dict, repr=False)

    @classmethod
    def learn(cls, examples: Iterable[Mapping[str, str]], relations: Iterable[str]) -> RelationWords:
        chains = []
        for example in examples:
            path = Chain.read(example["cypher"])
            name = start_name(path) if path is not None else None
            if name is not None:
                chains.append((example["question"], name, chain_relations(path)))
        seen: Counter[str] = Counter()
        together: defaultdict[str, Counter[Relation]] = defaultdict(Counter)
        holding: defaultdict[str, list[int]] = defaultdict(list)  # word -> the chains whose question says it
        for at, (question, name, hops) in enumerate(chains):
            tokens = _tokens(question)
            span = name_span(tokens, name) or (0, 0)
            for word in {_word(t) for i, t in enumerate(tokens) if not span[0] <= i < span[1]} - FILLER - {""}:
                seen[word] += 1
                together[word].update(set(hops))
                holding[word].append(at)
        words = {}
        for word, count in seen.items():
            held = [relation for relation, with_it in together[word].items() if with_it >= MIN_SHARE * count]
            if count >= MIN_COUNT and len(held) == 1:  # two always together: the word says neither for sure
                words[word] = held[0]
        learned = cls(words, frozenset(relations), chains=len(chains))
        given_back = sum(_spells(learned._path_of(question, name), hops) for question, name, hops in chains)
        learned.reproduced = given_back / len(chains) if chains else 0.0  # as counted: pruning fits the bank
        learned._prune(chains, holding)
        return learned

    def _prune(self, chains: list[tuple[str, str, list[Relation]]], holding: dict[str, list[int]]) -> None:
        """Drop each word (the most frequent first) whose chains the words give back more often
        without it: "type" comes only in "type of religion", one hop, which it would make two."""
        for word in sorted(self.words, key=lambda w: (-len(holding[w]), w)):
            mine = [chains[i] for i in holding[word]]
            given_back = sum(_spells(self._path_of(q, name), hops) for q, name, hops in mine)
            relation = self.words.pop(word)
            if sum(_spells(self._path_of(q, name), hops) for q, name, hops in mine) <= given_back:
                self.words[word] = relation

    @property
    def usable(self) -> bool:
        return self.reproduced >= MIN_REPRODUCED

    def relations_of(self, word: str) -> list[Relation]:
        """What `word` stands for: the relation the bank taught, else each relation it spells (or
        ends with, after an underscore), outgoing; [] for neither."""
        if word in self.words:
            return [self.words[word]]
        if word in FILLER or len(word) < MIN_SPELLED_LENGTH:
            return []
        return self._spelled(word)

    def _spelled(self, word: str) -> list[Relation]:
        """Each relation `word` spells or ends with (after an underscore), outgoing, the inverse
        relations of a triples graph last."""
        if word not in self._spelling:
            from glm_dspy.graphs.triples import INVERSE_PREFIX

            if len(self._spelling) >= SPELLING_CACHE:
                self._spelling.clear()
            spelled = [r for r in self.relations if spells(r, word)]
            self._spelling[word] = [(r, True) for r in sorted(spelled, key=lambda r: (r.startswith(INVERSE_PREFIX), r))]
        return self._spelling[word]

    def _said_at(self, words: list[str], at: int) -> tuple[int, list[Relation]]:
        """(how many words, the relations they stand for) at `words[at]`: the longest run of up to
        MAX_PHRASE words that spells a relation ("cause of death": cause_of_death, not `death` as
        the end of place_of_death too), else the one word (`relations_of`)."""
        for length in range(min(MAX_PHRASE, len(words) - at), 1, -1):
            run = words[at: at + length]
            if all(run) and (relations := self._spelled("_".join(run))):
                return length, relations
        return 1, self.relations_of(words[at]) if words[at] else []

    def path(self, question: str, name: str) -> list[list[Relation]] | None:
        """For each hop from the node named `name`, in path order, the relations its word may
        stand for (module doc); None where the question does not say `name`."""
        return self._path_of(question, name) if self.usable else None

    def _path_of(self, question: str, name: str) -> list[list[Relation]] | None:
        tokens = _tokens(question)
        span = name_span(tokens, name)
        if span is None:
            return None
        words = [_word(token) if not span[0] <= at < span[1] else "" for at, token in enumerate(tokens)]
        said: list[tuple[int, list[Relation]]] = []
        at = 0
        while at < len(words):
            length, relations = self._said_at(words, at)
            if relations and said and said[-1][0] == at - 1 and said[-1][1] == relations:  # "other half"
                said[-1] = (at, relations)
            elif relations:
                said.append((at, relations))
            at += length
        after = [relations for at, relations in said if at >= span[1]]
        # a word right before the name is what the name is ("the paper 'Notes on ...'"), not a hop
        before = [relations for at, relations in reversed(said) if at < span[0] - 1]
        return after + before


def _spells(path: list[list[Relation]] | None, hops: list[Relation]) -> bool:
    """Whether `path` (RelationWords.path) allows exactly the chain `hops`."""
    return path is not None and len(path) == len(hops) and all(hop in said for hop, said in zip(hops, path))
