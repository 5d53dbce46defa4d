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

import csv
import hashlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

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
) -> ComparisonTable:
    """Read and validate a comparison file (the input format in the module docstring).

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
    path = Path(path)
    source = os.fspath(path)
    eps_name = epsilon_column.strip().lower()
    if _is_parquet(path, source):
        pf, original = _open_parquet(path, source)
        header_line, row_word, first_row = None, "row", 1
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
    used = _used_columns(layout, names, eps_name, need_epsilon)
    aggregate = bool(aggregate) and "user" not in names and not need_epsilon and not real_outcomes
    reader = _BlockReader(
        source,
        names,
        layout,
        eps_name=eps_name,
        need_epsilon=need_epsilon,
        real_outcomes=real_outcomes,
        aggregate=aggregate,
        row_word=row_word,
        first_row=first_row,
    )
    if pf is None:
        blocks = _csv_blocks(path, source, sep, names, used, block_size or _BLOCK_BYTES)
    else:
        blocks = _parquet_blocks(pf, source, original, names, used, block_size or _PARQUET_ROWS)
    columns = None
    for start, columns, last in _with_last(blocks):
        reader.add(start, columns, last)
    del blocks, columns
    _release_arrow_memory()  # the blocks' buffers, before the pairs are merged
    if reader.n_rows == 0:
        raise InputError("no comparisons after the header", source, first_row, row_word=row_word)
    comparisons, user_labels = reader.finish()
    return ComparisonTable(
        comparisons=comparisons,
        layout=layout,
        n_rows=reader.n_rows,
        user_labels=user_labels,
        has_count="count" in names,
        sha256=file_sha256(path),
        aggregated=aggregate,
    )


def _release_arrow_memory() -> None:
    """Hand pyarrow's freed block buffers back to the system (its pool keeps them)."""
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
    """``(first row, {column: pyarrow string array})`` per block of the file."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    fields = [f"f{k}" for k in range(len(names))]
    include = [fields[names.index(c)] for c in used]
    read_options = pcsv.ReadOptions(skip_rows=1, column_names=fields, block_size=int(block_size))
    parse_options = pcsv.ParseOptions(delimiter=sep, ignore_empty_lines=False)
    convert_options = pcsv.ConvertOptions(
        include_columns=include,
        column_types={f: pa.string() for f in include},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    start = 0
    try:
        stream = pcsv.open_csv(
            path,
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


# --------------------------------------------------------------------------- blocks


def _string_parts(arr) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and bytes of a pyarrow string array (no copy)."""
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.empty(0)
    return offsets, data


_NUMPY_TYPES = {"int32": np.int32, "int64": np.int64, "double": np.float64}


def _numpy(arr) -> np.ndarray:
    """A pyarrow array of int32, int64 or float64 without nulls as numpy, by its buffer.

    No copy, and without pyarrow's ``to_numpy``, which imports pandas (a quarter
    of a second of ``dprank rank``'s start-up); other arrays go through it.
    """
    dtype = _NUMPY_TYPES.get(str(arr.type))
    if dtype is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    data = arr.buffers()[1]
    return np.frombuffer(data, dtype=dtype)[arr.offset : arr.offset + len(arr)]


def _as_strings(arr, trim: bool):
    """``arr`` as a pyarrow string array; leading spaces dropped from CSV fields."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.type != pa.string():
        arr = pc.cast(arr, pa.string())
    if trim and len(arr):
        offsets, data = _string_parts(arr)
        starts = offsets[:-1][offsets[1:] > offsets[:-1]]
        if np.any(data[starts] == 32):
            arr = pc.utf8_ltrim(arr, characters=" ")
    return arr


def _empty(arr) -> np.ndarray:
    """Rows of a string array that are null or empty."""
    offsets, _ = _string_parts(arr)
    empty = offsets[1:] == offsets[:-1]
    if arr.null_count:
        empty |= arr.is_null().to_numpy(zero_copy_only=False)
    return np.flatnonzero(empty)


def _canonical_integers(arr):
    """The strings as pyarrow int64 if every one is an integer spelled as Python prints it.

    None where a field is not (``007``, ``+7``, ``-0``, text, more than 18
    characters): a byte test on each field's first two characters, then
    pyarrow's cast checks the digits.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets, data = _string_parts(arr)
    if not len(arr):
        return pc.cast(arr, pa.int64())
    lengths = np.diff(offsets)
    if lengths.min() < 1 or lengths.max() > 18:
        return None
    first = data[offsets[:-1]]
    digit_or_minus = (first == 45) | ((first >= 48) & (first <= 57))
    if not np.all(digit_or_minus) or np.any((first == 48) & (lengths > 1)):
        return None
    minus = first == 45
    if np.any(minus):
        if lengths[minus].min() < 2 or np.any(data[offsets[:-1][minus] + 1] == 48):
            return None
    try:
        return pc.cast(arr, pa.int64())
    except pa.ArrowInvalid:
        return None


def _to_float(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


class _BlockReader:
    """Validates a file's blocks and keeps what the comparisons need (coded, or summed by pair)."""

    def __init__(
        self,
        source,
        names,
        layout,
        *,
        eps_name,
        need_epsilon,
        real_outcomes,
        aggregate,
        row_word,
        first_row,
    ):
        from .comparisons import PairSums

        self.source, self.names, self.layout = source, names, layout
        self.eps_name, self.need_epsilon, self.real_outcomes = eps_name, need_epsilon, real_outcomes
        self.row_word, self.first_row = row_word, first_row
        self.trim = row_word == "line"  # CSV: a space after the delimiter is not part of a field
        self.items = _Labels()
        self.users = _Labels() if "user" in names else None
        self.user_eps = np.empty(0)
        self.pairs = PairSums() if aggregate else None
        self.parts: dict[str, list[np.ndarray]] = {}
        self.n_rows = 0

    def add(self, start: int, columns: dict, last: bool) -> None:
        """Validate one block (rows ``start ..``) and keep its coded columns."""
        import pyarrow as pa

        n = len(next(iter(columns.values())))
        upto = None if last and start == 0 else start + n - 1 + self.first_row
        where = _Where(self.source, self.names, self.first_row + start, self.row_word, upto)
        wl = self.layout == "winner,loser"
        first_name, second_name = ("winner", "loser") if wl else ("item_a", "item_b")
        first = self._labels(columns[first_name], first_name, where)
        second = self._labels(columns[second_name], second_name, where)
        if first.type == second.type == pa.int64():
            codes = self.items.encode(pa.concat_arrays([first, second]))
        else:
            codes = self.items.encode(
                pa.concat_arrays([_as_strings(first, False), _as_strings(second, False)])
            )
        i, j = codes[:n], codes[n:]
        y = None
        if not wl:
            y, shown = self._numbers(columns["outcome"], "outcome", where)
            if not self.real_outcomes:
                bad = np.flatnonzero((y != 0) & (y != 1))
                if bad.size:
                    raise where.error(
                        f"outcome must be 1 (item_a won) or 0 (item_b won), got {shown(bad[0])!r}",
                        bad,
                        "outcome",
                    )
        same = np.flatnonzero(i == j)
        if same.size:
            raise where.error(
                f"self-comparison: item {self.items.label(i[same[0]])!r} is on both sides",
                same,
                first_name,
            )
        count = None
        if "count" in columns:
            count, shown = self._numbers(columns["count"], "count", where)
            bad = np.flatnonzero((count <= 0) | (count != np.round(count)))
            if bad.size:
                raise where.error(
                    f"count must be a positive whole number, got {shown(bad[0])!r}", bad, "count"
                )
        user = None
        if self.users is not None:
            labels = self._labels(columns["user"], "user", where)
            user = self.users.encode(labels)
        if self.need_epsilon:
            self._budgets(columns[self.eps_name], user, where)
        if self.pairs is not None:
            self.pairs.add(i, j, y, count)
        else:
            for name, values in (("i", i), ("j", j), ("y", y), ("count", count), ("user", user)):
                if values is not None:
                    self.parts.setdefault(name, []).append(values)
        self.n_rows += n

    def _labels(self, arr, name: str, where: _Where):
        """The column as int64 (integer labels) or strings, after the missing-value check."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if pa.types.is_integer(arr.type):
            if arr.null_count:
                bad = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))
                raise where.error(f"missing value in column '{name}'", bad, name)
            return pc.cast(arr, pa.int64())
        arr = _as_strings(arr, self.trim)
        bad = _empty(arr)
        if bad.size:
            raise where.error(f"missing value in column '{name}'", bad, name)
        as_int = _canonical_integers(arr)
        return arr if as_int is None else as_int

    def _numbers(self, arr, name: str, where: _Where):
        """``(values, shown)``: the column as float64 and the spelling of row ``k``."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if (
            pa.types.is_integer(arr.type)
            or pa.types.is_floating(arr.type)
            or pa.types.is_boolean(arr.type)
        ):
            if arr.null_count:
                bad = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))
                raise where.error(f"missing value in column '{name}'", bad, name)
            values = _numpy(pc.cast(arr, pa.float64()))
        else:
            arr = _as_strings(arr, self.trim)
            bad = _empty(arr)
            if bad.size:
                raise where.error(f"missing value in column '{name}'", bad, name)
            try:
                values = _numpy(pc.cast(arr, pa.float64()))
            except pa.ArrowInvalid:
                values = np.array([_to_float(s) for s in arr.to_pylist()], dtype=np.float64)

        def shown(k):
            return arr[int(k)].as_py()

        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise where.error(f"'{name}' must be a number, got {shown(bad[0])!r}", bad, name)
        return values, shown

    def _budgets(self, arr, user: np.ndarray, where: _Where) -> None:
        name = self.eps_name
        eps, shown = self._numbers(arr, name, where)
        bad = np.flatnonzero(~(eps > 0))
        if bad.size:
            raise where.error(
                f"the budget '{name}' must be positive, got {shown(bad[0])!r}", bad, name
            )
        known = self.user_eps
        if known.size < self.users.size:
            known = np.concatenate([known, np.full(self.users.size - known.size, np.nan)])
        fresh = np.isnan(known)
        first_eps = np.full(known.size, np.nan)
        first_eps[user[::-1]] = eps[::-1]  # each user's first row in this block
        known[fresh] = first_eps[fresh]
        self.user_eps = known
        bad = np.flatnonzero(known[user] != eps)
        if bad.size:
            raise where.error(
                f"user {self.users.label(user[bad[0]])!r} has different budgets "
                f"'{name}' on different rows (one release budget per user)",
                bad,
                name,
            )

    def finish(self):
        """``(comparisons, user labels or None)`` with items and users in label order."""
        from .comparisons import Comparisons

        rank, labels = self.items.finish()
        if self.pairs is not None:
            ps = self.pairs.result(rank, labels.size)
            return Comparisons._from_whole_pair_sums(ps, labels=labels), None
        parts = {name: np.concatenate(p) for name, p in self.parts.items() if p}
        m = self.n_rows
        user = user_labels = user_eps = None
        if self.users is not None:
            urank, user_labels = self.users.finish()
            user = urank[parts["user"]]
            if self.need_epsilon:
                user_eps = np.empty(user_labels.size)
                user_eps[urank] = self.user_eps
        comparisons = Comparisons(
            n_items=int(labels.size),
            i=rank[parts["i"]],
            j=rank[parts["j"]],
            y=parts["y"] if "y" in parts else np.ones(m),
            count=parts["count"] if "count" in parts else np.ones(m),
            user=user,
            labels=labels,
            user_epsilon=user_eps,
        )
        return comparisons, user_labels


class _Labels:
    """Provisional integer ids of labels, in order of first appearance over the blocks.

    Each block is factorised once (integer labels by their value range or a sort,
    text by pyarrow's hash); only the block's distinct labels are then looked up
    among those seen before. :meth:`finish` gives the final codes, in label order.
    """

    def __init__(self):
        self.ints = True
        self.values = np.empty(0, dtype=np.int64)  # integer labels, by id
        self.sorted_values = np.empty(0, dtype=np.int64)
        self.sorted_ids = np.empty(0, dtype=np.int64)
        self.text: dict[str, int] = {}
        self.text_labels: list[str] = []

    @property
    def size(self) -> int:
        return int(self.values.size) if self.ints else len(self.text_labels)

    def label(self, code) -> str:
        return str(self.values[int(code)]) if self.ints else self.text_labels[int(code)]

    def encode(self, arr) -> np.ndarray:
        """Ids of the labels in ``arr`` (pyarrow int64 or string array)."""
        import pyarrow as pa

        if arr.type == pa.int64() and self.ints:
            return self._encode_ints(_numpy(arr))
        if self.ints:  # the first text: integer labels so far keep their (canonical) spelling
            self.text_labels = [str(v) for v in self.values.tolist()]
            self.text = {s: k for k, s in enumerate(self.text_labels)}
            self.ints = False
        return self._encode_text(_as_strings(arr, False))

    def _encode_ints(self, x: np.ndarray) -> np.ndarray:
        lo, hi = int(x.min()), int(x.max())
        if hi - lo <= 4 * x.size + 65536:  # by value: a table over the range, no hashing
            present = np.zeros(hi - lo + 1, dtype=bool)
            shifted = x - lo if lo else x
            present[shifted] = True
            uniq = np.flatnonzero(present) + lo
            table = np.cumsum(present, dtype=np.int64)
            table -= 1
            local = table[shifted]
            del shifted, table, present
        else:
            uniq, local = np.unique(x, return_inverse=True)
        pos = np.searchsorted(self.sorted_values, uniq)
        found = pos < self.sorted_values.size
        found[found] = self.sorted_values[pos[found]] == uniq[found]
        ids = np.empty(uniq.size, dtype=np.int64)
        ids[found] = self.sorted_ids[pos[found]]
        new = np.flatnonzero(~found)
        if new.size:
            ids[new] = self.values.size + np.arange(new.size)
            self.values = np.concatenate([self.values, uniq[new]])
            order = np.argsort(self.values, kind="stable")
            self.sorted_values, self.sorted_ids = self.values[order], order
        return ids[local]

    def _encode_text(self, arr) -> np.ndarray:
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(arr)
        local = _numpy(encoded.indices)
        table, labels = self.text, self.text_labels
        ids = np.empty(len(encoded.dictionary), dtype=np.int64)
        for k, s in enumerate(encoded.dictionary.to_pylist()):
            code = table.get(s)
            if code is None:
                code = table[s] = len(labels)
                labels.append(s)
            ids[k] = code
        return ids[local]

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rank, labels)``: the final code of each id, and the labels in code order."""
        if self.ints:
            order = np.argsort(self.values, kind="stable")
            labels = self.values[order].astype(str)
        else:
            labels = np.asarray(self.text_labels, dtype=object)
            order = _label_order(labels)
            labels = labels[order].astype(str)
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        return rank, labels


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
    has_wl = layout == "winner,loser"
    n = len(frame)
    if n == 0:
        raise InputError("no comparisons", source, 2 if _file else None, row_word=row_word)

    if has_wl:
        first = _text_column(frame, "winner", where)
        second = _text_column(frame, "loser", where)
        y = np.ones(n)
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
        a_name = "winner" if has_wl else "item_a"
        raise where.error(
            f"self-comparison: item {first[same[0]]!r} is on both sides", same, a_name
        )
    has_count = "count" in names
    if has_count:
        count = _numeric_column(frame, "count", where)
        bad = np.flatnonzero((count <= 0) | (count != np.round(count)))
        if bad.size:
            raise where.error(
                f"count must be a positive whole number, got {frame['count'].iloc[bad[0]]!r}",
                bad,
                "count",
            )
    else:
        count = np.ones(n)

    user = user_labels = None
    if "user" in names:
        user, user_labels = _codes(_text_column(frame, "user", where))
    user_eps = None
    if need_epsilon:
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
