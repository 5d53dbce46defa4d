"""Reading and validating a user's file (or data frame) of pairwise comparisons.

The input format of ``dprank rank`` and :func:`dprank.rank`: CSV or TSV, one
comparison per row, with a header. Two layouts are accepted:

* ``winner,loser``: the first item won;
* ``item_a,item_b,outcome``: ``outcome`` is 1 if ``item_a`` won, 0 if ``item_b``
  won (a released local-DP file made with the Laplace mechanism holds real
  outcomes; those are accepted only where asked for).

Optional columns: ``user`` (who made the comparison), ``count`` (a row standing
for several identical comparisons, a positive whole number) and ``epsilon`` (the
budget each user's local-DP release was made with, positive, the same on every
row of a user). Item and user labels are arbitrary strings; other columns are
ignored. Items are numbered in the order of their labels (numeric order when
every label is an integer), users likewise.

The whole input is validated before anything is computed. A problem raises
:class:`InputError`, whose message names the file, the line (the header is line
1) and the column of the first offending rows and says what is wrong.
"""

from __future__ import annotations

import csv
import hashlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from .comparisons import Comparisons

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
    """

    comparisons: Comparisons
    layout: str
    n_rows: int
    user_labels: np.ndarray | None
    has_count: bool
    sha256: str | None = None


def file_sha256(path: str | os.PathLike) -> str:
    """sha256 (hex) of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --------------------------------------------------------------------------- reading


def _delimiter(path: Path, first_line: str) -> str:
    if path.suffix.lower() in (".tsv", ".tab"):
        return "\t"
    if "\t" in first_line and "," not in first_line:
        return "\t"
    return ","


def read_comparisons(
    path: str | os.PathLike,
    *,
    need_users: bool = False,
    need_epsilon: bool = False,
    real_outcomes: bool = False,
    epsilon_column: str = "epsilon",
) -> ComparisonTable:
    """Read and validate a comparison file (the input format in the module docstring).

    Parameters
    ----------
    path : path-like
        CSV (``,``) or TSV (tab; by the ``.tsv`` suffix or a tab-only header).
    need_users : bool
        Require a ``user`` column (individual and local DP).
    need_epsilon : bool
        Require the per-user budget column (released local-DP data).
    real_outcomes : bool
        Accept any finite ``outcome`` (a Laplace release), not only 0 and 1.
    epsilon_column : str
        Name of the budget column.

    Returns
    -------
    ComparisonTable

    Raises
    ------
    InputError
        A missing, unreadable or empty file, or any problem of
        :func:`comparisons_from_frame`, with the file's line numbers.
    """
    path = Path(path)
    source = os.fspath(path)
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            first = fh.readline()
    except FileNotFoundError:
        raise InputError("no such file", source) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source) from None
    except PermissionError:
        raise InputError("cannot be read (permission denied)", source) from None
    except UnicodeDecodeError:
        raise InputError("is not a UTF-8 text file", source, 1) from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or exc})", source) from None
    if not first.strip():
        raise InputError("the file is empty (expected a header line first)", source, 1)
    sep = _delimiter(path, first)
    frame = _read_frame(path, source, sep, first)
    if frame.empty:
        raise InputError("no comparisons after the header", source, 2)
    table = comparisons_from_frame(
        frame,
        source=source,
        need_users=need_users,
        need_epsilon=need_epsilon,
        real_outcomes=real_outcomes,
        epsilon_column=epsilon_column,
        _file=True,
    )
    return ComparisonTable(
        comparisons=table.comparisons,
        layout=table.layout,
        n_rows=table.n_rows,
        user_labels=table.user_labels,
        has_count=table.has_count,
        sha256=file_sha256(path),
    )


_LABEL_COLUMNS = ("winner", "loser", "item_a", "item_b", "user")


def _all_canonical_integers(data: bytes) -> bool:
    """No field of ``data`` is a non-canonical integer (``007``, ``+7``, ``-0``).

    Conservative: any ``+`` or ``-0`` anywhere, or a ``0`` that starts a field and
    is followed by a digit, counts as non-canonical. Vectorised over the bytes.
    """
    if b"+" in data or b"-0" in data:
        return False
    arr = np.frombuffer(data, dtype=np.uint8)
    if arr.size < 3:
        return True
    prev, mid, nxt = arr[:-2], arr[1:-1], arr[2:]
    starts = (prev == 44) | (prev == 9) | (prev == 10) | (prev == 32) | (prev == 34)
    return not np.any((mid == 48) & starts & (nxt >= 48) & (nxt <= 57))


def _read_frame(path: Path, source: str, sep: str, first_line: str) -> pd.DataFrame:
    """The file as a data frame: labels as int64 where every label is a plain integer, else text.

    Integer labels skip the hashing of millions of strings (the reading of a
    2.5-million-row file drops from about 2.5 s to 0.3 s); labels that are not
    canonical integers, or any other column, are read as text, so a label
    always keeps its exact spelling.
    """
    header = [c.strip().lower() for c in next(csv.reader([first_line], delimiter=sep))]
    label_cols = [c for c in header if c in _LABEL_COLUMNS]
    as_text = {c: str for c in header if c not in _LABEL_COLUMNS}

    def read(dtype) -> pd.DataFrame:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", pd.errors.ParserWarning)
                return pd.read_csv(
                    path,
                    sep=sep,
                    dtype=dtype,
                    keep_default_na=False,
                    na_values=[""],
                    skip_blank_lines=False,
                    skipinitialspace=True,
                    encoding="utf-8",
                    engine="c",
                    index_col=False,
                    quoting=csv.QUOTE_MINIMAL,
                )
        except UnicodeDecodeError:
            raise InputError("is not a UTF-8 text file", source) from None
        except (pd.errors.ParserError, pd.errors.ParserWarning) as exc:
            raise _field_count_error(path, source, sep, exc) from None

    if len(set(header)) != len(header) or not label_cols:
        return read(str)
    frame = read(as_text)
    names = [c.strip().lower() for c in frame.columns]
    inferred = [frame.iloc[:, names.index(c)].dtype for c in label_cols]
    if all(d == np.int64 for d in inferred):
        with open(path, "rb") as fh:
            if _all_canonical_integers(fh.read()):
                return frame
    elif all(d is np.dtype(object) or pd.api.types.is_string_dtype(d) for d in inferred):
        return frame
    return read(str)


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
    """Turns row positions into the line numbers (file) or row labels (data frame) of messages."""

    def __init__(self, source: str, columns: list[str], file: bool):
        self.source, self.columns, self.file = source, columns, file

    def error(self, problem: str, rows: np.ndarray | None = None, name: str | None = None):
        line = column = None
        extra = ""
        if rows is not None and len(rows):
            rows = np.asarray(rows)
            first = int(rows[0])
            line = first + 2 if self.file else first
            more = rows[1:_SHOWN]
            if len(rows) > 1:
                shown = ", ".join(str(int(r) + 2 if self.file else int(r)) for r in more)
                plural = "s" if len(rows) > 2 else ""
                word = ("line" if self.file else "row") + plural
                extra = f" ({len(rows) - 1} more such row{plural}, {word} {shown}"
                extra += ", ...)" if len(rows) > _SHOWN else ")"
        if name is not None and name in self.columns:
            column = self.columns.index(name) + 1
        return InputError(
            problem + extra,
            self.source,
            line,
            column,
            name,
            row_word="line" if self.file else "row",
        )


def _as_text(col: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """``(text, missing)``: the column as strings ("" where missing) and its missing cells."""
    missing = col.isna().to_numpy()
    if missing.any():
        col = col.where(~missing, "")
    text = col if col.dtype == object or pd.api.types.is_string_dtype(col) else col.astype(str)
    return text, missing | (text.to_numpy() == "")


def _text_column(frame: pd.DataFrame, name: str, where: _Where) -> np.ndarray:
    col = frame[name]
    if pd.api.types.is_integer_dtype(col) and not col.isna().any():
        return col.to_numpy(dtype=np.int64)
    text, missing = _as_text(col)
    bad = np.flatnonzero(missing)
    if bad.size:
        raise where.error(f"missing value in column '{name}'", bad, name)
    return text.to_numpy(dtype=object)


def _numeric_column(frame: pd.DataFrame, name: str, where: _Where) -> np.ndarray:
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


def _codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of ``labels`` in sorted-label order (numeric order for integer labels)."""
    codes, uniques = pd.factorize(labels, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    as_num = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy()
    if np.all(np.isfinite(as_num)) and np.all(as_num == np.round(as_num)):
        order = np.lexsort((uniques.astype(str), as_num))
    else:
        order = np.argsort(uniques.astype(str), kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[codes], uniques[order].astype(str)


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
    original = [str(c) for c in frame.columns]
    names = [c.strip().lower() for c in original]
    eps_name = epsilon_column.strip().lower()
    frame = frame.set_axis(names, axis=1).reset_index(drop=True)
    where = _Where(source, names, _file)
    header_line = 1 if _file else None
    row_word = "line" if _file else "row"

    def header_error(problem):
        return InputError(problem, source, header_line, row_word=row_word)

    dup = sorted({n for n in names if names.count(n) > 1 and n in (*KNOWN_COLUMNS, eps_name)})
    if dup:
        raise header_error(f"the header repeats the column(s) {dup}")
    has_wl = "winner" in names and "loser" in names
    has_ab = all(c in names for c in ("item_a", "item_b", "outcome"))
    if has_wl and has_ab:
        raise header_error(
            "the header has both layouts (winner,loser and item_a,item_b,outcome); keep one"
        )
    if not (has_wl or has_ab):
        raise header_error(
            f"the header {original} lacks the needed columns: expected 'winner,loser' or "
            "'item_a,item_b,outcome' (optional: user, count, epsilon)"
        )
    if need_users and "user" not in names:
        raise header_error(
            "no 'user' column: individual and local privacy protect users, so every "
            "comparison must say which user made it"
        )
    if need_epsilon and eps_name not in names:
        raise header_error(
            f"no '{eps_name}' column: a local-DP release must state the budget each user's "
            "release was made with"
        )
    n = len(frame)
    if n == 0:
        raise InputError("no comparisons", source, 2 if _file else None, row_word=row_word)

    if has_wl:
        layout = "winner,loser"
        first = _text_column(frame, "winner", where)
        second = _text_column(frame, "loser", where)
        y = np.ones(n)
    else:
        layout = "item_a,item_b,outcome"
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
