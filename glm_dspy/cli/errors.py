"""How `glm-dspy` fails: one line, `glm-dspy: error: <what and where>`, and an exit status that says whose it is.

Exit 2 (USAGE): the command as given cannot run: an argument, a name (a dataset, an arm, a model) or a
file or folder it names is wrong (missing, of the wrong kind, unreadable or unwritable, malformed).
The user fixes the command line or the file. Exit 1 (RUNTIME): the command ran and failed (a query
refused, a snippet's error, no answer, the engine lost, a download failed). Exit 0: it did its job.
A traceback is a bug in glm-dspy, never how a user's mistake is told.
"""

from __future__ import annotations

import errno

from rich.console import Console
from rich.markup import escape

USAGE, RUNTIME = 2, 1

# errors of a file or folder the user named; any other OSError (a full disk, an I/O error) is RUNTIME
USAGE_OS_ERRORS = (FileNotFoundError, FileExistsError, NotADirectoryError, IsADirectoryError, PermissionError)
USAGE_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EISDIR, errno.EEXIST, errno.EACCES, errno.EPERM,
                          errno.EROFS, errno.ENAMETOOLONG})


class UsageError(Exception):
    """The command line names something that cannot work; the message says what, where and what to do."""


def exit_code(error: BaseException) -> int:
    """USAGE for the user's own mistakes (UsageError, ValueError, a file the user named, a folder that
    is not a built database), RUNTIME for the rest."""
    if isinstance(error, (UsageError, ValueError)):
        return USAGE
    if isinstance(error, USAGE_OS_ERRORS):
        return USAGE
    if isinstance(error, OSError):  # TimeoutError, ConnectionError, a full disk: RUNTIME
        return USAGE if error.errno in USAGE_ERRNOS else RUNTIME
    if isinstance(error, RuntimeError):
        from glm_dspy.graphs.store import GraphStoreError  # imported only on this path: kuzu is not cheap

        return USAGE if isinstance(error, GraphStoreError) else RUNTIME
    return RUNTIME


def describe(error: BaseException) -> str:
    """The error's message; an OSError with a file name as "<file>: <reason>" (Python's own
    "[Errno 13] Permission denied: '<file>'" names the errno, not what to look at)."""
    if isinstance(error, OSError) and error.filename is not None and error.strerror:
        where = f"{error.filename} -> {error.filename2}" if error.filename2 is not None else str(error.filename)
        return f"{where}: {error.strerror}"
    return str(error).strip() or type(error).__name__


def report(console: Console, message: str, code: int) -> int:
    """Print `glm-dspy: error: message` on the console (stderr) and return `code`."""
    console.print(f"[red]glm-dspy: error:[/] {escape(message)}", soft_wrap=True)  # a path in it stays copyable
    return code
