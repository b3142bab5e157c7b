"""`glm-dspy query` on hostile input (issue 47): each case is one line and exit 1 or 2, never a
traceback or a hang, within its time, and the database's bytes stay as they were."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GLM = [sys.executable, "-m", "glm_dspy.cli"]


def digest(db_dir: Path) -> str:
    return hashlib.sha256(b"".join(path.name.encode() + path.read_bytes()
                                   for path in sorted(db_dir.rglob("*")) if path.is_file())).hexdigest()


def run(args: list, stdin: bytes | None = None) -> tuple[int, str]:
    done = subprocess.run(GLM + args, input=stdin, capture_output=True, timeout=120,
                          env=os.environ | {"COLUMNS": "500"})
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace").strip()


@pytest.mark.parametrize("args,stdin,code,said", [
    (["query", "RETURN 1 AS x", "--timeout", "1e308"], None, 2, "at most 86,400 seconds"),
    (["query", os.fsdecode(b"RETURN '\xed\xa0\x80' AS x")], None, 2, "argument cypher: not UTF-8 text (byte 8"),
    (["query", "-"], b"RETURN \xff AS x", 2, "stdin is not UTF-8 text (byte 7"),
    (["exec", "-"], b"print(1)\xed\xa0\x80", 2, "stdin is not UTF-8 text (byte 8"),
    (["exec", os.fsdecode(b"print('\xff')")], None, 2, "argument code: not UTF-8 text (byte 7"),
    (["ask", os.fsdecode(b"Who won in \xc3?")], None, 2, "argument question: not UTF-8 text (byte 11"),
    (["exec", "print(1)", "--timeout", "inf"], None, 2, "must be a number of seconds above 0"),
    (["query", "RETURN 1 AS x", "--timeout", "nan"], None, 2, "must be a number of seconds above 0"),
    (["query", "RETURN 1 AS x", "--timeout", "86401"], None, 2, "at most 86,400 seconds"),
    (["query", "RETURN '\\ud800' AS x"], None, 1, "not Unicode text"),
    (["query", "RETURN " + "({x: " * 16 + "1" + "})" * 16 + " AS v"], None, 0, "1 row(s)"),
    (["query", "RETURN date('10000-01-01') AS d"], None, 1, "crashes Kuzu 0.11.3"),
    (["query", "WITH 1 AS set RETURN set"], None, 0, "1 row(s)"),
])
def test_hostile_query_text_is_one_line_and_the_database_is_untouched(nobel_db, args, stdin, code, said):
    before = digest(nobel_db)
    returned, output = run(args + ["--db", str(nobel_db)], stdin)
    assert returned == code and said in output and "Traceback" not in output, output
    lines = output.splitlines()
    if code == 1 or code == 2 and not lines[0].startswith("usage:"):  # (argparse: its usage, then its error)
        assert len(lines) == 1, output
    assert digest(nobel_db) == before


def test_a_database_whose_file_is_a_named_pipe_is_one_clear_error_not_a_hang(nobel_db, tmp_path):
    for name in ("meta.json", "id_index.npz"):
        shutil.copy(nobel_db / name, tmp_path / name)
    os.mkfifo(tmp_path / "graph.kuzu")
    returned, output = run(["query", "RETURN 1 AS x", "--db", str(tmp_path)])
    assert returned == 2 and "graph.kuzu is a named pipe" in output.splitlines()[-1], output


def test_a_database_file_that_is_a_folder_or_a_db_that_is_a_file_is_refused(nobel_db, tmp_path):
    for name in ("meta.json", "id_index.npz"):
        shutil.copy(nobel_db / name, tmp_path / name)
    (tmp_path / "graph.kuzu").mkdir()
    returned, output = run(["query", "RETURN 1 AS x", "--db", str(tmp_path)])
    assert returned == 2 and "graph.kuzu is a folder" in output, output
    returned, output = run(["query", "RETURN 1 AS x", "--db", str(tmp_path / "meta.json")])
    assert returned == 2 and "not a database folder" in output, output
