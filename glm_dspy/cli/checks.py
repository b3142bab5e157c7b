"""Checks that run before anything costly, each failing with one line that says what, where and what to do.

Argument types (argparse calls them while parsing: a bad value is a usage error before any import)
and the checks of files and folders a command reads or writes (a command's `check`, which
glm_dspy/cli/main.py runs before the command imports a graph, an embedder or an engine). Root passes
every permission test (os.access); the errors a command then meets are told the same way
(glm_dspy/cli/errors.py).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

from glm_dspy.cli.errors import UsageError


def positive_int(text: str) -> int:
    """An integer >= 1 (a count, a limit, a number of workers)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be 1 or more, got {value}")
    return value


MAX_SECONDS = 86_400.0  # a day: the longest any --timeout may be (Kuzu's timeout is a 64-bit count of ms)


def positive_float(text: str) -> float:
    """A finite number of seconds > 0 and at most MAX_SECONDS."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text}")
    if value > MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"at most {MAX_SECONDS:,.0f} seconds (a day), got {text}")
    return value


def port(text: str) -> int:
    """A TCP port, 1 to 65535."""
    value = positive_int(text)
    if value > 65_535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, got {value}")
    return value


def utf8_text(text: str) -> str:
    """An argument that is text (a question, a query, a snippet): UTF-8, strictly. Python hands
    undecodable bytes of argv over as lone surrogates (surrogateescape); such an argument is
    refused naming its first bad byte's offset, before anything reads it."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raw = os.fsencode(text)
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as error:
            raise argparse.ArgumentTypeError(f"not UTF-8 text (byte {error.start}: {raw[error.start:error.start + 1]!r}"
                                             "); pass UTF-8") from None
        raise argparse.ArgumentTypeError("not UTF-8 text (a lone surrogate); pass UTF-8") from None
    return text


def read_stdin_text(stdin=None) -> str:
    """All of stdin as UTF-8 text, strictly; UsageError naming the first bad byte's offset."""
    data = (stdin or sys.stdin).buffer.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"stdin is not UTF-8 text (byte {error.start}: {data[error.start:error.start + 1]!r}); "
                         "pass UTF-8") from None


def question_text(text: str) -> str:
    """A question: its words (UTF-8), without surrounding blanks; an empty one is refused."""
    utf8_text(text)
    if not text.strip():
        raise argparse.ArgumentTypeError("the question is empty; ask something, e.g. \"When was Marie Curie born?\"")
    return text.strip()


def check_db(db_dir: Path) -> None:
    """A database to read (`glm-dspy build` made it): a readable folder whose files are each of
    their kind (graphs/db_path.py: by stat alone, so a named pipe in place of a file is refused,
    never opened), before any graph, embedder or model is loaded."""
    from glm_dspy.graphs.db_path import DatabasePathError, check_database_dir

    try:
        check_database_dir(db_dir)
    except DatabasePathError as error:
        raise UsageError(str(error)) from None


def check_readable_file(path: Path, what: str) -> None:
    """A file to read: it exists, is a file and can be read."""
    if not path.exists():
        raise UsageError(f"{path}: no such {what}")
    if path.is_dir():
        raise UsageError(f"{path}: a folder, not a {what}")
    if not os.access(path, os.R_OK):
        raise UsageError(f"{path}: permission denied: the {what} cannot be read")


def check_writable_dir(path: Path, what: str) -> None:
    """A folder to write into: an existing writable folder, or one that can be made (its nearest
    existing parent is a writable folder)."""
    if path.exists() and not path.is_dir():
        raise UsageError(f"{path}: a file, not a folder; the {what} must be a folder (or a path where one can be made)")
    _check_can_write(path if path.is_dir() else _nearest_existing(path), path, what)


def check_writable_file(path: Path, what: str) -> None:
    """A file to write: not a folder; it is writable where it exists, else its folder can hold it."""
    if path.is_dir():
        raise UsageError(f"{path}: a folder, not a file; name the {what} file to write")
    _check_can_write(path if path.exists() else _nearest_existing(path.parent), path, what)


def _nearest_existing(path: Path) -> Path:
    path = path.absolute()
    while not path.exists():
        path = path.parent
    return path


def _check_can_write(existing: Path, asked: Path, what: str) -> None:
    if existing != asked.absolute() and not existing.is_dir():
        raise UsageError(f"{asked}: {existing} is a file, so the {what} cannot be made under it")
    if not os.access(existing, os.W_OK | (os.X_OK if existing.is_dir() else 0)):
        raise UsageError(f"{asked}: permission denied: {existing} is not writable, so the {what} cannot be written")
