"""`check_database_dir`: whether a path can be a built database folder, told by stat alone.

Nothing here opens a file: opening a named pipe blocks until a writer comes (forever), opening a
device may read without end, and Kuzu writes beside a file it opens writable. So the folder and
each file `glm-dspy build` writes (graphs/load.py) are looked at with os.stat / os.lstat only:
the folder must be a folder (a symlink to one is followed), each required file a regular file (a
symlink to a regular file is followed; one to nothing, to a folder, a pipe, a socket or a device
is refused), each optional one (the search index, the Cypher examples) of the right kind where it
is present, and all of them readable by this process. graphs/ knows nothing of the CLI: the error
is this module's own and says what is wrong, where, and what to do.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# the names graphs/store.py and graphs/load.py write (store.DB_FILE, META_FILE, ID_INDEX_FILE;
# node_index.INDEX_DIR; cypher_examples.FILE_NAME): kept here so that this module imports nothing
# (tests/test_cli_db_path.py pins them to those)
REQUIRED_FILES = ("graph.kuzu", "meta.json", "id_index.npz")
OPTIONAL_FILES = ("text2cypher_examples.jsonl", "node_index/index.faiss", "node_index/ids.npy",
                  "node_index/index.json")
OPTIONAL_DIRS = ("node_index",)


class DatabasePathError(ValueError):
    """A path given as a database folder is not one `glm-dspy build` made (a usage error: the
    user names another folder or builds one)."""


def check_database_dir(db_dir: str | os.PathLike) -> None:
    """Raise DatabasePathError unless `db_dir` is a readable folder holding the required files,
    each a regular file, and the optional ones, where present, of their kind. Opens nothing."""
    db_dir = Path(db_dir)
    build = f"build one with `glm-dspy build DATASET --db {db_dir}`"
    mode = _mode(db_dir, build)
    if mode is None:
        raise DatabasePathError(f"{db_dir}: no such database folder; {build}")
    if not stat.S_ISDIR(mode):
        raise DatabasePathError(f"{db_dir}: {_kind(db_dir, mode)}, not a database folder; pass the folder "
                                f"`glm-dspy build` made, or {build}")
    if not os.access(db_dir, os.R_OK | os.X_OK):
        raise DatabasePathError(f"{db_dir}: permission denied: the database folder cannot be read")
    for name in REQUIRED_FILES + OPTIONAL_DIRS + OPTIONAL_FILES:  # a folder before the files in it
        path = db_dir / name
        is_dir = name in OPTIONAL_DIRS
        mode = _mode(path, build)
        if mode is None:
            if name in REQUIRED_FILES:
                raise DatabasePathError(f"{db_dir} is not a glm-dspy graph database (missing {name}); {build}")
            continue
        if not (stat.S_ISDIR(mode) if is_dir else stat.S_ISREG(mode)):
            wanted = "a folder" if is_dir else "a regular file"
            raise DatabasePathError(f"{path} is {_kind(path, mode)}, not {wanted} as `glm-dspy build` writes it; "
                                    f"{build}")
        if not os.access(path, os.R_OK | (os.X_OK if is_dir else 0)):
            raise DatabasePathError(f"{path}: permission denied: the database cannot be read")


def _mode(path: Path, build: str) -> int | None:
    """The mode of what `path` names, symlinks followed; None where nothing is there. A symlink
    to nothing is an error of its own (it looks missing, but something is in the way)."""
    try:
        return os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            raise DatabasePathError(f"{path} is a symlink to {os.readlink(path)}, which does not exist; "
                                    f"{build}") from None
        return None
    except NotADirectoryError:  # a parent along the path is a file
        return None
    except OSError as error:  # a loop of symlinks, a name too long, permission on a parent
        raise DatabasePathError(f"{path}: cannot be looked at ({error.strerror})") from None


def _kind(path: Path, mode: int) -> str:
    """What `mode` is, in words, and where a symlink led."""
    kind = ("a folder" if stat.S_ISDIR(mode) else "a file" if stat.S_ISREG(mode)
            else "a named pipe" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file")
    return f"a symlink to {kind} ({os.readlink(path)})" if os.path.islink(path) else kind
