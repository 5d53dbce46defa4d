"""What every reader of comparisons shares: the input error, the validated table, the row
positions of messages and the order of labels.

Its names are those of :mod:`dprank.inputs` (which re-exports :class:`InputError` and
:class:`ComparisonTable`); it imports none of the readers (:mod:`dprank.inputs`,
:mod:`dprank._input_blocks`, :mod:`dprank._input_stream`, :mod:`dprank.arena`), so that
they import it without a circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .comparisons import Comparisons

__all__ = ["ComparisonTable", "InputError", "Where", "label_order", "opening_error"]

#: offending rows named in a message
SHOWN = 3


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
        sha256 of the file's bytes (None for a data frame, or where
        :func:`read_comparisons` was asked for none).
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


def opening_error(exc: OSError, source: str) -> InputError:
    if isinstance(exc, FileNotFoundError):
        return InputError("no such file", source)
    if isinstance(exc, IsADirectoryError):
        return InputError("is a directory, not a file", source)
    if isinstance(exc, PermissionError):
        return InputError("cannot be read (permission denied)", source)
    return InputError(f"cannot be read ({exc.strerror or exc})", source)


class Where:
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
            more = rows[1:SHOWN]
            if len(rows) > 1:
                shown = ", ".join(str(int(r) + self.offset) for r in more)
                plural = "s" if len(rows) > 2 else ""
                upto = f" up to {self.row_word} {self.upto}" if self.upto is not None else ""
                extra = f" ({len(rows) - 1} more such row{plural}{upto}, "
                extra += f"{self.row_word}{plural} {shown}"
                extra += ", ...)" if len(rows) > SHOWN else ")"
        if name is not None and name in self.columns:
            column = self.columns.index(name) + 1
        return InputError(problem + extra, self.source, line, column, name, self.row_word)


NUMBER_CHARACTERS = frozenset("0123456789+-.eE \t")


def label_order(uniques: np.ndarray) -> np.ndarray:
    """Order of distinct labels: numeric if every label is an integer (ties by text), else text."""
    text = uniques.astype(str)
    if not set("".join(text.tolist())) <= NUMBER_CHARACTERS:  # a letter: text (no pandas import)
        return np.argsort(text, kind="stable")
    import pandas as pd

    as_num = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy()
    if np.all(np.isfinite(as_num)) and np.all(as_num == np.round(as_num)):
        return np.lexsort((uniques.astype(str), as_num))
    return np.argsort(uniques.astype(str), kind="stable")
