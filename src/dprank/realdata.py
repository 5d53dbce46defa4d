"""The two real data sets of Paper A's Figure 8: readers and win matrices.

* **CEMS** (left panel): the data frame ``preferences`` of the R list ``CEMS`` in
  BradleyTerry2's ``CEMS.rda`` (4545 rows: 303 students x 15 pairs of 6 schools).
  BradleyTerry2's copy is used, not prefmod's ``cemspc``: the two agree except
  that ``cemspc`` has the Barcelona-Stockholm comparison reversed (see
  ``shared/data/PROVENANCE.md``). Rows with a missing outcome (91) and ties
  (487) are dropped, leaving 3967 comparisons.
* **immig** (right panel): prefmod's data frame ``immig`` (98 rows). Columns
  ``Vab`` compare items a and b (1 crimRate, 2 position, 3 socBurd, 4 culture):
  1 means a beat b, -1 that b beat a; 0 (undecided) and missing answers are
  dropped, leaving 379 comparisons.

``W[i, j]`` is the number of times item i beat item j. The constants ``L``
(comparisons per individual, which sets the noise scales) and ``m`` (number
of individuals) are those of ``docs/papers/paper-a.md#fig8``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import _checks

__all__ = [
    "CEMS_ITEMS",
    "IMMIG_ITEMS",
    "IMMIG_PAIRS",
    "REAL_DATASETS",
    "RealDataSet",
    "cems_comparisons",
    "cems_win_matrix",
    "immig_comparisons",
    "immig_win_matrix",
    "load_real_dataset",
    "read_cems",
    "read_immig",
    "win_frame",
]

CEMS_ITEMS = ("Barcelona", "London", "Milano", "Paris", "St.Gallen", "Stockholm")
IMMIG_ITEMS = ("crimRate", "position", "socBurd", "culture")
# Comparison column -> (first item, second item), 0-based indices into IMMIG_ITEMS.
IMMIG_PAIRS = {
    "V12": (0, 1),
    "V13": (0, 2),
    "V23": (1, 2),
    "V14": (0, 3),
    "V24": (1, 3),
    "V34": (2, 3),
}
_CEMS_COLUMNS = ("school1", "school2", "win1", "win2", "tied")
INDEX_NAME = "row_item_beats_column_item"


@dataclass(frozen=True, eq=False)
class RealDataSet:
    """A real data set as the Figure 8 experiment uses it.

    Attributes
    ----------
    name : str
        ``"cems"`` or ``"immig"``.
    items : tuple of str
        Item names, in the order of ``wins``' rows and columns.
    wins : numpy.ndarray
        Integer (n, n) matrix: ``wins[i, j]`` = number of times item i beat item j.
    L : int
        Comparisons per individual (sets the noise scales).
    m : int
        Number of individuals.
    """

    name: str
    items: tuple[str, ...]
    wins: np.ndarray
    L: int
    m: int

    @property
    def n(self) -> int:
        """Number of items."""
        return len(self.items)


def read_cems(path: str | os.PathLike) -> pd.DataFrame:
    """The ``preferences`` data frame of BradleyTerry2's ``CEMS.rda``.

    Parameters
    ----------
    path : path-like
        ``CEMS.rda`` (an R list of 3 data frames, which pyreadr cannot read).

    Returns
    -------
    pandas.DataFrame
        4545 x 8: student, school1, school2 (categorical), win1, win2, tied, win1.adj, win2.adj.
    """
    _checks.path(path, "path")
    import rdata  # imported here: only the real-data stages need it

    return rdata.read_rda(path)["CEMS"]["preferences"]


def read_immig(path: str | os.PathLike) -> pd.DataFrame:
    """prefmod's ``immig`` data frame (98 x 9) from ``immig.RData``.

    Parameters
    ----------
    path : path-like
        ``immig.RData``.

    Returns
    -------
    pandas.DataFrame
        Columns V12, V13, V23, V14, V24, V34 (1, 0, -1 or NaN), SEX, AGE, NAT.
    """
    _checks.path(path, "path")
    import pyreadr  # imported here: only the real-data stages need it

    return pyreadr.read_r(path)["immig"]


def _require_columns(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing columns {missing}; got {list(frame.columns)}")


def cems_win_matrix(preferences: pd.DataFrame) -> tuple[tuple[str, ...], np.ndarray]:
    """Win matrix of the CEMS preferences (rows with a missing outcome, and ties, dropped).

    Parameters
    ----------
    preferences : pandas.DataFrame
        ``CEMS$preferences``: one row per (student, pair) with columns school1,
        school2, win1, win2 and tied.

    Returns
    -------
    items : tuple of str
        The schools in alphabetical order.
    wins : numpy.ndarray
        int64 (n, n): ``wins[i, j]`` = times school i was preferred to school j.
    """
    _checks.frame(preferences, "preferences")
    _require_columns(preferences, _CEMS_COLUMNS, "preferences (CEMS)")
    s1 = preferences["school1"].astype(str).to_numpy()
    s2 = preferences["school2"].astype(str).to_numpy()
    items = tuple(sorted(set(s1) | set(s2)))
    decided = preferences[["win1", "win2", "tied"]].notna().all(axis=1).to_numpy()
    w1, w2 = preferences["win1"].to_numpy(), preferences["win2"].to_numpy()
    keep = decided & (preferences["tied"].to_numpy() == 0) & (w1 != w2)
    first_won = w1[keep] > w2[keep]
    codes1 = np.searchsorted(items, s1[keep])
    codes2 = np.searchsorted(items, s2[keep])
    winner = np.where(first_won, codes1, codes2)
    loser = np.where(first_won, codes2, codes1)
    return items, _count(winner, loser, len(items))


def immig_win_matrix(frame: pd.DataFrame) -> tuple[tuple[str, ...], np.ndarray]:
    """Win matrix of prefmod's ``immig`` (undecided and missing answers dropped).

    Parameters
    ----------
    frame : pandas.DataFrame
        ``immig``, with comparison columns V12, V13, V23, V14, V24, V34 holding
        1 (first item preferred), -1 (second), 0 (undecided) or NaN.

    Returns
    -------
    items : tuple of str
        ``IMMIG_ITEMS``: crimRate, position, socBurd, culture (items 1-4).
    wins : numpy.ndarray
        int64 (4, 4): ``wins[i, j]`` = times item i was preferred to item j.

    Raises
    ------
    ValueError
        If a comparison column holds a value other than 1, 0, -1 or NaN.
    """
    columns = list(IMMIG_PAIRS)
    _checks.frame(frame, "frame")
    _require_columns(frame, columns, "frame (immig)")
    values = frame[columns].to_numpy(dtype=float)
    bad = ~(np.isnan(values) | np.isin(values, (-1.0, 0.0, 1.0)))
    if bad.any():
        raise ValueError(
            f"frame (immig): comparison values must be 1, 0, -1 or NaN; got {values[bad]}"
        )
    first, second = np.array(list(IMMIG_PAIRS.values())).T  # one entry per column
    wins = np.zeros((len(IMMIG_ITEMS),) * 2, dtype=np.int64)
    wins[first, second] = (values == 1).sum(axis=0)
    wins[second, first] = (values == -1).sum(axis=0)
    return IMMIG_ITEMS, wins


def cems_comparisons(preferences: pd.DataFrame) -> pd.DataFrame:
    """The decided CEMS comparisons, one per row (the rows :func:`cems_win_matrix` counts).

    Parameters
    ----------
    preferences : pandas.DataFrame
        ``CEMS$preferences`` (see :func:`cems_win_matrix`).

    Returns
    -------
    pandas.DataFrame
        ``winner, loser, user`` (school names; the student number as text), in
        the order of the data frame; missing outcomes and ties dropped.
    """
    _checks.frame(preferences, "preferences")
    _require_columns(preferences, (*_CEMS_COLUMNS, "student"), "preferences (CEMS)")
    decided = preferences[["win1", "win2", "tied"]].notna().all(axis=1).to_numpy()
    w1, w2 = preferences["win1"].to_numpy(), preferences["win2"].to_numpy()
    keep = decided & (preferences["tied"].to_numpy() == 0) & (w1 != w2)
    s1 = preferences["school1"].astype(str).to_numpy()[keep]
    s2 = preferences["school2"].astype(str).to_numpy()[keep]
    first_won = w1[keep] > w2[keep]
    student = preferences["student"].to_numpy()[keep]
    return pd.DataFrame(
        {
            "winner": np.where(first_won, s1, s2),
            "loser": np.where(first_won, s2, s1),
            "user": [str(int(u)) for u in student],
        }
    )


def immig_comparisons(frame: pd.DataFrame) -> pd.DataFrame:
    """The decided immigration comparisons, one per row (those :func:`immig_win_matrix` counts).

    Parameters
    ----------
    frame : pandas.DataFrame
        prefmod's ``immig`` (see :func:`immig_win_matrix`).

    Returns
    -------
    pandas.DataFrame
        ``winner, loser, user`` (item names of :data:`IMMIG_ITEMS`; the
        respondent's row number, from 1, as text), respondent by respondent in
        the column order V12, V13, V23, V14, V24, V34; undecided and missing
        answers dropped.
    """
    columns = list(IMMIG_PAIRS)
    _checks.frame(frame, "frame")
    _require_columns(frame, columns, "frame (immig)")
    values = frame[columns].to_numpy(dtype=float)
    first, second = np.array(list(IMMIG_PAIRS.values())).T
    rows, cols = np.nonzero((values == 1) | (values == -1))
    a_won = values[rows, cols] == 1
    items = np.asarray(IMMIG_ITEMS, dtype=object)
    return pd.DataFrame(
        {
            "winner": items[np.where(a_won, first[cols], second[cols])],
            "loser": items[np.where(a_won, second[cols], first[cols])],
            "user": (rows + 1).astype(str),
        }
    )


def _count(winner: np.ndarray, loser: np.ndarray, n: int) -> np.ndarray:
    flat = np.bincount(winner * n + loser, minlength=n * n)
    return flat.reshape(n, n).astype(np.int64)


def win_frame(items: tuple[str, ...], wins: np.ndarray) -> pd.DataFrame:
    """A win matrix as a table with the items as header and index (the reference CSV layout).

    Parameters
    ----------
    items : tuple of str
        Item names.
    wins : numpy.ndarray
        (n, n) win matrix.

    Returns
    -------
    pandas.DataFrame
        Index named ``row_item_beats_column_item``.
    """
    if not isinstance(items, (tuple, list)) or not all(isinstance(x, str) for x in items):
        raise TypeError(f"items must be a sequence of item names (str), got {items!r}")
    _checks.win_matrix(wins, "wins")
    if np.shape(wins)[0] != len(items):
        raise ValueError(
            f"wins must be ({len(items)}, {len(items)}) for {len(items)} items, "
            f"got shape {np.shape(wins)}"
        )
    frame = pd.DataFrame(wins, index=list(items), columns=list(items))
    frame.index.name = INDEX_NAME
    return frame


@dataclass(frozen=True)
class _Spec:
    reader: Callable[[str | os.PathLike], pd.DataFrame]
    win_matrix: Callable[[pd.DataFrame], tuple[tuple[str, ...], np.ndarray]]
    L: int
    m: int


_SPECS = {
    "cems": _Spec(read_cems, cems_win_matrix, L=15, m=303),
    "immig": _Spec(read_immig, immig_win_matrix, L=6, m=98),
}
REAL_DATASETS = tuple(_SPECS)


def load_real_dataset(name: str, path: str | os.PathLike) -> RealDataSet:
    """Read a real data set's file and build its win matrix.

    Parameters
    ----------
    name : str
        ``"cems"`` (path: ``CEMS.rda``) or ``"immig"`` (path: ``immig.RData``).
    path : path-like
        The data file (``resources/data/<name>/...`` in the workflow).

    Returns
    -------
    RealDataSet
        Items, win matrix and the constants L and m of docs/papers/paper-a.md#fig8.
    """
    _checks.text(name, "name")
    _checks.path(path, "path")
    if name not in _SPECS:
        raise ValueError(f"name: unknown real data set {name!r}; known: {list(_SPECS)}")
    spec = _SPECS[name]
    items, wins = spec.win_matrix(spec.reader(path))
    return RealDataSet(name=name, items=items, wins=wins, L=spec.L, m=spec.m)
