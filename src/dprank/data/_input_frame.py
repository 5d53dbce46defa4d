"""Comparisons from a data frame (:func:`dprank.data.inputs.comparisons_from_frame`).

The columns and their checks are those of a file (:mod:`dprank.data.inputs`); a data
frame is validated column by column with pandas, its distinct labels normalised
(:func:`dprank.data.inputs.normalize_label`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..base import _checks
from ..base._csv_cells import normalize_label
from ._input_table import ComparisonTable, InputError, Where, check_header, label_order
from .comparisons import Comparisons

if TYPE_CHECKING:
    import pandas as pd


def _as_text(col: pd.Series) -> tuple[pd.Series, np.ndarray]:
    """``(text, missing)``: the column as strings ("" where missing) and its missing cells."""
    import pandas as pd

    missing = col.isna().to_numpy()
    if missing.any():
        # as objects first: a nullable column (Int64, boolean) cannot hold "" itself
        col = col.astype(object).where(~missing, "")
    text = col if col.dtype == object or pd.api.types.is_string_dtype(col) else col.astype(str)
    return text, missing | (text.to_numpy() == "")


def _text_column(frame: pd.DataFrame, name: str, where: Where) -> np.ndarray:
    """A label column: int64 (integer labels), or its texts normalised (:func:`normalize_label`)."""
    import pandas as pd

    col = frame[name]
    if pd.api.types.is_integer_dtype(col) and not col.isna().any():
        return col.to_numpy(dtype=np.int64)
    text, missing = _as_text(col)
    bad = np.flatnonzero(missing)
    if bad.size:
        raise where.error(f"missing value in column '{name}'", bad, name)
    values = text.to_numpy(dtype=object)
    codes, uniques = pd.factorize(values)  # normalise the distinct labels, not the rows
    normal = [normalize_label(u) if isinstance(u, str) else u for u in uniques.tolist()]
    if normal != uniques.tolist():
        values = np.asarray(normal, dtype=object)[codes]
        bad = np.flatnonzero(values == "")
        if bad.size:
            raise where.error(f"missing value in column '{name}'", bad, name)
    return values


def _numeric_column(frame: pd.DataFrame, name: str, where: Where) -> np.ndarray:
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


def _codes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of ``labels`` in sorted-label order (numeric order for integer labels)."""
    import pandas as pd

    codes, uniques = pd.factorize(labels, sort=False)
    uniques = np.asarray(uniques, dtype=object)
    order = label_order(uniques)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    return rank[codes], uniques[order].astype(str)


def check_options(epsilon_column, **flags) -> None:
    """The options of :func:`comparisons_from_frame` and :func:`dprank.data.inputs.read_comparisons`
    that both take: the budget column's name (text) and the flags (booleans), by name."""
    _checks.text(epsilon_column, "epsilon_column")
    for name, value in flags.items():
        _checks.flag(value, name)


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
        One record per row (``aggregated`` False) and no ``sha256``.

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
    check_options(
        epsilon_column, need_users=need_users, need_epsilon=need_epsilon,
        real_outcomes=real_outcomes,
    )  # fmt: skip
    original = [str(c) for c in frame.columns]
    names = [c.strip().lower() for c in original]
    eps_name = epsilon_column.strip().lower()
    frame = frame.set_axis(names, axis=1).reset_index(drop=True)
    row_word = "line" if _file else "row"
    where = Where(source, names, 2 if _file else 0, row_word)
    layout = check_header(
        names, original, eps_name, need_users=need_users, need_epsilon=need_epsilon,
        source=source, line=1 if _file else None, row_word=row_word,
    )  # fmt: skip
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


def _frame_items(frame: pd.DataFrame, layout: str, where: Where, real_outcomes: bool):
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


def _frame_counts(frame: pd.DataFrame, where: Where) -> np.ndarray:
    """The ``count`` column, checked: positive whole numbers."""
    count = _numeric_column(frame, "count", where)
    bad = np.flatnonzero((count <= 0) | (count != np.round(count)) | (count >= 2.0**53))
    if bad.size:
        raise where.error(
            "count must be a positive whole number below 2^53, got "
            f"{frame['count'].iloc[bad[0]]!r}",
            bad,
            "count",
        )
    return count


def _frame_budgets(frame: pd.DataFrame, eps_name: str, user, user_labels, where: Where):
    """Each user's budget from the column ``eps_name``: positive, one per user."""
    eps = _numeric_column(frame, eps_name, where)
    where.positive_budgets(eps, eps_name, lambda k: frame[eps_name].iloc[k])
    user_eps = np.full(len(user_labels), np.nan)
    user_eps[user[::-1]] = eps[::-1]  # each user's first row; the others are checked next
    where.one_budget_per_user(user_eps, user, eps, eps_name, lambda u: str(user_labels[u]))
    return user_eps
