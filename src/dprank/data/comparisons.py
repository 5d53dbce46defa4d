"""Pairwise comparison data as an edge list (memory ``O(n + m)``).

The papers' estimators are written on the ``n x n`` win matrix
(Paper A, eq. (2.2): ``wins[i, j]`` = number of comparisons ``i`` won against
``j``). Real comparison data sets hold a few thousand to a hundred thousand
items that each meet a few dozen others, so the common currency of the
library is :class:`Comparisons`: one record per (group of) comparison(s),
with the items, the outcome for the first item, a multiplicity and
optionally the user who made it (Paper B's local-DP setting).

The sufficient statistics of every estimator are the per-pair aggregates of
:meth:`Comparisons.pair_statistics`: for each unordered observed pair
``a < b`` the total count ``n_ab`` and the (count-weighted) sum of the
outcomes for ``a``. For 0/1 outcomes these are the win matrix's entries
``wins[a, b] + wins[b, a]`` and ``wins[a, b]``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..base import _checks
from ._records import as_count, as_float, as_index, as_labels, as_user_epsilon, checked_records

__all__ = ["Comparisons", "PairArrays", "PairStatistics", "PairSums", "connected_components"]


@dataclass(frozen=True, eq=False)
class PairArrays:
    """Arrays over the compared pairs ``a < b`` of ``n_items`` items, one entry a pair.

    The common part of the per-pair tables: :class:`PairStatistics` (counts and
    outcome sums), :class:`dprank.fit.ties.TieCounts` (wins, losses and ties) and
    :class:`dprank.intervals.EdgeDesign` (the public comparison graph) each add
    their ``(P,)`` arrays after these fields.

    Attributes
    ----------
    n_items : int
    a, b : (P,) integer arrays
        The pairs, ``a < b``.
    """

    n_items: int
    a: np.ndarray
    b: np.ndarray

    @property
    def n_pairs(self) -> int:
        """Number of distinct observed pairs."""
        return int(self.a.size)


@dataclass(frozen=True, eq=False)
class PairStatistics(PairArrays):
    """Comparisons aggregated over unordered observed pairs (:class:`PairArrays`).

    Attributes
    ----------
    a, b : (P,) integer arrays
        The pairs, ``a < b``, sorted by ``(a, b)``: int64, or int32 where summed
        by :class:`PairSums` (the sparse solver's loops take them without a copy).
    n : (P,) float64 array
        Total count of comparisons of the pair.
    w : (P,) float64 array
        Count-weighted sum of the outcomes for ``a`` (wins of ``a`` for 0/1
        outcomes; a tie counts 1/2); ``n - w`` is the same for ``b``.
    t : (P,) float64 array or None
        Ties of the pair (comparisons with three outcomes, ``Comparisons(...,
        ties=True)``): ``a`` won ``w - t/2`` times and ``b`` ``n - w - t/2`` times.
        ``None`` where the data have two outcomes.
    """

    n: np.ndarray
    w: np.ndarray
    t: np.ndarray | None = None

    #: Whether the pairs are sorted by ``(a, b)`` with ``0 <= a < b < n_items``, the counts
    #: positive and the counts and outcome sums finite by construction (the compiled pair
    #: sums of :class:`PairSums`, or checked records one a pair), so that a consumer need
    #: not check again.
    sorted_by_construction: ClassVar[bool] = False

    def stored_counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(n, w)`` as kept: float64, or int32 where :class:`PairSums` summed rows
        without counts (whole numbers below 2^31; ``n`` and ``w`` give them as float64)."""
        return self.n, self.w

    def take_spare(self) -> np.ndarray | None:
        """A float64 array of one entry per pair, its memory already in use (the pair sums'
        sorting buffer), handed over once (then None): the sparse fit writes its pair
        weights there instead of into fresh pages. None here."""
        return None

    def count_total(self) -> float:
        """The total count of comparisons, ``sum(n)`` of the counts as kept."""
        return float(self.stored_counts()[0].sum())


class _SortedPairStatistics(PairStatistics):
    """:class:`PairStatistics` of checked records whose pairs came sorted and distinct (one
    record a pair, :func:`_sorted_statistics`): sorted by ``(a, b)`` with ``0 <= a < b <
    n_items``, the counts positive and finite (the records'), the outcome sums finite."""

    sorted_by_construction: ClassVar[bool] = True


class _WholePairStatistics(PairStatistics):
    """:class:`PairStatistics` whose counts and wins are kept as int32 (whole numbers below
    2^31: :class:`PairSums` of rows without counts), half the memory of float64.

    ``n`` and ``w`` are float64 as for any statistics, made from the int32 on first use
    (then kept instead of them); :meth:`stored_counts` gives them as kept, for the
    sparse solver's compiled loops, which read int32 as the same doubles. Its pairs are
    those of the compiled pair sums, sorted by ``(a, b)`` with ``a < b`` (the sparse
    solver relies on it and does not check again).
    """

    sorted_by_construction: ClassVar[bool] = True

    def __init__(self, n_items, a, b, n, w, t=None, spare=None, total=None):
        for name, value in (("n_items", n_items), ("a", a), ("b", b), ("t", t)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_n", n)
        object.__setattr__(self, "_w", w)
        object.__setattr__(self, "_spare", spare)
        object.__setattr__(self, "_total", total)

    def count_total(self) -> float:
        """``sum(n)``: the rows summed where :class:`PairSums` counted them (one each, so
        their number is the sum, exactly: whole numbers), else summed once and kept."""
        total = self.__dict__.get("_total")
        if total is None:
            total = float(self.__dict__["_n"].sum())
            object.__setattr__(self, "_total", total)
        return float(total)

    def take_spare(self) -> np.ndarray | None:
        spare = self.__dict__.get("_spare")
        object.__setattr__(self, "_spare", None)
        return spare

    def _float(self, name: str) -> np.ndarray:
        values = self.__dict__[name]
        if values.dtype != np.float64:
            values = values.astype(np.float64)
            object.__setattr__(self, name, values)
        return values

    @property
    def n(self) -> np.ndarray:
        return self._float("_n")

    @property
    def w(self) -> np.ndarray:
        return self._float("_w")

    def stored_counts(self) -> tuple[np.ndarray, np.ndarray]:
        return self.__dict__["_n"], self.__dict__["_w"]


@dataclass(frozen=True, eq=False)
class Comparisons:
    """Pairwise comparisons among ``n_items`` items as an edge list.

    Memory ``O(n_items + m)`` for ``m`` records. Validated on construction
    (a :class:`ValueError` names the first bad record).

    Attributes
    ----------
    n_items : int
    i, j : (m,) int64 arrays
        First and second item of each record, ``i != j``.
    y : (m,) float64 array
        Outcome for ``i``: 1.0 = ``i`` won, 0.0 = ``j`` won (released local-DP
        data may hold other real values, e.g. Laplace-perturbed outcomes).
    count : (m,) float64 array
        Multiplicity of the record: a positive whole number (how many times the
        comparison was made). With ``weighted=True`` a positive real weight instead.
    user : (m,) int64 array or None
        User index ``0..n_users-1`` of each record.
    labels : (n_items,) array or None
        Item labels, one per item and all distinct; ``None`` means ``0..n_items-1``.
    user_epsilon : (n_users,) float64 array or None
        Per-user local-DP budget of released data.
    ties : bool, keyword-only, default False
        The comparisons have three outcomes (win, tie, loss): ``y`` is 1, 0 or
        1/2 (a tie), and :meth:`pair_statistics` counts the ties of each pair
        (``t``). The outcome space is declared, never read off the data: ``False``
        leaves ``y = 1/2`` a real-valued outcome (a plug-in estimate, say).
    weighted : bool, keyword-only, default False
        ``True`` makes ``count`` a positive real weight instead of a multiplicity:
        the records that the local-DP plug-in estimators aggregate (Paper B's
        ``w_l * count``, :mod:`dprank.methods`) and the expected-count designs of
        :mod:`dprank.intervals`. Only :meth:`pair_statistics` is meaningful on
        them; a release or a central mechanism refuses non-whole counts.

    Raises
    ------
    ValueError
        Naming the first bad argument: an index out of range, ``i == j``, a
        non-finite outcome, a count that is not a positive whole number (not
        positive, with ``weighted=True``), repeated labels, a bad budget.
    TypeError
        If ``weighted`` is not a bool.
    """

    n_items: int
    i: np.ndarray
    j: np.ndarray
    y: np.ndarray
    count: np.ndarray
    user: np.ndarray | None = None
    labels: np.ndarray | None = None
    user_epsilon: np.ndarray | None = None
    weighted: bool = field(default=False, kw_only=True)
    ties: bool = field(default=False, kw_only=True)
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        n_items = self.n_items
        if isinstance(n_items, bool) or not isinstance(n_items, (int, np.integer)):
            raise ValueError(f"n_items must be an integer, got {n_items!r}")
        n_items = int(n_items)
        if n_items < 1:
            raise ValueError(f"n_items must be at least 1, got {n_items}")
        checked = checked_records(n_items, self.i, self.j, self.y, self.count, self)
        if checked is not None:  # valid, checked and copied in one compiled pass
            flags, (i, j, y, count) = checked
            self._cache["records"] = flags
            ties, weighted = self.ties, self.weighted
        else:  # the checks one at a time, the first bad record named
            i, j, y, count, ties, weighted = self._checked_one_by_one(n_items)
        user = self.user
        if user is not None:
            user = as_index("user", user)
            if user.shape != (i.size,):
                raise ValueError(f"user must have shape ({i.size},), got {user.shape}")
        labels = None if self.labels is None else as_labels(self.labels, n_items)
        eps = None if self.user_epsilon is None else as_user_epsilon(self.user_epsilon, user)
        for arr in (i, j, y, count, user):
            if arr is not None:
                arr.flags.writeable = False
        object.__setattr__(self, "n_items", n_items)
        object.__setattr__(self, "i", i)
        object.__setattr__(self, "j", j)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "count", count)
        object.__setattr__(self, "user", user)
        object.__setattr__(self, "labels", labels)
        object.__setattr__(self, "user_epsilon", eps)
        object.__setattr__(self, "weighted", weighted)
        object.__setattr__(self, "ties", ties)

    def _checked_one_by_one(self, n_items: int):
        """``(i, j, y, count, ties, weighted)`` checked by numpy, each check a pass: a
        :class:`ValueError` names the first bad record of the first bad field."""
        i = as_index("i", self.i, n_items)
        j = as_index("j", self.j, n_items)
        if i.shape != j.shape:
            raise ValueError(f"i and j must have the same length, got {i.size} and {j.size}")
        m = i.size
        same = i == j
        if np.any(same):
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"record {k} compares item {i[k]} with itself (i == j)")
        y = as_float("y", self.y, m)
        ties = _checks.flag(self.ties, "ties")
        if ties and m and not np.all((y == 0.0) | (y == 1.0) | (y == 0.5)):
            k = int(np.flatnonzero((y != 0.0) & (y != 1.0) & (y != 0.5))[0])
            raise ValueError(
                f"y[{k}] = {y[k]} is no outcome of comparisons with ties: 1 (i won), "
                "0 (j won) or 0.5 (a tie)"
            )
        weighted = _checks.flag(self.weighted, "weighted")
        count = as_count(self.count, m, weighted)
        return i, j, y, count, ties, weighted

    # ------------------------------------------------------------------ constructors
    @classmethod
    def from_winner_loser(
        cls, winner, loser, count=None, user=None, n_items=None, labels=None
    ) -> Comparisons:
        """Records ``winner`` beat ``loser`` (``count`` times each, default 1).

        ``n_items`` defaults to ``len(labels)`` or one more than the largest index.
        """
        limit = n_items if isinstance(n_items, (int, np.integer)) else None
        if limit is None and labels is not None:
            limit = len(labels)
        w = as_index("winner", winner, limit)
        lo = as_index("loser", loser, limit)
        if w.shape != lo.shape:
            raise ValueError(
                f"winner and loser must have the same length, got {w.size} and {lo.size}"
            )
        if count is not None:
            c = np.asarray(count)
            if c.dtype.kind not in "biuf":
                raise TypeError(f"count must hold numbers, got dtype {c.dtype}")
            bad = (c <= 0) | (c != np.round(c)) if c.dtype.kind == "f" else c <= 0
            if np.any(bad):
                k = int(np.flatnonzero(np.atleast_1d(bad))[0])
                raise ValueError(
                    f"count[{k}] = {np.atleast_1d(c)[k]!r} must be a positive whole number "
                    "(how many times winner beat loser)"
                )
        if n_items is None:
            if labels is not None:
                n_items = len(labels)
            else:
                n_items = int(max(w.max(initial=-1), lo.max(initial=-1))) + 1
                n_items = max(n_items, 1)
        m = w.size
        count = np.ones(m) if count is None else count
        return cls(n_items=n_items, i=w, j=lo, y=np.ones(m), count=count, user=user, labels=labels)

    @classmethod
    def from_tie_counts(
        cls, n_items, a, b, W, L, T, *, user=None, labels=None, user_epsilon=None
    ) -> Comparisons:
        """Comparisons with three outcomes: ``a`` won ``W`` times, ``b`` ``L`` times, ``T`` ties.

        One record per row and outcome (records of count 0 left out), ``ties=True``.
        ``user`` (optional) gives the user of each row; the counts must be whole numbers.
        """
        a, b = np.asarray(a), np.asarray(b)
        W, L, T = (np.asarray(x, dtype=np.float64) for x in (W, L, T))
        m = a.size
        if any(np.shape(x) != (m,) for x in (b, W, L, T)):
            raise ValueError("a, b, W, L and T must be 1-d arrays of one length")
        i = np.concatenate([a, a, a])
        j = np.concatenate([b, b, b])
        y = np.repeat([1.0, 0.5, 0.0], m)
        count = np.concatenate([W, T, L])
        keep = count != 0
        users = None if user is None else np.concatenate([user, user, user])[keep]
        return cls(
            n_items=n_items,
            i=i[keep],
            j=j[keep],
            y=y[keep],
            count=count[keep],
            user=users,
            labels=labels,
            user_epsilon=user_epsilon,
            ties=True,
        )

    @classmethod
    def from_wins(cls, wins) -> Comparisons:
        """Edge list of a dense ``(n, n)`` win matrix (``wins[i, j]`` = wins of i over j).

        One record per nonzero off-diagonal entry: ``i`` beat ``j`` with
        multiplicity ``wins[i, j]``, a whole number.
        """
        w = np.asarray(_checks.win_matrix(wins), dtype=np.float64)
        if np.any(np.diag(w) != 0):
            raise ValueError("wins has a nonzero diagonal (an item compared with itself)")
        if not np.array_equal(w, np.rint(w)):
            bad = np.argwhere(w != np.rint(w))[0]
            raise ValueError(
                f"wins[{bad[0]}, {bad[1]}] = {w[tuple(bad)]} must be a whole number "
                "(how many times item i beat item j)"
            )
        i, j = np.nonzero(w)
        return cls(n_items=w.shape[0], i=i, j=j, y=np.ones(i.size), count=w[i, j])

    @classmethod
    def from_pair_statistics(cls, stats: PairStatistics, labels=None) -> Comparisons:
        """Comparisons whose :meth:`pair_statistics` are ``stats`` (0/1 outcomes, whole counts).

        One record per pair and winner: ``a`` beat ``b`` ``w`` times and ``b`` beat
        ``a`` ``n - w`` times (records of count 0 left out). ``stats`` is cached as
        given, so nothing is aggregated again; every estimator that reads the pairs
        (all of ``--privacy none`` and ``edge``) gives the same result as on the
        rows they sum.

        Raises
        ------
        ValueError
            If a count or win total is not a whole number in ``0 <= w <= n``.
        """
        if not isinstance(stats, PairStatistics):
            raise TypeError(f"expected PairStatistics, got {type(stats).__name__}")
        n, w = stats.n, stats.w
        lost = n - w
        whole = np.all(w == np.round(w)) and np.all(n == np.round(n))
        if not whole or np.any(w < 0) or np.any(lost < 0) or np.any(n <= 0):
            raise ValueError("pair statistics of 0/1 comparisons hold whole numbers 0 <= w <= n")
        del lost
        return cls._from_whole_pair_sums(stats, labels)

    @classmethod
    def _from_whole_pair_sums(cls, stats: PairStatistics, labels=None) -> Comparisons:
        """:meth:`from_pair_statistics` of statistics valid by construction (no value checks).

        For :class:`PairSums` results, whose counts are run lengths and sums of
        whole counts and whose wins lie in ``0 <= w <= n``. The records (``i``,
        ``j``, ``y``, ``count``) are built from ``stats`` when first read
        (:meth:`__getattr__`): the estimators of ``--privacy none`` and ``edge``
        read only the pair statistics, so a large file's records never exist.
        """
        if labels is not None:
            labels = np.asarray(labels)
            if labels.shape != (stats.n_items,):
                raise ValueError(f"labels must have shape ({stats.n_items},), got {labels.shape}")
        # Valid by construction (pairs a < b of PairStatistics, counts >= 1): the
        # fields are set as given, without the constructor's copies of every array.
        out = cls.__new__(cls)
        values = {"n_items": int(stats.n_items), "labels": labels}
        for spec in dataclasses.fields(cls):
            if spec.name in _RECORDS:
                continue  # built on first use, from the cached statistics
            if spec.name in values:
                value = values[spec.name]
            elif spec.default_factory is not dataclasses.MISSING:
                value = spec.default_factory()
            else:
                value = spec.default
            object.__setattr__(out, spec.name, value)
        out._cache["pairs"] = stats
        out._cache["records_from_pairs"] = True
        return out

    def __getattr__(self, name: str):
        # Reached only for an attribute not set: the records of comparisons made by
        # :meth:`_from_whole_pair_sums`, built now from their pair statistics.
        cache = self.__dict__.get("_cache")
        if name not in _RECORDS or not cache or not cache.get("records_from_pairs"):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        for field_name, value in zip(_RECORDS, _records_of_pairs(cache["pairs"]), strict=True):
            value.flags.writeable = False
            object.__setattr__(self, field_name, value)
        return self.__dict__[name]

    def _records_from_pairs(self) -> bool:
        """Whether the records are those of 0/1 pair statistics (whole counts, 0/1 outcomes)."""
        return bool(self._cache.get("records_from_pairs"))

    def _records_built(self) -> bool:
        """Whether the records exist (else only the pair statistics do)."""
        return "i" in self.__dict__

    def to_wins(self) -> np.ndarray:
        """Dense ``(n, n)`` matrix: ``wins[a, b]`` = count-weighted outcomes of a against b.

        Only for small ``n`` (memory ``8 n^2`` bytes).
        """
        n = self.n_items
        ps = self.pair_statistics()
        wins = np.zeros((n, n))
        wins[ps.a, ps.b] = ps.w
        wins[ps.b, ps.a] = ps.n - ps.w
        return wins

    def with_records(
        self, i, j, y, count, user=None, user_epsilon=None, *, weighted=False, ties=False
    ) -> Comparisons:
        """Other records on the same items and labels (a release, a bounded or re-weighted copy).

        Parameters
        ----------
        i, j, y, count, user, user_epsilon
            The new records' fields, checked as by the constructor.
        weighted, ties : bool
            As for the constructor; not taken from these comparisons.

        Returns
        -------
        Comparisons
            ``Comparisons(n_items, i, j, y, count, user, labels, user_epsilon, ...)`` with
            this ``n_items`` and ``labels``.
        """
        return Comparisons(
            n_items=self.n_items,
            i=i,
            j=j,
            y=y,
            count=count,
            user=user,
            labels=self.labels,
            user_epsilon=user_epsilon,
            weighted=weighted,
            ties=ties,
        )

    # ------------------------------------------------------------------ derived views
    def pair_statistics(self) -> PairStatistics:
        """Records aggregated over unordered pairs ``a < b`` (cached)."""
        ps = self._cache.get("pairs")
        if ps is None:
            flags = self._cache.get("records")  # what the constructor's checks found
            ps = _aggregate(self.n_items, self.i, self.j, self.y, self.count, flags)
            if self.ties:
                ps = dataclasses.replace(ps, t=_pair_ties(ps, self.i, self.j, self.y, self.count))
            self._cache["pairs"] = ps
        return ps

    @property
    def n_records(self) -> int:
        """Number of records ``m``."""
        if not self._records_built():
            n, w = self._cache["pairs"].stored_counts()
            return int(np.count_nonzero(w)) + int(np.count_nonzero(n - w))
        return int(self.i.size)

    @property
    def n_users(self) -> int:
        """Number of users (0 without user information)."""
        if self.user_epsilon is not None:
            return int(self.user_epsilon.size)
        if self.user is None or self.user.size == 0:
            return 0
        return int(self.user.max()) + 1

    @property
    def n_comparisons(self) -> float:
        """Total number of comparisons (sum of counts)."""
        if not self._records_built():  # whole numbers: the same sum in any order (or type)
            return self._cache["pairs"].count_total()
        return float(self.count.sum())

    def degrees(self) -> np.ndarray:
        """Number of distinct opponents of each item."""
        ps = self.pair_statistics()
        return np.bincount(ps.a, minlength=self.n_items) + np.bincount(ps.b, minlength=self.n_items)

    def components(self) -> tuple[int, np.ndarray]:
        """Connected components of the comparison graph (number, label per item).

        On the aggregated pairs (:meth:`pair_statistics`, shared with the fit), by
        :func:`connected_components`.
        """
        ps = self.pair_statistics()
        if ps.sorted_by_construction:  # the compiled pair sums: 0 <= a < b < n_items
            return _union_find(self.n_items, ps.a, ps.b)  # (its checks: two passes over each)
        return connected_components(self.n_items, ps.a, ps.b)

    def per_user_counts(self) -> np.ndarray:
        """Comparisons (sum of counts) made by each user."""
        if self.user is None:
            raise ValueError("these comparisons carry no user information")
        return np.bincount(self.user, weights=self.count, minlength=self.n_users)


_RECORDS = ("i", "j", "y", "count")


def _pair_ties(ps: PairStatistics, i, j, y, count) -> np.ndarray:
    """Ties (count-weighted records with ``y = 1/2``) of each pair of ``ps``."""
    tie = y == 0.5
    lo, hi = np.minimum(i[tie], j[tie]), np.maximum(i[tie], j[tie])
    n = np.int64(ps.n_items)
    pair_keys = ps.a.astype(np.int64) * n + ps.b.astype(np.int64)
    where = np.searchsorted(pair_keys, lo * n + hi)
    return np.bincount(where, count[tie], pair_keys.size).astype(np.float64)


def _records_of_pairs(stats: PairStatistics):
    """``(i, j, y, count)``: one record per pair and winner of 0/1 pair statistics.

    ``a`` beat ``b`` ``w`` times, then ``b`` beat ``a`` ``n - w`` times (records of
    count 0 left out), all ``a``-wins first.
    """
    n, w = stats.n, stats.w
    lost = n - w
    a_won, b_won = w > 0, lost > 0
    i = np.concatenate([stats.a[a_won], stats.b[b_won]]).astype(np.int64, copy=False)
    j = np.concatenate([stats.b[a_won], stats.a[b_won]]).astype(np.int64, copy=False)
    count = np.concatenate([w[a_won], lost[b_won]])
    return i, j, np.ones(i.size), count


def _whole_binary(y, count) -> bool:
    """Outcomes 0 or 1 and counts whole numbers below 2^53 (raw or counted comparisons)."""
    return bool(
        np.all((y == 0.0) | (y == 1.0))
        and np.all(count == np.rint(count))
        and (not count.size or float(np.max(count)) < 2.0**53)
    )


def _aggregate_by_radix(n_items, i, j, y, count, unit=None) -> PairStatistics:
    """:func:`_aggregate` of whole counts and 0/1 outcomes by the compiled radix sort
    (``unit``: whether every count is 1; None: look)."""
    from ..base._compiled import PairRows

    unit = bool(np.all(count == 1.0)) if unit is None else unit
    rows = PairRows(weighted=not unit, expected=i.size)
    rows.add(i, j, y, None if unit else count)
    a, b, n, w = rows.result(None, int(n_items))
    return _sums(n_items, a.astype(np.int64), b.astype(np.int64), n, w)


def _sums(n_items, a, b, n, w, spare=None, total=None) -> PairStatistics:
    """The statistics of :meth:`dprank.base._compiled.PairRows.result`'s pairs (int32 counts
    and wins where they are whole numbers below 2^31: :class:`_WholePairStatistics`, with
    the rows' ``spare`` buffer for the fit and ``total``, the rows summed, where given)."""
    if n.dtype == np.int32:
        return _WholePairStatistics(n_items, a, b, n, w, spare=spare, total=total)
    return PairStatistics(n_items, a, b, n, w)


def _pair_key(n_items, a, b):
    """Integer key of the pair ``a < b`` that sorts as ``(a, b)``, its bit length and its inverse.

    ``a << s | b`` with ``s`` the bit length of ``n - 1`` (shifts and masks, no
    integer division) where ``2 s <= 62``; ``a n + b`` beyond.
    """
    s = max(1, (int(n_items) - 1).bit_length())
    if 2 * s <= 62:
        mask = (1 << s) - 1
        return (a << s) | b, 2 * s, lambda u: (u >> s, u & mask)
    n = np.int64(n_items)
    return a * n + b, (int(n_items) ** 2).bit_length(), lambda u: (u // n, u % n)


def _aggregate(n_items, i, j, y, count, flags=None) -> PairStatistics:
    """The pair statistics of checked records (:meth:`Comparisons.pair_statistics`).

    ``flags``: what the constructor's compiled checks found every record to be
    (:func:`checked_records`), or None (then looked at here). Records whose pairs
    come sorted and distinct are one pair each (one compiled pass); 0/1 outcomes with
    whole counts are summed by the radix sort; any others by numpy.
    """
    m = i.size
    if flags is not None and m:
        from ..base._compiled import RECORDS_BINARY, RECORDS_SORTED, RECORDS_UNIT, RECORDS_WHOLE

        if flags & RECORDS_SORTED:
            return _sorted_statistics(n_items, i, j, y, count)
        whole_binary = RECORDS_BINARY | RECORDS_WHOLE
        if n_items < 2**31 and flags & whole_binary == whole_binary:
            return _aggregate_by_radix(n_items, i, j, y, count, bool(flags & RECORDS_UNIT))
    a = np.minimum(i, j)
    b = np.maximum(i, j)
    key, key_bits, split = _pair_key(n_items, a, b)
    if flags is None:
        is_sorted = bool(m) and bool(np.all(key[1:] > key[:-1]))
    else:  # neither sorted nor 0/1 with whole counts (else returned above)
        is_sorted = False
    if m and not is_sorted and n_items < 2**31 and _whole_binary(y, count):
        # outcomes 0 or 1 and whole counts: sums of whole numbers, exact in any order, so
        # a linear radix sort of the packed records gives bincount's sums bit for bit
        return _aggregate_by_radix(n_items, i, j, y, count)
    # outcome for a: y if a is the first item, 1 - y otherwise
    ya = np.where(i == a, y, 1.0 - y) * count
    if is_sorted:
        return PairStatistics(n_items, a, b, count.copy(), ya)
    shift = max(1, int(m - 1).bit_length())
    if m and key_bits + shift <= 63:
        # One SIMD value sort instead of an argsort (about 5x faster): the
        # record index in the low bits makes the sort stable and returns the
        # permutation. Within a pair the records are then summed in input
        # order, as bincount over np.unique's inverse does (same sums, bit for bit).
        packed = np.sort((key << shift) | np.arange(m, dtype=np.int64))
        perm = packed & ((1 << shift) - 1)
        skey = packed >> shift
        first = np.empty(m, dtype=bool)
        first[0] = True
        np.not_equal(skey[1:], skey[:-1], out=first[1:])
        inv = np.cumsum(first) - 1
        uniq = skey[first]
        nn = np.bincount(inv, weights=count[perm], minlength=uniq.size)
        ww = np.bincount(inv, weights=ya[perm], minlength=uniq.size)
        return PairStatistics(n_items, *split(uniq), nn, ww)
    uniq, inv = np.unique(key, return_inverse=True)
    nn = np.bincount(inv, weights=count, minlength=uniq.size)
    ww = np.bincount(inv, weights=ya, minlength=uniq.size)
    return PairStatistics(n_items, *split(uniq), nn, ww)


def _sorted_statistics(n_items, i, j, y, count) -> PairStatistics:
    """:func:`_aggregate` of checked records whose pairs strictly increase (one record a
    pair): ``a = min(i, j)``, ``b = max(i, j)``, ``n = count`` (a copy) and ``w`` the
    count-weighted outcomes for ``a``, in one compiled pass (``records.c``; numpy's
    elementwise results bit for bit). Sorted, with positive finite counts, by
    construction: where every ``w`` is finite too, nothing is left to check
    (:class:`_SortedPairStatistics`)."""
    from ..base._compiled import sorted_pairs

    a, b, n, w, finite = sorted_pairs(i, j, y, count)
    return (_SortedPairStatistics if finite else PairStatistics)(n_items, a, b, n, w)


def connected_components(n_items: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """Connected components of the graph on ``n_items`` nodes with edges ``(a_k, b_k)``.

    Returns the number of components and a label per node, the components
    numbered by their smallest node (scipy's
    :func:`scipy.sparse.csgraph.connected_components` numbers them alike).
    One compiled union-find pass over the edges (union by the smaller root, path
    halving; :func:`dprank.base._compiled.components`), without scipy's import.
    """
    from ..base import _checks

    n = _checks.count(n_items, "n_items", 1)
    a = _index_view("a", a, n)
    b = _index_view("b", b, n)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length, got {a.size} and {b.size}")
    return _union_find(n, a, b)


def _index_view(name, x, n_items):
    """:func:`as_index`'s checks, without its copy where ``x`` already holds integers."""
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.dtype.itemsize > 8:
        return as_index(name, arr, n_items)
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= n_items):
        return as_index(name, arr, n_items)  # its message names the first bad index
    return arr


def _union_find(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """:func:`connected_components` of checked indices ``0 <= a, b < n`` (not modified)."""
    from ..base._compiled import components

    return components(n, a, b)


class PairSums:
    """Comparisons summed over unordered pairs as they arrive in blocks (a stream).

    The rows are counted by pair in a compiled hash table while they repeat few
    pairs, else kept packed, 8 bytes each (16 with counts), and summed at the
    end by the compiled :class:`dprank.base._compiled.PairRows`: renumbered by ``rank``,
    sorted by pair with a linear-time radix sort (a few streaming passes) and
    added up per pair. Item ids are below ``2**31``; counts and wins are sums of
    whole numbers, exact in any order, so the result equals
    :meth:`Comparisons.pair_statistics` of all the rows bit for bit. Every block
    gives counts, or none does.
    """

    _BITS = 31

    def __init__(self, expected: int = 0):
        self._table = None
        self._top = -1  # the largest id added
        self._expected = int(expected)  # rows to make room for at first (a guess, or 0)

    def add(self, i, j, y=None, count=None) -> None:
        """Add comparisons: ``i`` against ``j``, outcome ``y`` for ``i`` (0/1; None = all 1)."""
        from ..base._compiled import PairRows

        i, j = np.asarray(i), np.asarray(j)
        if i.dtype.kind not in "iu" or j.dtype.kind not in "iu":
            i, j = i.astype(np.int64), j.astype(np.int64)
        if not i.size:
            return
        top = max(int(i.max()), int(j.max()))
        if min(int(i.min()), int(j.min())) < 0 or top >= 2**self._BITS:
            raise ValueError(f"PairSums takes item ids from 0 to 2**{self._BITS} - 1")
        self._top = max(self._top, top)
        if self._table is None:
            self._table = PairRows(weighted=count is not None, expected=self._expected)
        elif self._table.weighted != (count is not None):
            raise ValueError("PairSums: every block gives counts, or none does")
        self._table.add(i, j, y, count)

    def result(self, rank=None, n_items: int | None = None) -> PairStatistics:
        """The pairs, with the ids renumbered by ``rank`` (``rank[id]`` = item index) if given.

        Ids that ``rank`` gives one index are one item: their pairs are added up.
        The sums are emptied (their memory handed over to the result).
        """
        if self._table is None or not len(self._table):
            raise ValueError("no comparisons were added")
        if n_items is None:
            n_items = int(np.max(rank)) + 1 if rank is not None else self._top + 1
        table, self._table = self._table, None
        a, b, n, w = table.result(rank, int(n_items))
        return _sums(int(n_items), a, b, n, w, table.spare, table.unit_rows_total())
