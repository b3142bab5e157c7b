"""The command line as a user meets it: exit codes and messages."""

import subprocess
import sys


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


def test_build_refuses_to_overwrite_and_unknown_dataset(nobel_db, tmp_path):
    result = glm("build", "nobel", "--db", str(nobel_db))
    assert result.returncode == 2 and "--force" in result.stderr
    result = glm("build", "wikidata", "--db", str(tmp_path / "x"))
    assert result.returncode == 2 and "unknown dataset 'wikidata'" in result.stderr


def test_missing_database_is_a_clear_error(tmp_path):
    result = glm("exec", "--db", str(tmp_path / "nope"), "print(1)")
    assert result.returncode == 2 and "glm-dspy build" in result.stderr


def test_demo_retrieval_only(nobel_db):
    result = glm("demo", "--db", str(nobel_db), "--retrieval-only")
    assert result.returncode == 0 and "[Node:l6 " in result.stdout + result.stderr
