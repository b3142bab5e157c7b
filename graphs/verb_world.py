"""A seeded made-up graph whose relations are named by verbs, with dates and numbers, and
questions over it with their answers: a graph nobody tuned the readings to, for measuring them.

    python -m glm_dspy.graphs.verb_world --out /tmp/verbs --seed 0
    glm-dspy build csv:/tmp/verbs/graph --db /tmp/verbs/db
    python -m glm_dspy.bench.readings --questions /tmp/verbs/questions.jsonl --db /tmp/verbs/db

Why: the Nobel graph's relations are nouns (mentor, prize), the world graph's verbs and
prepositions (BORDERS, IN_COUNTRY); a reading that assumes nouns ("the BORDERS of X") fails
here first. People DIRECTED and ACTED_IN films, FOUNDED and WORK_FOR companies, FOLLOW one
another and LIVE_IN cities; companies are HEADQUARTERED_IN cities, films FILMED_IN them. People
have birth dates, films release dates, companies founding dates and staff, cities populations.

The questions (`QUESTIONS`: one wording each, general English) ask what users ask of such a
graph: a relation by its verb, both ways; a date, its year; an age at an event; the years
between two events; which of two is older or larger; a count; two hops; the largest or the
smallest by a number, the second, the top three (asked last: the shapes before are the same for
a seed as before these were added). Each answer is
computed from the generated tables, so every question has exactly one right answer (a list's
items in any order). The tables are CSV in `glm-dspy build csv:`'s layout (nodes/<Type>.csv,
edges/<RELATION>.csv, graph.toml).
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import random
import sys
from pathlib import Path

ONSETS = "b br d dr f g gr k kr l m n p pr r s st t tr v z sh".split()
VOWELS = "a e i o u ai ei ou".split()
CODAS = "n r l s th m nd rk".split()
PEOPLE, FILMS, COMPANIES, CITIES = 120, 80, 30, 20


def _word(rng: random.Random, parts: int) -> str:
    return "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + (rng.choice(CODAS) if rng.random() < 0.5 else "")
                   for _ in range(parts)).capitalize()


def _names(rng: random.Random, count: int, make) -> list[str]:
    names: list[str] = []
    while len(names) < count:
        name = make()
        if name not in names:
            names.append(name)
    return names


def _date(rng: random.Random, first: int, last: int) -> dt.date:
    return dt.date(first, 1, 1) + dt.timedelta(days=rng.randrange((dt.date(last, 12, 31) - dt.date(first, 1, 1)).days))


def generate(seed: int) -> tuple[dict, dict]:
    """(nodes: type -> rows, edges: relation -> [(source id, target id)])."""
    rng = random.Random(seed)
    people = _names(rng, PEOPLE, lambda: f"{_word(rng, 2)} {_word(rng, 2)}")
    films = _names(rng, FILMS, lambda: f"The {_word(rng, 2)} {rng.choice(['Affair', 'Road', 'Winter', 'Garden', 'Signal'])}")
    companies = _names(rng, COMPANIES, lambda: f"{_word(rng, 2)} {rng.choice(['Works', 'Labs', 'Studios', 'Group'])}")
    cities = _names(rng, CITIES, lambda: _word(rng, 3))
    nodes = {
        "Person": [{"id": f"person_{i}", "name": n, "born_on": _date(rng, 1930, 1990).isoformat()}
                   for i, n in enumerate(people)],
        "City": [{"id": f"city_{i}", "name": n, "population": rng.randrange(20_000, 5_000_000)}
                 for i, n in enumerate(cities)],
    }
    edges: dict[str, list[tuple[str, str]]] = {r: [] for r in ("DIRECTED", "ACTED_IN", "FOUNDED", "WORKS_FOR", "FOLLOWS",
                                                              "LIVES_IN", "HEADQUARTERED_IN", "FILMED_IN")}
    born = {p["id"]: dt.date.fromisoformat(p["born_on"]) for p in nodes["Person"]}
    nodes["Company"], nodes["Film"] = [], []
    for i, name in enumerate(companies):
        founder = rng.choice(nodes["Person"])["id"]
        founded = born[founder] + dt.timedelta(days=rng.randrange(20 * 365, 50 * 365))
        nodes["Company"].append({"id": f"company_{i}", "name": name, "founded_on": founded.isoformat(),
                                 "employees": rng.randrange(5, 20_000)})
        edges["FOUNDED"].append((founder, f"company_{i}"))
        edges["HEADQUARTERED_IN"].append((f"company_{i}", rng.choice(nodes["City"])["id"]))
    for i, name in enumerate(films):
        director = rng.choice(nodes["Person"])["id"]
        released = born[director] + dt.timedelta(days=rng.randrange(25 * 365, 60 * 365))
        nodes["Film"].append({"id": f"film_{i}", "name": name, "released_on": released.isoformat()})
        edges["DIRECTED"].append((director, f"film_{i}"))
        for actor in rng.sample([p["id"] for p in nodes["Person"] if p["id"] != director], rng.randrange(2, 5)):
            edges["ACTED_IN"].append((actor, f"film_{i}"))
        edges["FILMED_IN"].append((f"film_{i}", rng.choice(nodes["City"])["id"]))
    for person in nodes["Person"]:
        edges["LIVES_IN"].append((person["id"], rng.choice(nodes["City"])["id"]))
        if rng.random() < 0.7:
            edges["WORKS_FOR"].append((person["id"], rng.choice(nodes["Company"])["id"]))
        for other in rng.sample(nodes["Person"], rng.randrange(0, 4)):
            if other["id"] != person["id"]:
                edges["FOLLOWS"].append((person["id"], other["id"]))
    for relation in edges:
        edges[relation] = sorted(set(edges[relation]))
    return nodes, edges


def _age(birth: dt.date, at: dt.date) -> int:
    return at.year - birth.year - ((at.month, at.day) < (birth.month, birth.day))


def questions(nodes: dict, edges: dict, seed: int, per_shape: int = 6) -> list[dict]:
    """Questions with one right answer each, `per_shape` of each shape (module doc)."""
    rng = random.Random(seed + 1)
    name = {row["id"]: row["name"] for rows in nodes.values() for row in rows}
    row = {r["id"]: r for rows in nodes.values() for r in rows}
    out: dict[str, dict[str, list[str]]] = {}
    into: dict[str, dict[str, list[str]]] = {}
    for relation, pairs in edges.items():
        for s, t in pairs:
            out.setdefault(relation, {}).setdefault(s, []).append(t)
            into.setdefault(relation, {}).setdefault(t, []).append(s)
    date = lambda node, feature: dt.date.fromisoformat(row[node][feature])  # noqa: E731
    found: list[dict] = []

    def add(kind: str, question: str, answer: list[str] | str) -> None:
        answers = [answer] if isinstance(answer, str) else sorted(answer)
        found.append({"qid": f"verbs{seed}-{len(found)}", "kind": kind, "question": question,
                      "answer": ", ".join(answers)})

    def pick(ids: list[str], keep) -> list[str]:
        chosen = [i for i in ids if keep(i)]
        rng.shuffle(chosen)
        return chosen[:per_shape]

    films, people = [f["id"] for f in nodes["Film"]], [p["id"] for p in nodes["Person"]]
    companies, cities = [c["id"] for c in nodes["Company"]], [c["id"] for c in nodes["City"]]
    for f in pick(films, lambda f: True):
        add("verb", f"Who directed {name[f]}?", name[into["DIRECTED"][f][0]])
    for p in pick(people, lambda p: len(out["DIRECTED"].get(p, [])) >= 1):
        add("verb", f"Which films did {name[p]} direct?", [name[f] for f in out["DIRECTED"][p]])
    for p in pick(people, lambda p: 1 <= len(out["FOLLOWS"].get(p, [])) <= 3):
        add("verb", f"Who does {name[p]} follow?", [name[o] for o in out["FOLLOWS"][p]])
    for c in pick(companies, lambda c: True):
        add("verb", f"In which city is {name[c]} headquartered?", name[out["HEADQUARTERED_IN"][c][0]])
    for p in pick(people, lambda p: True):
        add("time", f"In what year was {name[p]} born?", str(date(p, "born_on").year))
    for f in pick(films, lambda f: True):
        add("time", f"When was {name[f]} released?", row[f]["released_on"])
    for c in pick(companies, lambda c: True):
        founder = into["FOUNDED"][c][0]
        add("compute", f"How old was {name[founder]} when {name[c]} was founded?",
            str(_age(date(founder, "born_on"), date(c, "founded_on"))))
    for a, b in [tuple(rng.sample(films, 2)) for _ in range(per_shape)]:
        first, second = sorted((a, b), key=lambda f: row[f]["released_on"])
        years = date(second, "released_on").year - date(first, "released_on").year
        add("compute", f"How many years after {name[first]} was {name[second]} released?",
            str(years - ((date(second, 'released_on').month, date(second, 'released_on').day)
                         < (date(first, 'released_on').month, date(first, 'released_on').day))))
    for a, b in [tuple(rng.sample(people, 2)) for _ in range(per_shape)]:
        if row[a]["born_on"] != row[b]["born_on"]:
            add("compute", f"Who is older, {name[a]} or {name[b]}?", name[min((a, b), key=lambda p: row[p]["born_on"])])
    for a, b in [tuple(rng.sample(cities, 2)) for _ in range(per_shape)]:
        add("compute", f"Which city has more people, {name[a]} or {name[b]}?",
            name[max((a, b), key=lambda c: row[c]["population"])])
    for p in pick(people, lambda p: len(out["ACTED_IN"].get(p, [])) >= 1):
        add("count", f"How many films has {name[p]} acted in?", str(len(out["ACTED_IN"][p])))
    for f in pick(films, lambda f: into["DIRECTED"][f][0] in out["WORKS_FOR"]):
        director = into["DIRECTED"][f][0]
        add("multi_hop", f"Which company does the director of {name[f]} work for?",
            [name[c] for c in out["WORKS_FOR"][director]])
    # superlatives by a number (asked last, so the shapes above stay as they were for every seed)
    staff = lambda c: row[c]["employees"]  # noqa: E731
    for c in pick(cities, lambda c: len(into["HEADQUARTERED_IN"].get(c, [])) >= 2):
        add("rank", f"Which company headquartered in {name[c]} has the most employees?",
            name[max(into["HEADQUARTERED_IN"][c], key=staff)])
    for c in pick(cities, lambda c: len(into["HEADQUARTERED_IN"].get(c, [])) >= 3):
        add("rank", f"Which company in {name[c]} has the second most employees?",
            name[sorted(into["HEADQUARTERED_IN"][c], key=staff, reverse=True)[1]])
    shot = lambda p: {out["FILMED_IN"][f][0] for f in out["DIRECTED"].get(p, [])}  # noqa: E731
    for p in pick(people, lambda p: len(shot(p)) >= 2):
        add("rank", f"Of the cities {name[p]}'s films were filmed in, which has the largest population?",
            name[max(shot(p), key=lambda c: row[c]["population"])])
    add("rank", "Which company has the fewest employees?", name[min(companies, key=staff)])
    add("rank", "Name the three most populous cities.",
        [name[c] for c in sorted(cities, key=lambda c: row[c]["population"], reverse=True)[:3]])
    return found


def write(out_dir: Path, seed: int) -> tuple[int, int, int]:
    nodes, edges = generate(seed)
    graph = out_dir / "graph"
    (graph / "nodes").mkdir(parents=True, exist_ok=True)
    (graph / "edges").mkdir(parents=True, exist_ok=True)
    for type_name, rows in nodes.items():
        with (graph / "nodes" / f"{type_name}.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    for relation, pairs in edges.items():
        with (graph / "edges" / f"{relation}.csv").open("w", newline="", encoding="utf-8") as handle:
            writer = csv.writer(handle)
            writer.writerow(["source", "target"])
            writer.writerows(pairs)
    (graph / "graph.toml").write_text('[nodes.City]\ntypes = { population = "INT64" }\n\n'
                                      '[nodes.Company]\ntypes = { employees = "INT64" }\n', encoding="utf-8")
    found = questions(nodes, edges, seed)
    (out_dir / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in found), encoding="utf-8")
    return sum(map(len, nodes.values())), sum(map(len, edges.values())), len(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m glm_dspy.graphs.verb_world", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="the folder to write graph/ and questions.jsonl into")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    num_nodes, num_edges, num_questions = write(Path(args.out), args.seed)
    print(f"{num_nodes} nodes, {num_edges} edges, {num_questions} questions -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
