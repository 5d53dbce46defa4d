"""Reading and validating a user's file (or data frame) of pairwise comparisons.

The input format of ``dprank rank`` and :func:`dprank.rank`: CSV or TSV with a
header, or Parquet (``.parquet``, ``.pq``), one comparison per row. Two layouts
are accepted:

* ``winner,loser``: the first item won;
* ``item_a,item_b,outcome``: ``outcome`` is 1 if ``item_a`` won, 0 if ``item_b``
  won (a released local-DP file made with the Laplace mechanism holds real
  outcomes; those are accepted only where asked for).

Optional columns: ``user`` (who made the comparison), ``count`` (a row standing
for several identical comparisons, a positive whole number) and ``epsilon`` (the
budget each user's local-DP release was made with, positive, the same on every
row of a user). Item and user labels are arbitrary strings (in Parquet also
integer columns); other columns are ignored. Items are numbered in the order of
their labels (numeric order when every label is an integer), users likewise.

The whole input is validated before anything is computed. A problem raises
:class:`InputError`, whose message names the file, the line (the header is line
1; the 1-based row of a Parquet file) and the column of the first offending rows
and says what is wrong.

A file is read by pyarrow in blocks (about 4 MiB of text, or a million Parquet
rows), each block validated with array operations and its labels coded by one
factorisation, then dropped. Where the table carries no users and outcomes are 0
or 1 (what ``--privacy none`` and ``edge`` read), the blocks are summed over item
pairs as they stream (:meth:`dprank.comparisons.Comparisons.from_pair_statistics`),
so memory follows the number of distinct pairs, not of rows.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from . import _checks
from .comparisons import Comparisons

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "KNOWN_COLUMNS",
    "ComparisonTable",
    "InputError",
    "comparisons_from_frame",
    "file_sha256",
    "read_comparisons",
]

KNOWN_COLUMNS = ("winner", "loser", "item_a", "item_b", "outcome", "user", "count", "epsilon")
_SHOWN = 3  # offending rows named in a message


class InputError(ValueError):
    """Bad input: the message names the source, line and column and what is wrong.

    Attributes
    ----------
    source : str
        File name (or ``"data frame"``).
    line : int or None
        1-based line of the file (header = 1); for a data frame, the 0-based row.
    column : int or None
        1-based column.
    """

    def __init__(
        self,
        problem: str,
        source: str = "",
        line: int | None = None,
        column: int | None = None,
        name: str | None = None,
        row_word: str = "line",
    ):
        self.problem, self.source, self.line, self.column = problem, source, line, column
        where = [source] if source else []
        if line is not None:
            where.append(f"{row_word} {line}")
        if column is not None:
            where.append(f"column {column}" + (f" ({name})" if name else ""))
        elif name:
            where.append(f"column {name}")
        super().__init__(", ".join(where) + ": " + problem if where else problem)


@dataclass(frozen=True, eq=False)
class ComparisonTable:
    """A validated input: the comparisons and what the output records about them.

    Attributes
    ----------
    comparisons : Comparisons
        Items numbered by sorted label (``comparisons.labels``); users likewise.
    layout : str
        ``"winner,loser"`` or ``"item_a,item_b,outcome"``.
    n_rows : int
        Data rows read.
    user_labels : numpy.ndarray or None
        The user labels, in user-index order.
    has_count : bool
        The input had a ``count`` column.
    sha256 : str or None
        sha256 of the file's bytes (None for a data frame).
    aggregated : bool
        The comparisons were summed over item pairs while reading (one record per
        pair and winner, :meth:`Comparisons.from_pair_statistics`).
    """

    comparisons: Comparisons
    layout: str
    n_rows: int
    user_labels: np.ndarray | None
    has_count: bool
    sha256: str | None = None
    aggregated: bool = False


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 (hex) of a file's bytes."""
    _checks.path(path, "path")
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --------------------------------------------------------------------------- reading


_BLOCK_BYTES = 1 << 22  # text per CSV block
_PARQUET_ROWS = 1 << 20  # rows per Parquet batch
_PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")


def _delimiter(path: Path, first_line: str) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    if "\t" in first_line and "," not in first_line:
        return "\t"
    return ","


def _opening_error(exc: OSError, source: str) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", source)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", source)
    if isinstance(exc, PermissionError):
        return InputError("cannot be read (permission denied)", source)
    return InputError(f"cannot be read ({exc.strerror or exc})", source)


def _is_parquet(path: Path, source: str) -> bool:
    """Parquet by suffix or by the file's magic bytes (``PAR1``)."""
    try:
        with open(path, "rb") as fh:
            magic = fh.read(4)
    except OSError as exc:
        raise _opening_error(exc, source) from None
    return magic == b"PAR1" or path.suffix.lower() in _PARQUET_SUFFIXES


def read_comparisons(
    path: str | os.PathLike,
    *,
    need_users: bool = False,
    need_epsilon: bool = False,
    real_outcomes: bool = False,
    epsilon_column: str = "epsilon",
    aggregate: bool = True,
    block_size: int | None = None,
    both_bad: str = "tie",
) -> ComparisonTable:
    """Read and validate a comparison file (the input format in the module docstring).

    Arena files (battles ``model_a, model_b, winner`` as CSV, TSV or JSON, and
    per-pair count tables) are read by :func:`dprank.arena.read_arena_table`: votes
    with three outcomes, "both bad" mapped by ``both_bad`` (``"tie"`` or ``"drop"``).

    Parameters
    ----------
    path : path-like
        CSV (``,``), TSV (tab; by the ``.tsv`` suffix or a tab-only header) or
        Parquet (by the suffix ``.parquet``, ``.pq`` or the file's magic bytes).
    need_users : bool
        Require a ``user`` column (individual and local DP).
    need_epsilon : bool
        Require the per-user budget column (released local-DP data).
    real_outcomes : bool
        Accept any finite ``outcome`` (a Laplace release), not only 0 and 1.
    epsilon_column : str
        Name of the budget column.
    aggregate : bool
        Where the file has no ``user`` column and neither users, budgets nor real
        outcomes are asked for, sum the comparisons over item pairs while reading:
        the comparisons then hold one record per pair and winner (exact counts,
        the same pair statistics, so every estimator of ``--privacy none`` and
        ``edge`` gives the same result) and memory follows the distinct pairs.
        ``False`` keeps one record per row.
    block_size : int, optional
        Bytes of CSV text (or rows of Parquet) per block; the default suits
        files of any size.

    Returns
    -------
    ComparisonTable

    Raises
    ------
    InputError
        A missing, unreadable or empty file, or any problem of
        :func:`comparisons_from_frame`, with the file's line numbers.
    """
    _checks.path(path, "path")
    _checks.text(epsilon_column, "epsilon_column")
    for _name, _value in (
        ("need_users", need_users),
        ("need_epsilon", need_epsilon),
        ("real_outcomes", real_outcomes),
        ("aggregate", aggregate),
    ):
        _checks.flag(_value, _name)
    if block_size is not None:
        _checks.count(block_size, "block_size", 1)
    from ._input_blocks import _BlockReader  # it imports this module's validation helpers
    from .arena import is_arena_file, read_arena_table

    if is_arena_file(path):  # votes with ties: their own reader (dprank.arena)
        if real_outcomes or epsilon_column.strip().lower() != "epsilon":
            raise InputError(
                "an arena file holds votes (model_a, model_b, winner) and its budgets in the "
                "field 'epsilon'",
                os.fspath(path),
            )
        return read_arena_table(
            path, need_users=need_users, need_epsilon=need_epsilon, both_bad=both_bad
        )
    path = Path(path)
    source = os.fspath(path)
    eps_name = epsilon_column.strip().lower()
    head = _read_header(path, source, eps_name, need_users=need_users, need_epsilon=need_epsilon)
    used = _used_columns(head.layout, head.names, eps_name, need_epsilon)
    names = head.names
    aggregate = bool(aggregate) and "user" not in names and not need_epsilon and not real_outcomes
    reader = _BlockReader(
        source,
        names,
        head.layout,
        eps_name=eps_name,
        need_epsilon=need_epsilon,
        real_outcomes=real_outcomes,
        aggregate=aggregate,
        row_word=head.row_word,
        first_row=head.first_row,
    )
    _read_blocks(path, source, head, used, block_size, reader)
    if reader.n_rows == 0:
        raise InputError(
            "no comparisons after the header", source, head.first_row, row_word=head.row_word
        )
    comparisons, user_labels = reader.finish()
    return ComparisonTable(
        comparisons=comparisons,
        layout=head.layout,
        n_rows=reader.n_rows,
        user_labels=user_labels,
        has_count="count" in names,
        sha256=file_sha256(path),
        aggregated=aggregate,
    )


class _Header(NamedTuple):
    """What a file's header line (CSV) or schema (Parquet) says."""

    original: list[str]  # the column names as written
    names: list[str]  # the same, stripped and in lower case
    layout: str  # "winner,loser" or "item_a,item_b,outcome"
    row_word: str  # "line" (CSV, the header is line 1) or "row" (Parquet)
    first_row: int  # the number of the first data row in messages
    sep: str | None  # the CSV delimiter (None for Parquet)
    parquet: Any  # the pyarrow ParquetFile (None for CSV)


def _read_header(
    path: Path, source: str, eps_name: str, *, need_users: bool, need_epsilon: bool
) -> _Header:
    """The file's format and checked header (:func:`_check_header`)."""
    if _is_parquet(path, source):
        pf, original = _open_parquet(path, source)
        sep, header_line, row_word, first_row = None, None, "row", 1
    else:
        pf = None
        first = _first_line(path, source)
        sep = _delimiter(path, first)
        original = next(csv.reader([first], delimiter=sep))
        header_line, row_word, first_row = 1, "line", 2
    names = [c.strip().lower() for c in original]
    layout = _check_header(
        names,
        original,
        eps_name,
        need_users=need_users,
        need_epsilon=need_epsilon,
        error=lambda problem: InputError(problem, source, header_line, row_word=row_word),
    )
    return _Header(original, names, layout, row_word, first_row, sep, pf)


def _read_blocks(path: Path, source: str, head: _Header, used, block_size, reader) -> None:
    """Give every block of the file to ``reader`` (a ``_BlockReader``), then free the blocks."""
    if head.parquet is None:
        size = block_size or _BLOCK_BYTES
        blocks = _csv_blocks(path, source, head.sep, head.names, used, size)
    else:
        size = block_size or _PARQUET_ROWS
        blocks = _parquet_blocks(head.parquet, source, head.original, head.names, used, size)
    columns = None
    for start, columns, last in _with_last(blocks):
        reader.add(start, columns, last)
    del blocks, columns
    _release_arrow_memory()  # the blocks' buffers, before the pairs are merged


def _free_memory_promptly() -> None:
    """Make this process hand large freed buffers back to the system at once.

    ``--low-memory`` of ``dprank rank`` and ``dprank privatize`` (commands that read
    one file and exit): pyarrow's blocks come from the C library's allocator
    instead of pyarrow's caching pool, and (glibc) every allocation above 128 KiB
    is its own mapping, returned when freed, instead of the heap that a
    fragmenting sequence of block-sized temporaries keeps growing. It changes
    where memory comes from, not any value: a lower peak (about 7% on the 2.5
    M-row file of ``benchmarks/bench_cli.py``) for more time (fresh pages for
    every large temporary, about 1.5x). A library caller keeps its own allocator
    settings: only the command line calls this.
    """
    import ctypes
    import ctypes.util

    if "pyarrow" in sys.modules:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
    else:  # read when pyarrow makes its pool (Parquet, text): plain integers never import it
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.mallopt(_M_MMAP_THRESHOLD, 128 * 1024)
        except (OSError, AttributeError):  # not glibc (musl has no mallopt): keep its default
            pass


#: glibc's ``mallopt`` parameter for the size above which allocations are mapped
_M_MMAP_THRESHOLD = -3


def _release_arrow_memory() -> None:
    """Hand pyarrow's freed block buffers back to the system (its pool keeps them)."""
    if "pyarrow" not in sys.modules:  # plain integer text never imports it
        return
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _first_line(path: Path, source: str) -> str:
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            first = fh.readline()
    except UnicodeDecodeError:
        raise InputError("is not a UTF-8 text file", source, 1) from None
    except OSError as exc:
        raise _opening_error(exc, source) from None
    if not first.strip():
        raise InputError("the file is empty (expected a header line first)", source, 1)
    return first


def _open_parquet(path: Path, source: str):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"is not a readable Parquet file ({exc})", source) from None
    return pf, list(pf.schema_arrow.names)


def _used_columns(layout: str, names: list[str], eps_name: str, need_epsilon: bool) -> list[str]:
    """The columns to read, in the order of validation."""
    used = ["winner", "loser"] if layout == "winner,loser" else ["item_a", "item_b", "outcome"]
    used += [c for c in ("count", "user") if c in names]
    if need_epsilon:
        used.append(eps_name)
    return used


def _with_last(blocks):
    """``(start, columns, last)``: each block with whether it is the file's last."""
    pending = None
    for block in blocks:
        if pending is not None:
            yield (*pending, False)
        pending = block
    if pending is not None:
        yield (*pending, True)


def _csv_blocks(path: Path, source: str, sep: str, names, used, block_size: int):
    """``(first row, {column: array})`` per block of the file.

    Blocks of plain integer text, the usual form of a large comparison log, are
    parsed from the file's bytes straight to int64 columns by a compiled loop
    (``parse_plain_integers`` of :mod:`dprank._sparse_c`): no text arrays, and
    no pyarrow import. From the first block that is not plain (any other
    character, a leading zero, an empty field, a line of another length), or
    where the compiled library is missing, pyarrow's streaming reader takes the
    rest of the file as text, checked field by field. A plain field means the
    same in either form, so the comparisons are the same, and so is every
    message but its count of further offending rows in the block (the two
    readers cut their blocks at different places).
    """
    offset, start = yield from _plain_integer_blocks(path, sep, names, used, block_size)
    if offset is not None:
        yield from _text_blocks(path, source, sep, names, used, block_size, offset, start)


def _csv_fields(names, used) -> tuple[list[str], list[str]]:
    """Column names for pyarrow (``f0, f1, ...``) and those of the columns read."""
    fields = [f"f{k}" for k in range(len(names))]
    return fields, [fields[names.index(c)] for c in used]


def _plain_integer_blocks(path: Path, sep: str, names, used, block_size: int):
    """The leading blocks of plain integer text as int64 columns; returns where they end.

    The generator's return value is ``(byte offset, first row)`` of the rest,
    left to the text reader, or ``(None, rows)`` at the end of the file.
    """
    from ._sparse_c import available, parse_plain_integers

    slots = [used.index(c) if c in used else -1 for c in names]
    start = 0
    with open(path, "rb") as fh:
        header = fh.readline()  # checked by _read_header
        offset, rest = fh.tell(), b""
        if not available() or b"\r" in header.rstrip(b"\r\n"):  # a lone \r ends lines
            return offset, start
        while True:
            chunk = fh.read(block_size)
            block = rest + chunk if rest else chunk
            if not block:
                return None, start
            at_end = len(chunk) < block_size  # the rest of the file is in ``block``
            cut = len(block) if at_end else block.rfind(b"\n") + 1
            columns = parse_plain_integers(block, cut, len(names), slots, sep) if cut else None
            if columns is None:
                return offset, start
            rest = block[cut:]
            del block
            if columns.shape[1]:
                yield start, dict(zip(used, columns, strict=True))
                start += columns.shape[1]
            offset += cut
            if at_end:
                return None, start


def _text_blocks(path: Path, source: str, sep: str, names, used, block_size, offset, start):
    """:func:`_csv_blocks` by pyarrow's streaming reader, as text, from byte ``offset`` on."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    fields, include = _csv_fields(names, used)
    read_options = pcsv.ReadOptions(
        skip_rows=1 if start == 0 else 0, column_names=fields, block_size=int(block_size)
    )
    parse_options = pcsv.ParseOptions(delimiter=sep, ignore_empty_lines=False)
    convert_options = pcsv.ConvertOptions(
        include_columns=include,
        column_types={f: pa.string() for f in include},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:  # from the header on: the path itself; from a later block: the file at its offset
        with open(path, "rb") if start else contextlib.nullcontext(path) as src:
            if start:
                src.seek(offset)
            stream = pcsv.open_csv(
                src,
                read_options=read_options,
                parse_options=parse_options,
                convert_options=convert_options,
            )
            for batch in stream:
                if batch.num_rows:
                    yield start, dict(zip(used, batch.columns, strict=True))
                    start += batch.num_rows
    except pa.ArrowInvalid as exc:
        if "UTF8" in str(exc):
            raise InputError("is not a UTF-8 text file", source) from None
        raise _field_count_error(path, source, sep, exc) from None


def _parquet_blocks(pf, source: str, original, names, used, batch_rows: int):
    import pyarrow as pa

    columns = [original[names.index(c)] for c in used]
    start = 0
    try:
        for batch in pf.iter_batches(batch_size=int(batch_rows), columns=columns):
            if batch.num_rows:
                yield start, dict(zip(used, batch.columns, strict=True))
                start += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot be read as Parquet ({exc})", source) from None


def _field_count_error(path: Path, source: str, sep: str, exc: Exception) -> InputError:
    """The first line whose number of fields differs from the header's (error path only)."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = csv.reader(fh, delimiter=sep, skipinitialspace=True)
        header = next(rows)
        for line, row in enumerate(rows, start=2):
            if row and len(row) != len(header):
                return InputError(
                    f"{len(row)} fields, but the header has {len(header)}", source, line
                )
    kind = "TSV" if sep == "\t" else "CSV"
    return InputError(f"cannot be parsed as {kind}: {exc}", source)


# --------------------------------------------------------------------------- validation


class _Where:
    """Turns row positions into the line numbers (file) or row labels (data frame) of messages.

    Row ``k`` of the rows checked is reported as ``offset + k``; ``upto``, where
    given, is the last row of a block that is not the whole file (the count of
    further offending rows then covers the file up to it).
    """

    def __init__(
        self,
        source: str,
        columns: list[str],
        offset: int = 0,
        row_word: str = "row",
        upto: int | None = None,
    ):
        self.source, self.columns = source, columns
        self.offset, self.row_word, self.upto = offset, row_word, upto

    def error(self, problem: str, rows: np.ndarray | None = None, name: str | None = None):
        line = column = None
        extra = ""
        if rows is not None and len(rows):
            rows = np.asarray(rows)
            line = int(rows[0]) + self.offset
            more = rows[1:_SHOWN]
            if len(rows) > 1:
                shown = ", ".join(str(int(r) + self.offset) for r in more)
                plural = "s" if len(rows) > 2 else ""
                upto = f" up to {self.row_word} {self.upto}" if self.upto is not None else ""
                extra = f" ({len(rows) - 1} more such row{plural}{upto}, "
                extra += f"{self.row_word}{plural} {shown}"
                extra += ", ...)" if len(rows) > _SHOWN else ")"
        if name is not None and name in self.columns:
            column = self.columns.index(name) + 1
        return InputError(problem + extra, self.source, line, column, name, self.row_word)


def _as_text(col: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """``(text, missing)``: the column as strings ("" where missing) and its missing cells."""
    import pandas as pd

    missing = col.isna().to_numpy()
    if missing.any():
        col = col.where(~missing, "")
    text = col if col.dtype == object or pd.api.types.is_string_dtype(col) else col.astype(str)
    return text, missing | (text.to_numpy() == "")


def _text_column(frame: pd.DataFrame, name: str, where: _Where) -> np.ndarray:
    import pandas as pd

    col = frame[name]
    if pd.api.types.is_integer_dtype(col) and not col.isna().any():
        return col.to_numpy(dtype=np.int64)
    text, missing = _as_text(col)
    bad = np.flatnonzero(missing)
    if bad.size:
        raise where.error(f"missing value in column '{name}'", bad, name)
    return text.to_numpy(dtype=object)


def _numeric_column(frame: pd.DataFrame, name: str, where: _Where) -> np.ndarray:
    import pandas as pd

    col = frame[name]
    if pd.api.types.is_numeric_dtype(col) and not pd.api.types.is_bool_dtype(col):
        values = col.to_numpy(dtype=np.float64)
        missing = np.isnan(values)
        text = col
    else:
        text, missing = _as_text(col)
        values = pd.to_numeric(text, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(missing)
    if bad.size:
        raise where.error(f"missing value in column '{name}'", bad, name)
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        raise where.error(f"'{name}' must be a number, got {text.iloc[bad[0]]!r}", bad, name)
    return values


def _label_order(uniques: np.ndarray) -> np.ndarray:
    """Order of distinct labels: numeric if every label is an integer (ties by text), else text."""
    import pandas as pd

    as_num = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy()
    if np.all(np.isfinite(as_num)) and np.all(as_num == np.round(as_num)):
        return np.lexsort((uniques.astype(str), as_num))
    return np.argsort(uniques.astype(str), kind="stable")


def _codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of ``labels`` in sorted-label order (numeric order for integer labels)."""
    import pandas as pd

    codes, uniques = pd.factorize(labels, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    order = _label_order(uniques)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[codes], uniques[order].astype(str)


def _check_header(names, original, eps_name, *, need_users, need_epsilon, error) -> str:
    """The layout named by the (lower-case) column names; ``error(problem)`` for a bad header."""
    dup = sorted({n for n in names if names.count(n) > 1 and n in (*KNOWN_COLUMNS, eps_name)})
    if dup:
        raise error(
            f"the header repeats the column(s) {dup}: each column may appear once "
            "(names are matched without case and surrounding spaces)"
        )
    has_wl = "winner" in names and "loser" in names
    has_ab = all(c in names for c in ("item_a", "item_b", "outcome"))
    if has_wl and has_ab:
        raise error(
            "the header has both layouts (winner,loser and item_a,item_b,outcome); keep one"
        )
    if not (has_wl or has_ab):
        raise error(
            f"the header {list(original)} lacks the needed columns: expected 'winner,loser' or "
            "'item_a,item_b,outcome' (optional: user, count, epsilon)"
        )
    if need_users and "user" not in names:
        raise error(
            "no 'user' column: individual and local privacy protect users, so every "
            "comparison must say which user made it"
        )
    if need_epsilon and eps_name not in names:
        raise error(
            f"no '{eps_name}' column: a local-DP release must state the budget each user's "
            "release was made with"
        )
    return "winner,loser" if has_wl else "item_a,item_b,outcome"


def comparisons_from_frame(
    frame: pd.DataFrame,
    *,
    source: str = "data frame",
    need_users: bool = False,
    need_epsilon: bool = False,
    real_outcomes: bool = False,
    epsilon_column: str = "epsilon",
    _file: bool = False,
) -> ComparisonTable:
    """Validate a table of comparisons (the columns of the module docstring).

    Parameters
    ----------
    frame : pandas.DataFrame
        One comparison per row; column names are matched without case and
        surrounding spaces.
    source : str
        Name used in error messages.
    need_users, need_epsilon, real_outcomes, epsilon_column
        As in :func:`read_comparisons`.

    Returns
    -------
    ComparisonTable

    Raises
    ------
    InputError
        Missing columns, missing values, a non-numeric or non-positive count, an
        outcome other than 0/1, a self-comparison, a user column that is needed
        but absent, a budget column that is absent or not positive, or budgets
        that differ within a user; the message names the first offending rows.
    """
    _checks.frame(frame, "frame")
    _checks.text(source, "source")
    _checks.text(epsilon_column, "epsilon_column")
    for _name, _value in (
        ("need_users", need_users),
        ("need_epsilon", need_epsilon),
        ("real_outcomes", real_outcomes),
    ):
        _checks.flag(_value, _name)
    original = [str(c) for c in frame.columns]
    names = [c.strip().lower() for c in original]
    eps_name = epsilon_column.strip().lower()
    frame = frame.set_axis(names, axis=1).reset_index(drop=True)
    row_word = "line" if _file else "row"
    where = _Where(source, names, 2 if _file else 0, row_word)
    header_line = 1 if _file else None
    layout = _check_header(
        names,
        original,
        eps_name,
        need_users=need_users,
        need_epsilon=need_epsilon,
        error=lambda problem: InputError(problem, source, header_line, row_word=row_word),
    )
    n = len(frame)
    if n == 0:
        raise InputError("no comparisons", source, 2 if _file else None, row_word=row_word)
    first, second, y = _frame_items(frame, layout, where, real_outcomes)
    has_count = "count" in names
    count = _frame_counts(frame, where) if has_count else np.ones(n)
    user = user_labels = None
    if "user" in names:
        user, user_labels = _codes(_text_column(frame, "user", where))
    user_eps = None
    if need_epsilon:
        user_eps = _frame_budgets(frame, eps_name, user, user_labels, where)
    codes, labels = _codes(np.concatenate([first, second]))
    comparisons = Comparisons(
        n_items=int(labels.size),
        i=codes[:n],
        j=codes[n:],
        y=np.asarray(y, dtype=np.float64),
        count=np.asarray(count, dtype=np.float64),
        user=user,
        labels=labels,
        user_epsilon=user_eps,
    )
    return ComparisonTable(
        comparisons=comparisons,
        layout=layout,
        n_rows=n,
        user_labels=user_labels,
        has_count=has_count,
    )


def _frame_items(frame: pd.DataFrame, layout: str, where: _Where, real_outcomes: bool):
    """``(first, second, y)``: each row's two item labels and its outcome, checked."""
    if layout == "winner,loser":
        first = _text_column(frame, "winner", where)
        second = _text_column(frame, "loser", where)
        y = np.ones(len(frame))
    else:
        first = _text_column(frame, "item_a", where)
        second = _text_column(frame, "item_b", where)
        y = _numeric_column(frame, "outcome", where)
        if not real_outcomes:
            bad = np.flatnonzero((y != 0) & (y != 1))
            if bad.size:
                raise where.error(
                    f"outcome must be 1 (item_a won) or 0 (item_b won), got "
                    f"{frame['outcome'].iloc[bad[0]]!r}",
                    bad,
                    "outcome",
                )
    if first.dtype != second.dtype:  # integer labels on one side only: compare as text
        first, second = first.astype(str).astype(object), second.astype(str).astype(object)
    same = np.flatnonzero(first == second)
    if same.size:
        a_name = "winner" if layout == "winner,loser" else "item_a"
        raise where.error(
            f"self-comparison: item {first[same[0]]!r} is on both sides", same, a_name
        )
    return first, second, y


def _frame_counts(frame: pd.DataFrame, where: _Where) -> np.ndarray:
    """The ``count`` column, checked: positive whole numbers."""
    count = _numeric_column(frame, "count", where)
    bad = np.flatnonzero((count <= 0) | (count != np.round(count)))
    if bad.size:
        raise where.error(
            f"count must be a positive whole number, got {frame['count'].iloc[bad[0]]!r}",
            bad,
            "count",
        )
    return count


def _frame_budgets(frame: pd.DataFrame, eps_name: str, user, user_labels, where: _Where):
    """Each user's budget from the column ``eps_name``: positive, one per user."""
    eps = _numeric_column(frame, eps_name, where)
    bad = np.flatnonzero(~(eps > 0))
    if bad.size:
        raise where.error(
            f"the budget '{eps_name}' must be positive, got {frame[eps_name].iloc[bad[0]]!r}",
            bad,
            eps_name,
        )
    user_eps = np.full(len(user_labels), np.nan)
    user_eps[user[::-1]] = eps[::-1]  # each user's first row; the others are checked next
    bad = np.flatnonzero(user_eps[user] != eps)
    if bad.size:
        raise where.error(
            f"user {str(user_labels[user[bad[0]]])!r} has different budgets "
            f"'{eps_name}' on different rows (one release budget per user)",
            bad,
            eps_name,
        )
    return user_eps
