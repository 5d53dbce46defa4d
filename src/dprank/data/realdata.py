"""The real data sets' readers: Paper A's Figure 8 (win matrices), B1's MovieLens, B2's cars.

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

* **MovieLens** (B1 section 5.3): :func:`read_ratings` keeps the most-rated movies of
  ml-latest-small's ``ratings.csv``.
* **cars** (B2 section 5.2): :func:`read_car_data` reads the car preference data.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..base import _checks

__all__ = [
    "BODY_TYPES",
    "CEMS_ITEMS",
    "FUELS",
    "IMMIG_ITEMS",
    "IMMIG_PAIRS",
    "REAL_DATASETS",
    "REAL_DATASET_L",
    "TRANSMISSIONS",
    "CarData",
    "MovieLensData",
    "RealDataSet",
    "cems_comparisons",
    "cems_win_matrix",
    "immig_comparisons",
    "immig_win_matrix",
    "load_real_dataset",
    "read_car_data",
    "read_cems",
    "read_immig",
    "read_ratings",
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
#: Data set -> ``L``, the most comparisons any user of it has (every pair of its items once).
REAL_DATASET_L = {name: spec.L for name, spec in _SPECS.items()}


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


# ---------------------------------------------------------------------------
# MovieLens (Paper B1, section 5.3)

_MOVIELENS_COLUMNS = ("userId", "movieId", "rating")


@dataclass(frozen=True, eq=False)
class MovieLensData:
    """Ratings of the most-rated movies of ml-latest-small (B1 5.3, docs/papers/paper-b.md#s4-2).

    Attributes
    ----------
    movie_ids : (m,) int64
        MovieLens ids of the ``m`` most-rated movies, most rated first (ties in
        the count broken by the smaller movie id).
    counts : (m,) int64
        Number of ratings of each movie (non-increasing).
    users : (U,) int64
        All user ids of the file, sorted (610 in ml-latest-small), including
        users who rated none of the ``m`` movies.
    ratings : (U, m) float64
        ``ratings[u, i]``: the rating (0.5-5) of user ``users[u]`` for movie
        ``movie_ids[i]``; NaN where the user did not rate the movie.
    """

    movie_ids: np.ndarray
    counts: np.ndarray
    users: np.ndarray
    ratings: np.ndarray

    @property
    def m(self) -> int:
        """Number of movies (items)."""
        return int(self.movie_ids.size)

    @property
    def n_users(self) -> int:
        """Number of users ``U``."""
        return int(self.users.size)


def read_ratings(path: str | Path, n_movies: int = 40) -> MovieLensData:
    """Read ``ratings.csv``, keep the ``n_movies`` most-rated movies (docs/papers/paper-b.md#s4-2).

    B1 section 5.3 uses "the 40 most-rated movies" of the data it calls
    MovieLens 100K; its counts (100,836 ratings, 610 users) are those of
    ml-latest-small, the release used here (docs/papers/paper-b.md#s4-2, A28).

    Parameters
    ----------
    path : str or pathlib.Path
        ``ratings.csv`` with (at least) the columns ``userId, movieId, rating``.
    n_movies : int, default 40
        Number of movies ``m`` (B1: 40). Ties in the number of ratings are
        broken by the smaller ``movieId``.

    Returns
    -------
    MovieLensData

    Raises
    ------
    ValueError
        If a column is missing, a rating is not finite, a (user, movie) pair is
        rated twice, or the file has fewer than ``n_movies`` movies.
    """
    _checks.path(path, "path")
    _checks.count(n_movies, "n_movies", 2)
    frame = pd.read_csv(path)
    missing = [c for c in _MOVIELENS_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: missing column(s) {missing}; expected MovieLens ratings.csv with "
            f"columns {list(_MOVIELENS_COLUMNS)} (and timestamp), found {list(frame.columns)}"
        )
    n_movies = int(n_movies)
    if n_movies < 2:
        raise ValueError(f"n_movies must be at least 2, got {n_movies}")
    rating = pd.to_numeric(frame["rating"], errors="coerce").to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(rating)):
        raise ValueError(f"{path}: the rating column has missing or non-numeric values")
    if frame.duplicated(["userId", "movieId"]).any():
        raise ValueError(f"{path}: some (userId, movieId) pairs are rated more than once")
    counts = frame.groupby("movieId").size()
    if counts.size < n_movies:
        raise ValueError(f"{path}: only {counts.size} movies, cannot keep n_movies = {n_movies}")
    order = counts.reset_index(name="n").sort_values(
        ["n", "movieId"], ascending=[False, True], kind="mergesort"
    )
    top = order.head(n_movies)
    movie_ids = top["movieId"].to_numpy(dtype=np.int64)
    users = np.unique(frame["userId"].to_numpy(dtype=np.int64))

    keep = frame["movieId"].isin(movie_ids).to_numpy()
    col = pd.Index(movie_ids).get_indexer(frame.loc[keep, "movieId"])
    row = np.searchsorted(users, frame.loc[keep, "userId"].to_numpy(dtype=np.int64))
    ratings = np.full((users.size, n_movies), np.nan)
    ratings[row, col] = rating[keep]
    return MovieLensData(
        movie_ids=movie_ids,
        counts=top["n"].to_numpy(dtype=np.int64),
        users=users,
        ratings=ratings,
    )


# ---------------------------------------------------------------------------
# the car preference data (Paper B2, section 5.2)

# Raw codes of items1.csv -> labels of B2 Table 1. Inferred by matching the ten
# rows of the file against the ten columns of Table 1 (every code agrees with
# every car), and identical to the coding documented by the repository the file
# comes from (shared/data/PROVENANCE.md section 3; 3 = hatchback never occurs):
#: ``BodyType`` code -> label (1 = Sedan, 2 = SUV)
BODY_TYPES = {1: "Sedan", 2: "SUV", 3: "Hatchback"}
#: ``Transmission`` code -> label (1 = Manual, 2 = Auto)
TRANSMISSIONS = {1: "Manual", 2: "Auto"}
#: ``Fuel Consumed`` code -> label (1 = Hybrid, 2 = Non-Hybrid)
FUELS = {1: "Hybrid", 2: "Non-Hybrid"}
# ``Engin Capacity`` is in litres (2.5 -> "2.5L").

_PREF_COLUMNS = ("User ID", "Item1 ID", "Item2 ID", "Is Control")


@dataclass(frozen=True, eq=False)
class CarData:
    """The car preference data of B2 section 5.2 (experiment 1 of Abbasnejad et al. 2013).

    Attributes
    ----------
    items : pandas.DataFrame
        One row per car, sorted by id: ``Car`` (the item id of ``items1.csv``),
        ``Body`` (SUV/Sedan), ``Transmission`` (Manual/Auto), ``Engine``
        (``"2.5L"`` ... ``"6.2L"``) and ``Fuel`` (Hybrid/Non-Hybrid), the rows of
        B2 Table 1.
    users : (L,) numpy.ndarray of int64
        User ids, ascending; row ``l`` of ``y`` is user ``users[l]``.
    y : (L, P) numpy.ndarray of uint8
        ``y[l, k] = 1`` iff user ``l`` preferred the lower-id item of pair ``k``,
        pairs in ``numpy.triu_indices(m, 1)`` order of the item ids sorted
        ascending (docs/papers/paper-b.md#s1-1). 0 where the pair was not observed.
    observed : (L, P) numpy.ndarray of bool
        ``a_ij^(l)``: the user answered the pair (outside the control questions).
        All true for complete data.
    n_control_rows : int
        Control rows dropped (``Is Control == 1``).
    """

    items: pd.DataFrame
    users: np.ndarray
    y: np.ndarray
    observed: np.ndarray
    n_control_rows: int

    @property
    def m(self) -> int:
        """Number of cars."""
        return len(self.items)

    @property
    def item_ids(self) -> np.ndarray:
        """Car ids, ascending (item ``i`` of the pair layout is ``item_ids[i]``)."""
        return self.items["Car"].to_numpy()

    @property
    def complete(self) -> bool:
        """Every user answered every pair."""
        return bool(self.observed.all())


def _decode(raw: pd.Series, labels: Mapping[int, str], column: str) -> pd.Series:
    codes = raw.astype("int64")
    unknown = sorted(set(codes) - set(labels))
    if unknown:
        raise ValueError(f"items1.csv column {column!r} has unknown codes {unknown}")
    return codes.map(labels)


def _car_items(raw_items: pd.DataFrame) -> pd.DataFrame:
    """``items1.csv`` decoded (:attr:`CarData.items`), sorted by car id; ids must be distinct."""
    raw_items = raw_items.sort_values("Item ID", kind="stable").reset_index(drop=True)
    items = pd.DataFrame(
        {
            "Car": raw_items["Item ID"].astype("int64"),
            "Body": _decode(raw_items["BodyType"], BODY_TYPES, "BodyType"),
            "Transmission": _decode(raw_items["Transmission"], TRANSMISSIONS, "Transmission"),
            "Engine": [f"{float(v):.1f}L" for v in raw_items["Engin Capacity"]],
            "Fuel": _decode(raw_items["Fuel Consumed"], FUELS, "Fuel Consumed"),
        }
    )
    item_ids = items["Car"].to_numpy()
    if len(np.unique(item_ids)) != item_ids.size:
        raise ValueError("items1.csv has duplicate item ids")
    return items


def _user_pairs(real: pd.DataFrame, users: np.ndarray, item_ids: np.ndarray):
    """Indices of the non-control rows: user, winner, loser and pair (``k`` of the layout).

    Raises ``ValueError`` for an unknown user or car, a car compared with
    itself, or a pair a user answered twice.
    """
    m = item_ids.size
    P = m * (m - 1) // 2
    u = real["User ID"].astype("int64").to_numpy()
    win = real["Item1 ID"].astype("int64").to_numpy()
    lose = real["Item2 ID"].astype("int64").to_numpy()
    if not np.isin(u, users).all():
        raise ValueError(f"prefs1.csv has users not in users1.csv: {sorted(set(u) - set(users))}")
    known = np.isin(win, item_ids) & np.isin(lose, item_ids)
    if not known.all():
        raise ValueError("prefs1.csv compares cars not in items1.csv")
    if np.any(win == lose):
        raise ValueError("prefs1.csv compares a car with itself")

    ui = np.searchsorted(users, u)
    wi, li = np.searchsorted(item_ids, win), np.searchsorted(item_ids, lose)
    lo, hi = np.minimum(wi, li), np.maximum(wi, li)
    pair_index = np.full((m, m), -1, dtype=np.int64)
    iu, ju = np.triu_indices(m, k=1)
    pair_index[iu, ju] = np.arange(P)
    k = pair_index[lo, hi]

    flat = ui * P + k
    if np.unique(flat).size != flat.size:
        raise ValueError("a user answered the same pair twice outside the control questions")
    return ui, wi, li, k


def read_car_data(folder, *, allow_missing: bool = False) -> CarData:
    """Read the car preference data (B2 section 5.2, Table 1; docs/papers/paper-b.md#s4-1, A17).

    Each row of ``prefs1.csv`` is ``User ID, Item1 ID, Item2 ID, Is Control``
    with ``Item1`` the preferred car. Rows with ``Is Control == 1`` repeat an
    earlier question (reversed) to check attention and are dropped (spec
    A17); what is left must be 45 distinct pairs per user, ``y_ij = 1`` iff the
    lower-id car ``i`` was chosen.

    Parameters
    ----------
    folder : str or path-like
        Folder with ``items1.csv``, ``users1.csv`` and ``prefs1.csv`` (read with
        ``pandas.read_csv(path, skipinitialspace=True)``).
    allow_missing : bool, default False
        By default a user with fewer than ``m (m - 1) / 2`` non-control
        comparisons raises ``ValueError`` (B2 states 45 per user). With
        ``True`` the missing pairs are recorded in :attr:`CarData.observed`
        instead (the shipped file misses 25 of the 2700; module docstring).

    Returns
    -------
    CarData

    Raises
    ------
    ValueError
        Unknown attribute codes, a comparison of an unknown car or user, a car
        compared with itself, a pair answered twice by a user, or (unless
        ``allow_missing``) a user without all pairs.
    """
    _checks.path(folder, "folder")
    _checks.flag(allow_missing, "allow_missing")
    folder = Path(folder)
    raw_items = pd.read_csv(folder / "items1.csv", skipinitialspace=True)
    raw_users = pd.read_csv(folder / "users1.csv", skipinitialspace=True)
    prefs = pd.read_csv(folder / "prefs1.csv", skipinitialspace=True)
    missing_cols = [c for c in _PREF_COLUMNS if c not in prefs.columns]
    if missing_cols:
        raise ValueError(f"prefs1.csv lacks the columns {missing_cols}")

    items = _car_items(raw_items)
    item_ids = items["Car"].to_numpy()
    users = np.sort(raw_users["User ID"].astype("int64").to_numpy())
    m, L = item_ids.size, users.size
    P = m * (m - 1) // 2

    control = prefs["Is Control"].astype("int64")
    if not control.isin((0, 1)).all():
        raise ValueError("prefs1.csv 'Is Control' must be 0 or 1")
    real = prefs[control == 0]
    n_control = int((control == 1).sum())

    ui, wi, li, k = _user_pairs(real, users, item_ids)
    per_user = np.bincount(ui, minlength=L)
    short = {int(users[i]): int(per_user[i]) for i in np.flatnonzero(per_user != P)}
    if short and not allow_missing:
        raise ValueError(
            f"after dropping the {n_control} control rows, {len(short)} users do not have "
            f"exactly {P} comparisons (user id: count) {short}; {int(P * L - per_user.sum())} "
            f"of {P * L} pairs are missing. Pass allow_missing=True to keep them as "
            "unobserved pairs (a_ij = 0)."
        )

    y = np.zeros((L, P), dtype=np.uint8)
    observed = np.zeros((L, P), dtype=bool)
    observed[ui, k] = True
    y[ui, k] = (wi < li).astype(np.uint8)
    return CarData(items=items, users=users, y=y, observed=observed, n_control_rows=n_control)
