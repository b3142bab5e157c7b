"""Files and folders: a wrong one is one line, `glm-dspy: error: <what and where>`, never a traceback;
exit 2 when the command line named it, 1 when the command ran and failed (glm_dspy/cli/errors.py)."""

import errno
import os

import pytest

from glm_dspy import cli

AS_ROOT = os.geteuid() == 0  # root reads and writes through any permission bits


@pytest.fixture
def err(monkeypatch, capsys):
    """stderr of the last main() call, on one line whatever the path lengths."""
    monkeypatch.setattr(cli.console, "width", 10_000)
    return lambda: capsys.readouterr().err


def one_error_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("glm-dspy: error: ") and "Traceback" not in text, text
    return lines[0]


@pytest.mark.parametrize("command", [["exec", "print(1)"], ["query", "RETURN 1"], ["ask", "q"], ["demo"],
                                     ["serve"], ["eval", "--dataset", "nobel"]])
def test_db_a_file_or_missing(tmp_path, err, command):
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    assert cli.main([*command, "--db", str(a_file)]) == 2
    assert f"{a_file}: a file, not a database folder" in one_error_line(err())
    assert cli.main([*command, "--db", str(tmp_path / "none")]) == 2
    assert f"{tmp_path / 'none'}: no such database folder; build one with `glm-dspy build" in one_error_line(err())


def test_a_folder_that_is_no_database_is_told_when_opened(tmp_path, err):
    assert cli.main(["exec", "--db", str(tmp_path), "print(1)"]) == 2
    assert "is not a glm-dspy graph database (missing" in one_error_line(err())


def test_question_files_missing_a_folder_or_unreadable(tmp_path, tiny_db, err):
    for command in (["batch", "QUESTIONS"], ["eval", "--questions", "QUESTIONS"]):
        def run(path):
            return cli.main([path if arg == "QUESTIONS" else arg for arg in command] + ["--db", str(tiny_db)])

        assert run(str(tmp_path / "none.txt")) == 2
        assert f"{tmp_path / 'none.txt'}: no such question file" in one_error_line(err())
        assert run(str(tmp_path)) == 2
        assert f"{tmp_path}: a folder, not a question file" in one_error_line(err())


@pytest.mark.skipif(AS_ROOT, reason="root reads a file of mode 000")
def test_an_unreadable_question_file(tmp_path, tiny_db, err):
    path = tmp_path / "q.txt"
    path.write_text("Who?\n")
    path.chmod(0)
    assert cli.main(["batch", str(path), "--db", str(tiny_db)]) == 2
    assert f"{path}: permission denied: the question file cannot be read" in one_error_line(err())


@pytest.mark.skipif(AS_ROOT, reason="root writes into a folder of mode 555")
def test_a_read_only_folder_for_a_new_database(tmp_path, err):
    (tmp_path / "ro").mkdir(mode=0o555)
    assert cli.main(["build", "nobel", "--db", str(tmp_path / "ro" / "db")]) == 2
    assert "permission denied: " in one_error_line(err())


def test_unwritable_outputs_are_refused_before_the_run(tmp_path, tiny_db, monkeypatch, err):
    """Root passes os.access; the check is driven here by a folder it reports unwritable."""
    read_only = tmp_path / "ro"
    read_only.mkdir()
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: False if (mode & os.W_OK and os.fspath(path) ==
                                                                   os.fspath(read_only)) else real_access(path, mode))
    assert cli.main(["build", "nobel", "--db", str(read_only / "db")]) == 2
    assert f"permission denied: {read_only} is not writable, so the database's parent folder" in one_error_line(err())
    assert cli.main(["eval", "--dataset", "nobel", "--db", str(tiny_db), "--out", str(read_only / "out")]) == 2
    assert "is not writable, so the --out folder cannot be written" in one_error_line(err())
    (tmp_path / "q.txt").write_text("Who?\n")
    assert cli.main(["batch", str(tmp_path / "q.txt"), "--db", str(tiny_db), "--journal", str(read_only / "j")]) == 2
    assert "so the --journal file cannot be written" in one_error_line(err())
    assert cli.main(["eval", "--dataset", "nobel", "--db", str(tiny_db), "--out", str(tmp_path / "q.txt")]) == 2
    assert "q.txt: a file, not a folder" in one_error_line(err())
    assert cli.main(["build", "nobel", "--db", str(tmp_path / "q.txt")]) == 2
    assert "q.txt: a file, not a folder; name a folder for the new database" in one_error_line(err())


@pytest.mark.parametrize("error, code, line", [
    (PermissionError(errno.EACCES, "Permission denied", "/data/kb"), 2, "glm-dspy: error: /data/kb: Permission denied"),
    (OSError(errno.EROFS, "Read-only file system", "/mnt/ro/db"), 2,
     "glm-dspy: error: /mnt/ro/db: Read-only file system"),
    (OSError(errno.ENOSPC, "No space left on device", "/data/kb/x"), 1,
     "glm-dspy: error: /data/kb/x: No space left on device"),
    (RuntimeError("the engine died"), 1, "glm-dspy: error: the engine died"),
    (SystemExit("the judge needs a server"), 1, "glm-dspy: error: the judge needs a server"),
])
def test_errors_met_while_running_are_one_line_with_the_right_status(tmp_path, monkeypatch, err, error, code, line):
    import glm_dspy.graphs.build

    def fail(*args, **kwargs):
        raise error

    monkeypatch.setattr(glm_dspy.graphs.build, "build_database", fail)
    assert cli.main(["build", "nobel", "--db", str(tmp_path / "db")]) == code
    assert one_error_line(err()) == line


def test_build_over_a_database_needs_force_and_is_refused_before_the_dataset_loads(tmp_path, monkeypatch, err):
    import glm_dspy.graphs.build

    monkeypatch.setattr(glm_dspy.graphs.build, "build_database", lambda *args, **kwargs: pytest.fail("the build ran"))
    (tmp_path / "db").mkdir()
    (tmp_path / "db" / "meta.json").write_text("{}")
    assert cli.main(["build", "nobel", "--db", str(tmp_path / "db")]) == 2
    assert f"{tmp_path / 'db'} already exists and is not empty; pass --force to replace it" in one_error_line(err())
