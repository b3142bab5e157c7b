"""`--db` that is not a database folder `glm-dspy build` made (issue 47): through `glm-dspy query`,
each is exit 2 and one line naming the path and what it is, never a traceback, a hang (a named
pipe in place of a file blocks whoever opens it) or a write; the folder's entries stay as they
were. The check is graphs/db_path.py's, by stat alone."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from glm_dspy.graphs.db_path import DatabasePathError, check_database_dir

GLM = [sys.executable, "-m", "glm_dspy.cli"]
HANG_GUARD_S = 120  # the refusal comes before kuzu is imported; this bound only catches a hang


def entries(folder: Path) -> str:
    """Every entry under `folder` (symlinks not followed): its path, kind, link target and, for a
    regular file, its bytes. Nothing here opens a pipe, a socket or a device."""
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(folder, followlinks=False):
        for name in sorted(dirs + files):
            path = Path(root) / name
            mode = os.lstat(path).st_mode
            digest.update(f"{path.relative_to(folder)}:{stat.S_IFMT(mode)}".encode())
            if stat.S_ISLNK(mode):
                digest.update(os.readlink(path).encode())
            elif stat.S_ISREG(mode):
                digest.update(path.read_bytes())
    return digest.hexdigest()


def query(db: Path) -> tuple[int, str]:
    done = subprocess.run(GLM + ["query", "RETURN 1 AS x", "--db", str(db)], capture_output=True,
                          timeout=HANG_GUARD_S, env=os.environ | {"COLUMNS": "500"}, stdin=subprocess.DEVNULL)
    return done.returncode, (done.stdout + done.stderr).decode("utf-8", "replace").strip()


def database_copy(nobel_db: Path, folder: Path) -> Path:
    """A copy of the built database's small files; graph.kuzu an empty file (never opened here)."""
    folder.mkdir()
    for name in ("meta.json", "id_index.npz", "text2cypher_examples.jsonl"):
        shutil.copy(nobel_db / name, folder / name)
    shutil.copytree(nobel_db / "node_index", folder / "node_index")
    (folder / "graph.kuzu").write_bytes(b"")
    return folder


def replace(path: Path, how) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    how(path)


def unix_socket(path: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays


def link_to_a_pipe(path: Path) -> None:
    os.mkfifo(path.parent.parent / "fifo")
    path.symlink_to(path.parent.parent / "fifo")


CASES = {  # what takes the place of a database file -> what the message says
    "graph_pipe": ("graph.kuzu", os.mkfifo, "graph.kuzu is a named pipe, not a regular file"),
    "meta_pipe": ("meta.json", os.mkfifo, "meta.json is a named pipe"),
    "graph_link_to_pipe": ("graph.kuzu", link_to_a_pipe, "graph.kuzu is a symlink to a named pipe"),
    "graph_link_to_device": ("graph.kuzu", lambda p: p.symlink_to("/dev/zero"), "a symlink to a device (/dev/zero)"),
    "graph_socket": ("graph.kuzu", unix_socket, "graph.kuzu is a socket"),
    "graph_dangling_link": ("graph.kuzu", lambda p: p.symlink_to(p.parent / "gone"), "which does not exist"),
    "graph_link_loop": ("graph.kuzu", lambda p: p.symlink_to(p), "cannot be looked at"),
    "index_folder": ("id_index.npz", Path.mkdir, "id_index.npz is a folder, not a regular file"),
    "examples_pipe": ("text2cypher_examples.jsonl", os.mkfifo, "text2cypher_examples.jsonl is a named pipe"),
    "node_index_file": ("node_index", lambda p: p.write_bytes(b""), "node_index is a file, not a folder"),
    "faiss_pipe": ("node_index/index.faiss", os.mkfifo, "index.faiss is a named pipe"),
    "meta_missing": ("meta.json", lambda p: None, "missing meta.json"),
}


@pytest.mark.parametrize("case", CASES)
def test_a_database_file_of_the_wrong_kind_is_one_line_exit_2_and_nothing_changes(nobel_db, tmp_path, case):
    name, how, said = CASES[case]
    db = database_copy(nobel_db, tmp_path / "db")
    replace(db / name, how)
    with pytest.raises(DatabasePathError, match=re.escape(said)):
        check_database_dir(db)
    before = entries(tmp_path)
    returned, output = query(db)
    assert returned == 2 and output.startswith("glm-dspy: error:") and said in output, output
    assert len(output.splitlines()) == 1 and "Traceback" not in output, output
    assert entries(tmp_path) == before


@pytest.mark.parametrize("case,said", [
    ("a_file", "file: a file, not a database folder"),
    ("a_link_to_a_file", "link: a symlink to a file ("),
    ("a_pipe", "pipe: a named pipe, not a database folder"),
    ("a_device", "/dev/null: a device, not a database folder"),
    ("missing", "no such database folder"),
    ("under_a_file", "no such database folder"),
])
def test_a_db_that_is_not_a_folder_is_one_line_exit_2(nobel_db, tmp_path, case, said):
    (tmp_path / "file").write_bytes(b"not a database")
    db = {"a_file": tmp_path / "file", "a_device": Path("/dev/null"), "missing": tmp_path / "missing",
          "a_link_to_a_file": tmp_path / "link", "a_pipe": tmp_path / "pipe", "under_a_file": tmp_path / "file" / "db"}[case]
    if case == "a_link_to_a_file":
        db.symlink_to(tmp_path / "file")
    if case == "a_pipe":
        os.mkfifo(db)
    before = entries(tmp_path)
    returned, output = query(db)
    assert returned == 2 and said in output and len(output.splitlines()) == 1 and "Traceback" not in output, output
    assert entries(tmp_path) == before


def test_a_symlink_to_a_database_folder_is_a_database(nobel_db, tmp_path):
    (tmp_path / "db").symlink_to(nobel_db)
    before = entries(nobel_db)
    check_database_dir(tmp_path / "db")
    returned, output = query(tmp_path / "db")
    assert returned == 0 and "1 row(s)" in output, output
    assert entries(nobel_db) == before


def test_the_names_checked_are_the_names_a_build_writes():
    from glm_dspy.graphs.cypher_examples import FILE_NAME
    from glm_dspy.graphs.db_path import OPTIONAL_DIRS, OPTIONAL_FILES, REQUIRED_FILES
    from glm_dspy.graphs.node_index import INDEX_DIR
    from glm_dspy.graphs.store import DB_FILE, ID_INDEX_FILE, META_FILE

    assert REQUIRED_FILES == (DB_FILE, META_FILE, ID_INDEX_FILE)
    assert OPTIONAL_DIRS == (INDEX_DIR,) and FILE_NAME in OPTIONAL_FILES
    assert {name.split("/")[0] for name in OPTIONAL_FILES} == {FILE_NAME, INDEX_DIR}
