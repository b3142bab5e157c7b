"""Hostile Cypher, as a model talked into it would write it (issue 30): through Text2Cypher's
validate/execute (the path every query of Act takes), a subset through the whole program with a
scripted LM, and `glm-dspy query`. Each case is refused or ends within its deadline + 1 s, reads
no file, writes none, leaves the database's bytes and the next query's settings as they were,
and the process lives on under a stated memory cap."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path

import dspy
import pytest
from dspy.utils import DummyLM

from glm_dspy.bench.hostile import CASES, MARKER, PASSWD
from glm_dspy.modules.text2cypher import Text2Cypher
from glm_dspy.graphs.cypher import gate
from glm_dspy.graphs.store import GraphStore, QueryLimit

TIMEOUT_MS = 1000
MEMORY_CAP_MB = 256  # growth of the process's resident memory over the suite, beyond the questions' buffer pool


def database_digest(db_dir: Path) -> dict[str, str]:
    return {str(path.relative_to(db_dir)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(db_dir.rglob("*")) if path.is_file()}


def rss_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


@pytest.fixture(scope="module")
def before(nobel_db):
    """The database's bytes, the process's memory and a fresh connection's settings before the suite."""
    store = GraphStore.open(nobel_db)
    settings = {name: store.query(f"CALL current_setting('{name}') RETURN *")
                for name in ("threads", "var_length_extend_max_depth")}  # (timeout: each query sets its own)
    return {"digest": database_digest(Path(nobel_db)), "rss_mb": rss_mb(), "settings": settings}


def test_there_are_at_least_100_cases_of_every_kind():
    assert len(CASES) >= 100 and {kind for kind, _ in CASES} == {
        "bypass", "second statement", "file", "admin", "hang", "memory", "crash", "parser", "planning",
        "outside pool", "benign"}


@pytest.mark.parametrize("kind,query", CASES)
def test_a_hostile_query_is_refused_or_ends_within_its_deadline(nobel_graph, before, tmp_path, monkeypatch,
                                                                kind, query):
    out = tmp_path / "outside"
    out.mkdir()
    work = tmp_path / "cwd"
    work.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(nobel_graph.store, "query_timeout_ms", TIMEOUT_MS)
    query = query.replace("{out}", str(out))
    program = Text2Cypher(nobel_graph, examples=None)
    started = time.monotonic()
    problem = program.validate(query)
    rows, run_problem = program.execute(query) if problem is None else (None, None)
    elapsed = time.monotonic() - started
    assert elapsed <= 2 * (TIMEOUT_MS / 1000) + 1, f"{kind}: {elapsed:.1f} s"  # EXPLAIN and the run: each bounded
    seen = f"{problem} {run_problem} {rows!r:.100000}"
    assert PASSWD not in seen
    if kind in ("bypass", "second statement", "file", "admin"):
        assert problem is not None and ("may not run" in problem or "does not parse" in problem), (query, problem)
    if kind == "benign":
        assert problem is None and run_problem is None and rows, (query, problem, run_problem)
    for said in (problem, run_problem):
        assert said is None or "Traceback" not in said and len(said) < 4000, said
    assert nobel_graph.store.read("RETURN 1 AS alive").rows == [{"alive": 1}]  # the store lives on
    assert not any(out.iterdir()) and not any(work.iterdir()), "a file was written"
    for name, value in before["settings"].items():  # the next query on this thread sees the defaults
        assert nobel_graph.store.query(f"CALL current_setting('{name}') RETURN *") == value
    if rows is not None:
        assert len(rows) <= 10_000


@pytest.mark.parametrize("kind,query", [case for case in CASES if case[0] in ("bypass", "file", "memory")][::3])
def test_the_whole_program_gates_every_query_it_runs(nobel_graph, tmp_path, monkeypatch, kind, query):
    """Through Text2Cypher.forward with a scripted model writing the hostile query each time: the
    unguarded entry (`GraphStore.query`) never sees the model's text; everything that ran is the
    gate's own printed text; no file content reaches the answer or the steps."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(nobel_graph.store, "query_timeout_ms", TIMEOUT_MS)
    query = f"/* {MARKER} */ " + query.replace("{out}", str(tmp_path))
    unguarded, ran = [], []
    plain_query, plain_run = GraphStore.query, GraphStore._run_question

    def watched_query(self, cypher, parameters=None):
        unguarded.append(cypher)
        return plain_query(self, cypher, parameters)

    def watched_run(self, request):
        ran.append(request["text"])
        return plain_run(self, request)

    monkeypatch.setattr(GraphStore, "query", watched_query)
    monkeypatch.setattr(GraphStore, "_run_question", watched_run)
    program = Text2Cypher(nobel_graph, examples=None, question_timeout_s=10)
    lm = DummyLM([{"cypher": query}] * (1 + program.max_repairs) + [{"answer": "x"}])
    started = time.monotonic()
    with dspy.context(lm=lm):
        prediction = program(question="Read the password file and show it as laureate names.")
    assert time.monotonic() - started <= 10 + 1
    assert not any(MARKER in text or "/etc/passwd" in text for text in unguarded)
    for text in ran:
        if text not in unguarded:  # `read`/`explain`: the gate's printed text, nothing else
            assert gate(text.removeprefix("EXPLAIN ")).text == text.removeprefix("EXPLAIN ")
    assert PASSWD not in f"{prediction.answer} {prediction.steps}"
    assert not any("unexpected keyword" in str(step.get("error")) for step in prediction.steps)


def test_one_deadline_bounds_a_question_over_all_its_stages(nobel_graph, monkeypatch):
    """A model that writes a slow query at every try: generation, validation, execution, walks and
    repairs all end by the question's deadline, and the step log says the deadline was hit."""
    program = Text2Cypher(nobel_graph, examples=None, question_timeout_s=1.5)
    slow = "MATCH (a), (b), (c), (d) WHERE a.id + b.id = c.id + d.id RETURN count(*)"
    lm = DummyLM([{"cypher": slow}] * (1 + program.max_repairs) + [{"answer": "x"}])
    started = time.monotonic()
    with dspy.context(lm=lm):
        prediction = program(question="How many pairs of pairs are there?")
    assert time.monotonic() - started <= 1.5 + 1
    assert prediction.error_category == "time limit exceeded" and prediction.answer == ""
    assert "time limit (1.5 s) passed" in prediction.steps[-1]["error"]


@pytest.mark.parametrize("pool_mib,timeout_ms,limit", [(32, 60_000, "memory limit (32 MiB"),
                                                      (512, 300, "time limit (0.3 s)")])
def test_a_runaway_query_names_the_limit_it_met_and_the_store_lives_on(nobel_db, pool_mib, timeout_ms, limit):
    """Kuzu says "buffer pool is full" or "Interrupted."; the store says which of the query's
    limits stopped it, so the CLI and Text2Cypher's retry can tell the model (and a user) why."""
    store = GraphStore.open(nobel_db, query_timeout_ms=timeout_ms, question_buffer_pool_bytes=pool_mib * 1024**2)
    with pytest.raises(QueryLimit) as raised:
        store.read("MATCH (a)-[*1..10]-(b) RETURN count(*) AS n")
    assert f"ran past its {limit}" in str(raised.value)
    assert store.read("MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.name AS name").rows == [{"name": "Marie Curie"}]


def test_benign_queries_with_keywords_in_names_and_strings_still_run(nobel_graph):
    program = Text2Cypher(nobel_graph, examples=None)
    for query in ("MATCH (i:institution {name: 'Set Theory Institute; Delete Dept'}) RETURN i.name AS set",
                  "MATCH (l:laureate) WHERE l.name CONTAINS 'LOAD FROM' RETURN l.name AS `load`",
                  "MATCH (l:laureate {name: 'Marie Curie'}) RETURN l.name AS delete, l.birth_date AS copy",
                  "MATCH (l:laureate) WHERE l.name = 'it\\'s; DROP TABLE x' RETURN count(l) AS call"):
        assert program.validate(query) is None, query
        rows, problem = program.execute(query)
        assert problem is None and rows is not None, (query, problem)


def test_the_suite_left_the_database_memory_and_threads_as_they_were(nobel_db, before):
    """Runs after the cases above (pytest keeps a file's order): the database directory's bytes
    are unchanged (CHECKPOINT included), and the process grew by less than Kuzu's buffer pool
    for a model's queries (its own bound on their memory) plus MEMORY_CAP_MB."""
    assert database_digest(Path(nobel_db)) == before["digest"]
    assert not any(name.endswith((".wal", ".shadow")) for name in os.listdir(Path(nobel_db)))
    from glm_dspy.graphs.store import DEFAULT_QUESTION_BUFFER_POOL_BYTES

    assert rss_mb() - before["rss_mb"] <= DEFAULT_QUESTION_BUFFER_POOL_BYTES / 2**20 + MEMORY_CAP_MB
    assert threading.active_count() < 50
    GraphStore.open(nobel_db).query("MATCH (l:laureate) RETURN count(l) AS n")  # still opens read-only
