"""The command line as a user meets it: exit codes and messages."""

import json
import re
import subprocess
import sys

import pytest

from glm_dspy import cli


def glm(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "glm_dspy.cli", *args], capture_output=True, text=True,
                          input=stdin, timeout=300)


def test_exec_prints_output(nobel_db):
    result = glm("exec", "--db", str(nobel_db), 'print(NodeFeature("l6", "name"))')
    assert result.returncode == 0 and result.stdout.strip() == "Marie Curie"


def test_exec_error_is_nonzero_with_the_error_text(nobel_db):
    result = glm("exec", "--db", str(nobel_db), "x = 1\nprint(1/0)")
    assert result.returncode == 1 and "ZeroDivisionError" in result.stderr and "line 2" in result.stderr


def test_exec_reads_stdin_and_contains_escapes(nobel_db):
    result = glm("exec", "--db", str(nobel_db), "-", stdin="print(().__class__)")
    assert result.returncode == 1 and "Error" in result.stderr


def test_query_prints_rows_and_what_ran(nobel_db):
    result = glm("query", "--db", str(nobel_db),
                 "MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c) RETURN c.name AS city /* x */")
    assert result.returncode == 0 and result.stdout.splitlines() == ["city", "Warsaw"]
    assert "MATCH (l:laureate {name: 'Marie Curie'})-[:rel_birth_city]->(c) RETURN c.name AS city" in result.stderr
    jsonl = glm("query", "--db", str(nobel_db), "--json", "--max-rows", "2", "-",
                stdin="MATCH (l:laureate) RETURN l.name AS name")
    assert jsonl.returncode == 0 and [list(json.loads(line)) for line in jsonl.stdout.splitlines()] == [["name"]] * 2
    assert "only the first 2 were read" in jsonl.stderr


@pytest.mark.parametrize("cypher,reason", [
    ("/*'*/ LOAD FROM '/etc/passwd' RETURN * //'", "LOAD is not allowed"),
    ("MATCH (l:laureate) RETURN l.qx", "Cannot find property qx"),
    # a runaway query meets its time or its memory limit first, by the machine: either is named
    ("MATCH (a)-[*1..10]-(b) RETURN count(*)", r"ran past its (time limit \(1 s\)|memory limit \(512 MiB)"),
])
def test_query_refused_or_failed_exits_1_with_the_reason(nobel_db, cypher, reason):
    result = glm("query", "--db", str(nobel_db), "--timeout", "1", cypher)
    assert result.returncode == 1 and re.search(reason, result.stderr) and not result.stdout
    assert "root:x:0:0" not in result.stderr


def test_build_refuses_to_overwrite_and_unknown_dataset(nobel_db, tmp_path):
    result = glm("build", "nobel", "--db", str(nobel_db))
    assert result.returncode == 2 and "--force" in result.stderr
    result = glm("build", "wikidata", "--db", str(tmp_path / "x"))
    assert result.returncode == 2 and "unknown dataset 'wikidata'" in result.stderr


def test_build_triples(tmp_path, capsys):
    (tmp_path / "kb.tsv").write_text("ada\twrote\tnotes\nnotes\tcites\tmenabrea\n")
    assert cli.main(["build", f"triples:{tmp_path / 'kb.tsv'}", "--db", str(tmp_path / "db")]) == 0
    assert "built triples: 3 nodes, 4 edges" in capsys.readouterr().err
    result = glm("exec", "--db", str(tmp_path / "db"), 'print(NeighbourCheck("notes", "inv_wrote"))')
    assert result.returncode == 0 and result.stdout.strip() == "['ada']"


QUESTIONS = [{"qid": "t1", "question": "When was Notes on the Analytical Engine published?", "answer": "1843"},
             {"qid": "t2", "question": "Who wrote On Bernoulli Numbers?", "answer": "Ada Lovelace",
              "alternatives": ["Ada Lovelace", "Augusta Ada King"]},
             {"qid": "t3", "question": "Which venue published Notes on the Analytical Engine?", "answer": "x"}]


@pytest.fixture
def questions_file(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return path


@pytest.fixture
def wide_console(monkeypatch):
    """Errors on one line, whatever the path lengths (rich wraps at 80 columns off a terminal)."""
    monkeypatch.setattr(cli.console, "width", 10_000)


def test_eval_questions_file_needs_no_dataset(tiny_db, questions_file, tmp_path):
    def asked(*extra):
        args = cli.build_parser().parse_args(["eval", "--questions", str(questions_file), "--db", str(tiny_db), *extra])
        return [q.qid for q in cli.eval_questions(args)]

    assert asked() == ["t1", "t2", "t3"]
    assert asked("--limit", "2") == ["t1", "t2"]
    assert sorted(asked("--shuffle", "--seed", "3")) == ["t1", "t2", "t3"]
    program = tmp_path / "glm.json"
    program.with_suffix(".train.json").write_text(json.dumps({"train_qids": ["t2"]}))
    assert asked("--glm-program", str(program)) == ["t1", "t3"]  # a compiled program's training questions left out


def test_eval_takes_a_dataset_or_a_questions_file_not_both(questions_file, tiny_db, capsys):
    for both_or_neither in (["--dataset", "nobel", "--questions", str(questions_file)], []):
        with pytest.raises(SystemExit) as exit_:
            cli.main(["eval", "--db", str(tiny_db), *both_or_neither])
        assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "argument --questions: not allowed with argument --dataset" in err
    assert "one of the arguments --dataset --questions is required" in err


def test_eval_split_is_passed_to_the_dataset_and_refused_with_a_questions_file(tiny_db, questions_file, wide_console,
                                                                              capsys):
    def asked(*extra):
        args = cli.build_parser().parse_args(["eval", "--db", str(tiny_db), *extra])
        return [q.qid for q in cli.eval_questions(args)]

    assert asked("--dataset", "nobel", "--split", "dev", "--limit", "1") == ["nobel-dev-birth_date-l189"]
    assert asked("--dataset", "nobel", "--split", "train", "--limit", "1")[0].startswith("nobel-train-")
    assert asked("--dataset", "nobel", "--limit", "1") == ["nobel-01-curie_birth_date"]  # no --split: every question
    assert cli.main(["eval", "--questions", str(questions_file), "--split", "dev", "--db", str(tiny_db)]) == 2
    assert "--split dev names a split of a --dataset; " in capsys.readouterr().err
    assert cli.main(["eval", "--dataset", "grbench:dblp", "--split", "dev", "--db", str(tiny_db)]) == 2
    assert "dataset 'grbench' has no dev split" in capsys.readouterr().err


def test_eval_bad_questions_file_is_a_clear_error(tiny_db, tmp_path, wide_console, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"qid": "t1", "question": "q", "answer": "a"}\n{"qid": "t2", "question": "q"}\n')
    assert cli.main(["eval", "--questions", str(bad), "--db", str(tiny_db)]) == 2
    assert f"{bad}:2: not a question record: missing 'answer'" in capsys.readouterr().err
    assert cli.main(["eval", "--questions", str(tmp_path / "none.jsonl"), "--db", str(tiny_db)]) == 2
    assert "none.jsonl: no such question file" in capsys.readouterr().err
    assert cli.main(["eval", "--dataset", "wikidata", "--db", str(tiny_db)]) == 2
    assert "unknown dataset 'wikidata'; use one of: synthetic[:NODES], nobel" in capsys.readouterr().err


def test_eval_questions_file_end_to_end_with_a_scripted_lm(tiny_db, questions_file, tmp_path, monkeypatch, capsys):
    """--questions through to results.jsonl, the LM scripted (the real-model eval is in test_evaluate)."""
    import dspy
    from dspy.utils import DummyLM

    import glm_dspy.configuration

    replies = ["1843", "Augusta Ada King", "Taylor"]  # keyed by question: the judge's prompt holds it too
    lm = DummyLM({q["question"]: {"answer": reply} for q, reply in zip(QUESTIONS, replies)})
    monkeypatch.setattr(glm_dspy.configuration, "configure", lambda model, **server_options: lm)
    with dspy.context(lm=lm):
        code = cli.main(["eval", "--questions", str(questions_file), "--db", str(tiny_db), "--programs", "base",
                         "--model", "scripted", "--judge-model", "scripted", "--out", str(tmp_path / "out")])
    assert code == 0
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [(r["qid"], r["arm"], r["gold"], r["em"]) for r in records] == [
        ("t1", "base", "1843", True), ("t2", "base", "Ada Lovelace", True), ("t3", "base", "x", False)]
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["tokens_ratio"] is None


def test_eval_natural_split_reports_each_kind_and_the_costs(tiny_db, tmp_path, monkeypatch, capsys):
    """--dataset nobel --split natural reads natural_dev.jsonl from GLM_DATA_DIR (a stand-in here: the
    real questions are not shipped in the repository) and reports EM per kind and the costs, the LM scripted."""
    import dspy
    from dspy.utils import DummyLM

    import glm_dspy.configuration

    natural = [{"qid": "nat-1", "kind": "lookup", "question": QUESTIONS[0]["question"], "answer": "1843"},
               {"qid": "nat-2", "kind": "set", "question": QUESTIONS[1]["question"], "answer": "Ada Lovelace"},
               {"qid": "nat-3", "kind": "lookup", "question": QUESTIONS[2]["question"], "answer": "x"}]
    (tmp_path / "data" / "nobel").mkdir(parents=True)
    (tmp_path / "data" / "nobel" / "natural_dev.jsonl").write_text("".join(json.dumps(q) + "\n" for q in natural))
    monkeypatch.setenv("GLM_DATA_DIR", str(tmp_path / "data"))
    replies = ["1843", "Ada Lovelace", "y"]
    lm = DummyLM({q["question"]: {"answer": reply} for q, reply in zip(natural, replies)})
    monkeypatch.setattr(glm_dspy.configuration, "configure", lambda model, **server_options: lm)
    with dspy.context(lm=lm):
        code = cli.main(["eval", "--dataset", "nobel", "--split", "natural", "--db", str(tiny_db), "--programs",
                         "base", "--model", "scripted", "--judge-model", "scripted", "--out", str(tmp_path / "out")])
    assert code == 0
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert [(r["qid"], r["kind"], r["em"]) for r in records] == [("nat-1", "lookup", True), ("nat-2", "set", True),
                                                                  ("nat-3", "lookup", False)]
    out = capsys.readouterr().out
    head = json.loads(out.strip().splitlines()[-1])
    assert {kind: (cell["em"], cell["n"]) for kind, cell in head["em_by_tier"]["base"].items()} == {
        "lookup": (0.5, 2), "set": (1.0, 1)}
    assert head["costs"]["base"]["num_right"] == 2 and head["costs"]["base"]["calls"] == 1.0
    assert "nobel --split natural: 3 questions" in out and "prompt/right" in out


def test_missing_database_is_a_clear_error(tmp_path):
    result = glm("exec", "--db", str(tmp_path / "nope"), "print(1)")
    assert result.returncode == 2 and "glm-dspy build" in result.stderr


def test_demo_retrieval_only(nobel_db):
    result = glm("demo", "--db", str(nobel_db), "--retrieval-only")
    assert result.returncode == 0 and "[Node:l6 " in result.stdout + result.stderr


def test_the_judge_never_needs_a_second_in_process_engine(monkeypatch):
    """Two in-process vLLM engines in one process corrupted the heap; the judge shares the engine or runs elsewhere."""
    import argparse

    import glm_dspy.lm
    import glm_dspy.lm.models

    started = []
    monkeypatch.setattr(glm_dspy.lm, "make_lm", lambda model, server=None, cache=False: started.append((model, server)) or model)
    monkeypatch.setattr(glm_dspy.lm.models, "strongest_fetched_model", lambda: "qwen2.5-coder-1.5b")

    def judge(**given):
        args = argparse.Namespace(**{"model": None, "server": None, "judge_model": None, "judge_server": None, **given})
        return cli._judge(args, "under-test-lm")

    assert judge() == ("qwen2.5-coder-0.5b", "under-test-lm") and started == []  # 1.5B fetched, but no second engine
    with pytest.raises(SystemExit, match="one process runs one vLLM engine; serve the judge"):
        judge(judge_model="qwen2.5-coder-1.5b")
    assert judge(server="http://x") == ("qwen2.5-coder-1.5b", "qwen2.5-coder-1.5b")  # under test elsewhere: judge here
    assert judge(judge_server="http://j") == ("qwen2.5-coder-0.5b", "qwen2.5-coder-0.5b")
    assert started == [("qwen2.5-coder-1.5b", None), ("qwen2.5-coder-0.5b", "http://j")]


@pytest.mark.parametrize("name, content, message", [
    ("q.jsonl", '{"question": "Who?"}\n{"question": "When?"\n', "q.jsonl:2: not JSON"),
    ("q.jsonl", '{"question": "Who?"}\n{"asked": "When?"}\n', 'q.jsonl:2: no "question" string'),
    ("q.txt", "\n  \n", "q.txt: no questions"),
])
def test_batch_questions_file_errors_name_the_file_and_line(tmp_path, tiny_db, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    result = glm("batch", str(path), "--db", str(tiny_db))
    assert result.returncode == 2 and message in " ".join(result.stderr.split()), result.stderr
    assert glm("batch", str(tmp_path / "missing.txt"), "--db", str(tiny_db)).returncode == 2


def test_batch_reads_one_question_a_line_or_jsonl(tmp_path):
    (tmp_path / "q.txt").write_text("Who wrote it?\n\n  When was it published?  \n")
    (tmp_path / "q.jsonl").write_text('{"qid": "a", "question": "Who wrote it?"}\n')
    assert cli.read_batch_questions(tmp_path / "q.txt") == ["Who wrote it?", "When was it published?"]
    assert cli.read_batch_questions(tmp_path / "q.jsonl") == ["Who wrote it?"]
