"""graphs/fresh_world.py: a made-up world as triples with 3-hop questions whose answers the
triples themselves give."""

from __future__ import annotations

import json
from collections import Counter

from glm_dspy.graphs import fresh_world
from glm_dspy.graphs.fresh_world import BY_NAME, FORMS, HOPS, paths, questions, world, wording
from glm_dspy.graphs.triples import triples_graph


def _walk(triples, start, path):
    frontier = {start}
    for relation in path:
        frontier = {o for s, r, o in triples if r == relation and s in frontier}
    return frontier


def test_the_same_seed_gives_the_same_world_and_questions_and_another_seed_another():
    assert world(3).triples() == world(3).triples() and world(3).triples() != world(4).triples()
    assert questions(world(3), 12, 3) == questions(world(3), 12, 3)


def test_each_answer_is_the_one_end_of_its_path_and_not_a_node_on_the_way():
    w = world(0)
    triples = w.triples()
    names = [n for kind in w.names.values() for n in kind]
    assert len(names) == len(set(names))  # a name is one thing
    rows = questions(w, 60, 0)
    assert Counter(r["form"] for r in rows) == {form: 20 for form in FORMS}
    for row in rows:
        path = tuple(row["path"].split("."))
        assert len(path) == HOPS and _walk(triples, row["start"], path) == {row["answer"]}
        assert row["start"] in row["question"] and row["answer"] not in row["question"]
        on_way = set().union(*(_walk(triples, row["start"], path[:i]) for i in range(HOPS)))
        assert row["answer"] not in on_way


def test_the_three_wordings_say_one_path():
    path = ("founder", "hometown", "country")
    assert wording("Acme Works", path, "of") == "What is the country of the hometown of the founder of Acme Works?"
    assert wording("Acme Works", path, "possessive") == "What is Acme Works' founder's hometown's country?"
    assert wording("Acme Works", path, "clause") == ("What is the country that contains the city that is home to "
                                                     "the person who founded Acme Works?")
    assert all(BY_NAME[a].target == BY_NAME[b].source for p in paths() for a, b in zip(p, p[1:]))


def test_the_command_writes_a_triples_file_the_build_reads_and_its_questions(tmp_path, capsys):
    assert fresh_world.main(["--out", str(tmp_path), "--seed", "1", "--questions", "9"]) == 0
    rows = [json.loads(line) for line in (tmp_path / "questions.jsonl").read_text().splitlines()]
    graph = triples_graph(tmp_path / "kb.tsv")
    assert len(rows) == 9 and sum(t.table.num_rows for t in graph.nodes.values()) == len(
        {n for s, _, o in world(1).triples() for n in (s, o)})
    assert "9 questions" in capsys.readouterr().err
