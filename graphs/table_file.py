"""One table file (CSV, TSV or Parquet) read into Arrow, with where each row came from.

CSV and TSV: UTF-8 (a byte-order mark is dropped), a header line naming the columns, the
delimiter read from the header (the most frequent of `,` `;` TAB `|`; TAB for an empty tie in a
.tsv) unless given; an empty field is null. Every column is text until `typed_column` reads it
as its declared type, or infers one: BOOLEAN (true/false), INT64, DOUBLE, else STRING (a number
written with leading zeros, like a postcode, stays text). Parquet columns keep their types;
types Kuzu would not read (dates, decimals) become text. Errors say the file, line and column.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from glm_dspy.graphs.grbench import GraphFormatError

DELIMITERS = (",", ";", "\t", "|")
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_TRUE, _FALSE = {"true", "yes"}, {"false", "no"}
_KEEP = (pa.types.is_string, pa.types.is_integer, pa.types.is_floating, pa.types.is_boolean)


@dataclass(slots=True)
class ReadTable:
    """A file's rows: `table` (text columns for CSV, typed for Parquet) and `lines[i]`, the line
    (CSV) or row number (Parquet, from 1) row i came from, for errors."""

    path: Path
    table: pa.Table
    lines: list[int]
    is_text: bool

    def where(self, row: int, column: str | None = None) -> str:
        at = f"{self.path}:{self.lines[row]}" if self.is_text else f"{self.path}: row {self.lines[row]}"
        if column is None:
            return at
        number = self.table.column_names.index(column) + 1
        return f"{at}:{number}" if self.is_text else f"{at}, column {column!r}"


def _guess_delimiter(header: str, path: Path) -> str:
    counts = {d: header.count(d) for d in DELIMITERS}
    best = max(counts.values())
    if best == 0:
        return "\t" if path.suffix.lower() == ".tsv" else ","
    return next(d for d in DELIMITERS if counts[d] == best)


def _delimiter_hint(header: str, delimiter: str) -> str:
    others = [f"{header.count(d)} {d!r}" for d in DELIMITERS if d != delimiter and header.count(d)]
    return f" (read as {delimiter!r}-separated; the header also has {', '.join(others)}: " \
           "set delimiter in graph.toml)" if others else f" (read as {delimiter!r}-separated)"


def read_csv(path: Path, delimiter: str | None = None) -> ReadTable:
    data = path.read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise GraphFormatError(f"{path}:{line}: not UTF-8 text ({error.reason}); save the file as UTF-8") from None
    first = text.split("\n", 1)[0].rstrip("\r")
    if not first.strip():
        raise GraphFormatError(f"{path}:1: no header line; the first line names the columns (e.g. id,name)")
    delimiter = delimiter or _guess_delimiter(first, path)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    header = [column.strip() for column in next(reader)]
    for number, column in enumerate(header, 1):
        if not column:
            raise GraphFormatError(f"{path}:1:{number}: column {number} has no name{_delimiter_hint(first, delimiter)}")
        if header.index(column) != number - 1:
            raise GraphFormatError(f"{path}:1:{number}: column {column!r} appears twice")
    rows, lines = [], []
    try:
        for row in reader:
            if not any(field.strip() for field in row):
                continue
            if len(row) != len(header):
                raise GraphFormatError(
                    f"{path}:{reader.line_num}: {len(row)} field(s) where the header has {len(header)}"
                    f"{_delimiter_hint(first, delimiter)}; a value holding {delimiter!r} must be in double quotes")
            rows.append([field.strip() or None for field in row])
            lines.append(reader.line_num)
    except csv.Error as error:
        raise GraphFormatError(f"{path}:{reader.line_num}: {error}") from None
    columns = {c: pa.array([row[i] for row in rows], pa.string()) for i, c in enumerate(header)}
    return ReadTable(path, pa.table(columns), lines, is_text=True)


def read_parquet(path: Path) -> ReadTable:
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as error:
        raise GraphFormatError(f"{path}: not a readable Parquet file ({error})") from None
    columns = {}
    for name in table.column_names:
        column = table.column(name)
        columns[name] = column if any(is_type(column.type) for is_type in _KEEP) else column.cast(pa.string())
    return ReadTable(path, pa.table(columns), list(range(1, table.num_rows + 1)), is_text=False)


def read_table(path: Path, delimiter: str | None = None) -> ReadTable:
    """The rows of a CSV, TSV or Parquet file (module doc)."""
    return read_parquet(path) if path.suffix.lower() == ".parquet" else read_csv(path, delimiter)


def _infer(values: list[str]) -> str:
    present = [v for v in values if v is not None]
    if not present:
        return "STRING"
    if all(v.lower() in _TRUE | _FALSE for v in present):
        return "BOOLEAN"
    if any(len(v.lstrip("+-")) > 1 and v.lstrip("+-")[0] == "0" and v.lstrip("+-")[1].isdigit() for v in present):
        return "STRING"  # leading zeros: an identifier written with digits, not a number
    if all(_INT.fullmatch(v) and -2**63 <= int(v) < 2**63 for v in present):
        return "INT64"
    if all(_FLOAT.fullmatch(v) for v in present):
        return "DOUBLE"
    return "STRING"


def _parse(value: str, kuzu_type: str):
    if kuzu_type == "INT64":
        if not _INT.fullmatch(value) or not -2**63 <= int(value) < 2**63:
            raise ValueError("is not a whole number (INT64)")
        return int(value)
    if kuzu_type == "DOUBLE":
        try:
            return float(value)
        except ValueError:
            raise ValueError("is not a number (DOUBLE)") from None
    if kuzu_type == "BOOLEAN":
        if value.lower() not in _TRUE | _FALSE:
            raise ValueError("is not true or false (BOOLEAN)")
        return value.lower() in _TRUE
    return value


_ARROW = {"STRING": pa.string(), "INT64": pa.int64(), "DOUBLE": pa.float64(), "BOOLEAN": pa.bool_()}


def typed_column(read: ReadTable, column: str, declared: str | None) -> pa.Array | pa.ChunkedArray:
    """`column` of `read` as its declared Kuzu type, else its own (Parquet) or inferred (CSV) one."""
    values = read.table.column(column)
    if not read.is_text:
        if declared is None:
            return values
        try:
            return values.cast(_ARROW[declared.upper()])
        except pa.ArrowException as error:
            raise GraphFormatError(f"{read.path}: column {column!r} cannot be read as {declared}: {error}") from None
    texts = values.to_pylist()
    kuzu_type = declared.upper() if declared else _infer(texts)
    parsed = []
    for row, value in enumerate(texts):
        try:
            parsed.append(None if value is None else _parse(value, kuzu_type))
        except ValueError as error:
            raise GraphFormatError(f"{read.where(row, column)}: column {column!r}: {value!r:.60} {error}"
                                   + (", as graph.toml declares" if declared else "")) from None
    return pa.array(parsed, _ARROW[kuzu_type])


def id_column(read: ReadTable, column: str) -> list[str]:
    """`column` as node ids (text; whole numbers in Parquet as their digits); a missing id is an error."""
    values = read.table.column(column)
    if not read.is_text and not pa.types.is_string(values.type):
        values = pc.cast(values, pa.string())
    ids = values.to_pylist()
    for row, value in enumerate(ids):
        if value is None:
            raise GraphFormatError(f"{read.where(row, column)}: no {column!r}; every row needs one")
    return ids
