"""A seeded made-up world as triples, with 3-hop path questions: a graph no bank has seen.

    glm-dspy fresh-world --out /tmp/world --seed 0      # or python -m glm_dspy.graphs.fresh_world
    glm-dspy build triples:/tmp/world/kb.tsv --db /tmp/world/db
    glm-dspy eval --questions /tmp/world/questions.jsonl --db /tmp/world/db --programs glm ...

People, firms, towns, countries, languages and schools with invented names (no model knows
them), joined by thirteen relations (RELATIONS) under names no dataset of this project uses.
Each question follows three relations from one named thing to exactly one other, in one of
three wordings of the same path (FORMS):
* "of": "What is the country of the hometown of the founder of X?";
* "possessive": "What is X's founder's hometown's country?";
* "clause": the relations said by verbs, not their names: "What is the country that contains the
  city that is home to the person who founded X?".
The wordings are general English over the relation's own words (a relation's noun, and one
clause of it), not any bank's templates; a question's `path` and `form` say what it asks.

Invariants of `world(seed)` and `questions(world, n, seed)`: the same arguments give the same
triples and questions; every name is unique across kinds; a question's answer is the one end of
its path from its start (checked by walking the triples), and neither the start nor a node on
the way.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from glm_dspy.graphs.synthetic import FIRST_NAMES, LAST_NAMES

COUNTS = {"person": 360, "company": 70, "city": 50, "country": 14, "language": 10, "school": 24}
FORMS = ("of", "possessive", "clause")
HOPS = 3


@dataclass(frozen=True, slots=True)
class Relation:
    """A relation of the world: `name` as written in the triples, from kind `source` to kind
    `target`; `noun` is how "the {noun} of X" says it, `clause` how a verb says it ({} is X)."""

    name: str
    source: str
    target: str
    noun: str
    clause: str


RELATIONS = (
    Relation("employer", "person", "company", "employer", "the company that employs {}"),
    Relation("hometown", "person", "city", "hometown", "the city that is home to {}"),
    Relation("mentor", "person", "person", "mentor", "the person who mentored {}"),
    Relation("spouse", "person", "person", "spouse", "the person married to {}"),
    Relation("alma_mater", "person", "school", "alma mater", "the school attended by {}"),
    Relation("founder", "company", "person", "founder", "the person who founded {}"),
    Relation("headquarters", "company", "city", "headquarters", "the city housing the main office of {}"),
    Relation("parent_company", "company", "company", "parent company", "the company that owns {}"),
    Relation("country", "city", "country", "country", "the country that contains {}"),
    Relation("mayor", "city", "person", "mayor", "the person who governs {}"),
    Relation("capital", "country", "city", "capital", "the seat of government of {}"),
    Relation("official_language", "country", "language", "official language",
             "the language spoken officially in {}"),
    Relation("location", "school", "city", "location", "the city that hosts {}"),
)
BY_NAME = {r.name: r for r in RELATIONS}

ONSETS = "b br d dr f g gr k kr l m n p pr r s st t tr v z th sh".split()
VOWELS = "a e i o u ae ei ou".split()
CODAS = ["", "n", "r", "l", "s", "th", "nd", "rk", "m"]
ENDINGS = {"city": ["holm", "vik", "burg", "ora", "ton", "mere", "stad"], "country": ["ia", "land", "mark", "ova"],
           "company": [" Industries", " Labs", " Group", " Works", " Systems"], "language": ["ic", "ese", "ish"]}


@dataclass(slots=True)
class World:
    """Names of each kind, and each relation's pairs (source name, target name)."""

    names: dict[str, list[str]]
    pairs: dict[str, list[tuple[str, str]]]

    def triples(self) -> list[tuple[str, str, str]]:
        return [(s, relation, o) for relation in self.pairs for s, o in self.pairs[relation]]

    def ends(self, start: str, path: tuple[str, ...]) -> list[list[str]]:
        """The nodes reached after each relation of `path`, walked from `start`."""
        out, frontier = {}, [start]
        for relation in set(path):
            out[relation] = {}
            for s, o in self.pairs[relation]:
                out[relation].setdefault(s, []).append(o)
        reached = []
        for relation in path:
            frontier = sorted({o for node in frontier for o in out[relation].get(node, [])})
            reached.append(frontier)
        return reached


def _word(rng: random.Random, syllables: int) -> str:
    return "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS) for _ in range(syllables))


def _names(rng: random.Random, kind: str, count: int, taken: set[str]) -> list[str]:
    names = []
    while len(names) < count:
        if kind == "person":
            name = f"{rng.choice(FIRST_NAMES)} {rng.choice(LAST_NAMES)}"
        elif kind == "school":
            name = f"{_word(rng, 2).capitalize()} {rng.choice(['College', 'Academy', 'Institute'])}"
        else:
            name = _word(rng, rng.choice((1, 2))).capitalize() + rng.choice(ENDINGS[kind])
        if name not in taken:
            taken.add(name)
            names.append(name)
    return names


def world(seed: int = 0) -> World:
    """The world of `seed`: every relation functional; mentor, spouse and parent company partial."""
    rng = random.Random(seed)
    taken: set[str] = set()
    names = {kind: _names(rng, kind, count, taken) for kind, count in COUNTS.items()}
    people, pairs = names["person"], {r.name: [] for r in RELATIONS}
    for relation in RELATIONS:
        if relation.name in ("spouse", "capital"):
            continue
        targets = names[relation.target]
        for source in names[relation.source]:
            partial = {"mentor": 0.3, "parent_company": 0.6}.get(relation.name, 0.0)  # share of sources without one
            if partial and rng.random() < partial:
                continue
            target = rng.choice([t for t in targets if t != source])
            pairs[relation.name].append((source, target))
    shuffled = rng.sample(people, len(people))
    for a, b in zip(shuffled[0:len(people) // 2:2], shuffled[1:len(people) // 2:2]):  # a quarter married
        pairs["spouse"] += [(a, b), (b, a)]
    country_of = dict(pairs["country"])
    for country in names["country"]:
        cities = sorted(c for c, k in country_of.items() if k == country)
        if cities:
            pairs["capital"].append((country, rng.choice(cities)))
    return World(names, pairs)


def paths(hops: int = HOPS) -> list[tuple[str, ...]]:
    """Every chain of `hops` relations whose kinds meet, a relation never followed by itself
    where it leads back (spouse, spouse)."""
    chains = [(r.name,) for r in RELATIONS]
    for _ in range(hops - 1):
        chains = [c + (r.name,) for c in chains for r in RELATIONS
                  if BY_NAME[c[-1]].target == r.source and not (r.name == c[-1] == "spouse")]
    return chains


def _possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def wording(start: str, path: tuple[str, ...], form: str) -> str:
    """The question of `path` from `start` in `form` (FORMS)."""
    nouns = [BY_NAME[r].noun for r in path]
    wh = "Who" if BY_NAME[path[-1]].target == "person" else "What"
    if form == "of":
        return f"{wh} is " + " of ".join(f"the {n}" for n in reversed(nouns)) + f" of {start}?"
    if form == "possessive":
        return f"{wh} is " + " ".join(_possessive(n) for n in [start, *nouns[:-1]]) + f" {nouns[-1]}?"
    phrase = start
    for relation in path:
        phrase = BY_NAME[relation].clause.format(phrase)
    return f"{wh} is {phrase}?"


def questions(w: World, count: int, seed: int = 0) -> list[dict]:
    """`count` questions: a path drawn evenly from `paths()`, a start with exactly one end that is
    neither the start nor on the way, the form drawn evenly from FORMS."""
    rng, chains, out, seen = random.Random(seed), paths(), [], set()
    kind_of = {name: kind for kind, names in w.names.items() for name in names}
    while len(out) < count:
        path = rng.choice(chains)
        starts = [n for n in w.names[BY_NAME[path[0]].source]]
        rng.shuffle(starts)
        for start in starts:
            reached = w.ends(start, path)
            on_way = {start, *(n for level in reached[:-1] for n in level)}
            if len(reached[-1]) == 1 and reached[-1][0] not in on_way and (start, path) not in seen:
                break
        else:
            continue
        seen.add((start, path))
        form = FORMS[len(out) % len(FORMS)]
        assert kind_of[reached[-1][0]] == BY_NAME[path[-1]].target
        out.append({"qid": f"world{seed}-{len(out)}", "question": wording(start, path, form), "answer": reached[-1][0],
                    "tier": "multi_hop", "path": ".".join(path), "form": form, "start": start})
    return out


def write(out: Path, *, seed: int, count: int) -> tuple[int, int]:
    """OUT/kb.tsv (subject, relation, object) and OUT/questions.jsonl; (triples, questions)."""
    w = world(seed)
    out.mkdir(parents=True, exist_ok=True)
    triples = w.triples()
    (out / "kb.tsv").write_text("".join(f"{s}\t{r}\t{o}\n" for s, r, o in triples), encoding="utf-8")
    rows = questions(w, count, seed)
    (out / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in rows), encoding="utf-8")
    return len(triples), len(rows)


def build_parser(prog: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog or "python -m glm_dspy.graphs.fresh_world", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True, help="folder to write kb.tsv and questions.jsonl")
    parser.add_argument("--seed", type=int, default=0, help="seed of the world and of its questions (default: 0)")
    parser.add_argument("--questions", type=int, default=150, help="how many questions (default: 150)")
    return parser


def main(argv: list[str] | None = None, *, prog: str | None = None) -> int:
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.questions < 1:
        parser.error("--questions must be at least 1")
    triples, count = write(args.out, seed=args.seed, count=args.questions)
    print(f"wrote {triples:,} triples to {args.out / 'kb.tsv'} and {count} questions to "
          f"{args.out / 'questions.jsonl'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
