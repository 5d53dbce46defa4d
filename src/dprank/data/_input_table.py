"""What a validated comparison input is, and how its problems are reported.

The parts of :mod:`dprank.data.inputs` that its readers share (the compiled reader's
blocks, :mod:`dprank.data._input_blocks`; data frames, :mod:`dprank.data._input_frame`;
arena files, :mod:`dprank.data.arena`): the error and its row numbers, the validated
table, the header's check and the order of labels. No reader is imported here,
so each imports this module and none imports another's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .comparisons import Comparisons

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

    def positive_budgets(self, eps: np.ndarray, name: str, shown) -> None:
        """Refuse a budget that is not positive (``shown(k)``: row ``k``'s value as read)."""
        bad = np.flatnonzero(~(eps > 0))
        if bad.size:
            raise self.error(
                f"the budget '{name}' must be positive, got {shown(bad[0])!r}", bad, name
            )

    def one_budget_per_user(
        self, per_user: np.ndarray, user: np.ndarray, eps: np.ndarray, name: str, label
    ) -> None:
        """Refuse a row whose budget is not its user's (``label(u)``: user ``u``'s label)."""
        bad = np.flatnonzero(per_user[user] != eps)
        if bad.size:
            raise self.error(
                f"user {label(user[bad[0]])!r} has different budgets "
                f"'{name}' on different rows (one release budget per user)",
                bad,
                name,
            )


_NUMBER_CHARACTERS = "0123456789+-.eE \t"


def label_order(uniques: np.ndarray) -> np.ndarray:
    """Order of distinct labels: numeric if every label is an integer (ties by text), else text.

    ``uniques``: the labels as objects, or as numpy text (``U``; taken as it is, no copy).
    """
    text = uniques if uniques.dtype.kind == "U" else uniques.astype(str)
    # strip leaves nothing only where every character is one of a number's (a letter: text,
    # found at the first label that has one; no pandas import)
    if "".join(text.tolist()).strip(_NUMBER_CHARACTERS):
        return np.argsort(text, kind="stable")
    import pandas as pd

    as_num = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy()
    if np.all(np.isfinite(as_num)) and np.all(as_num == np.round(as_num)):
        return np.lexsort((uniques.astype(str), as_num))
    return np.argsort(uniques.astype(str), kind="stable")


def check_header(
    names, original, eps_name, *, need_users, need_epsilon, source, line, row_word
) -> str:
    """The layout named by the (lower-case) column names.

    A bad header raises :class:`InputError` at ``source``, ``line`` (the header's line,
    or None) and ``row_word``.
    """

    def error(problem):
        return InputError(problem, source, line, row_word=row_word)

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
