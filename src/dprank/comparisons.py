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

import numpy as np

from . import _checks

__all__ = ["Comparisons", "PairStatistics", "PairSums", "connected_components"]


@dataclass(frozen=True, eq=False)
class PairStatistics:
    """Comparisons aggregated over unordered observed pairs.

    Attributes
    ----------
    n_items : int
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

    n_items: int
    a: np.ndarray
    b: np.ndarray
    n: np.ndarray
    w: np.ndarray
    t: np.ndarray | None = None

    @property
    def n_pairs(self) -> int:
        """Number of distinct observed pairs."""
        return int(self.a.size)


def _as_index(name, x, n_items=None):
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.size and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} holds NaN or infinite values")
        if not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold integer item indices")
    elif arr.size and arr.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integer indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=True)
    if arr.size and arr.min() < 0:
        k = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name}[{k}] = {arr[k]} is negative: indices start at 0")
    if n_items is not None and arr.size and arr.max() >= n_items:
        k = int(np.flatnonzero(arr >= n_items)[0])
        raise ValueError(f"{name}[{k}] = {arr[k]} is out of range for n_items = {n_items}")
    return arr


def _as_float(name, x, m):
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(m, float(arr))
    if arr.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        k = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name}[{k}] = {arr[k]} is not finite")
    return arr.copy()


def _as_count(count, m: int, weighted: bool) -> np.ndarray:
    """``count`` as float64: positive, and whole numbers unless ``weighted``."""
    count = _as_float("count", count, m)
    if np.any(count <= 0):
        k = int(np.flatnonzero(count <= 0)[0])
        raise ValueError(f"count[{k}] = {count[k]} must be positive")
    if not weighted and m and not np.array_equal(count, np.rint(count)):
        k = int(np.flatnonzero(count != np.rint(count))[0])
        raise ValueError(
            f"count[{k}] = {count[k]} must be a positive whole number (how many times "
            "the comparison was made); real weights need Comparisons(..., weighted=True)"
        )
    return count


def _as_labels(labels, n_items: int) -> np.ndarray:
    """``labels`` as an array of ``n_items`` distinct labels."""
    labels = np.asarray(labels)
    if labels.shape != (n_items,):
        raise ValueError(f"labels must have shape ({n_items},), got {labels.shape}")
    seen: dict = {}
    for k, label in enumerate(labels.tolist()):
        if seen.setdefault(label, k) != k:
            raise ValueError(
                f"labels[{k}] = {label!r} repeats labels[{seen[label]}]: "
                "each item needs its own label"
            )
    return labels


def _as_user_epsilon(eps, user: np.ndarray | None) -> np.ndarray:
    """``eps`` as float64: a positive budget for every user index in ``user``."""
    eps = np.asarray(eps, dtype=np.float64)
    if eps.ndim != 1 or np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise ValueError("user_epsilon must be a 1-d array of positive budgets")
    if user is not None and user.size and user.max() >= eps.size:
        raise ValueError(
            f"user index {int(user.max())} has no budget in user_epsilon (length {eps.size})"
        )
    return eps


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
        i = _as_index("i", self.i, n_items)
        j = _as_index("j", self.j, n_items)
        if i.shape != j.shape:
            raise ValueError(f"i and j must have the same length, got {i.size} and {j.size}")
        m = i.size
        same = i == j
        if np.any(same):
            k = int(np.flatnonzero(same)[0])
            raise ValueError(f"record {k} compares item {i[k]} with itself (i == j)")
        y = _as_float("y", self.y, m)
        ties = _checks.flag(self.ties, "ties")
        if ties and m and not np.all((y == 0.0) | (y == 1.0) | (y == 0.5)):
            k = int(np.flatnonzero((y != 0.0) & (y != 1.0) & (y != 0.5))[0])
            raise ValueError(
                f"y[{k}] = {y[k]} is no outcome of comparisons with ties: 1 (i won), "
                "0 (j won) or 0.5 (a tie)"
            )
        weighted = _checks.flag(self.weighted, "weighted")
        count = _as_count(self.count, m, weighted)
        user = self.user
        if user is not None:
            user = _as_index("user", user)
            if user.shape != (m,):
                raise ValueError(f"user must have shape ({m},), got {user.shape}")
        labels = None if self.labels is None else _as_labels(self.labels, n_items)
        eps = None if self.user_epsilon is None else _as_user_epsilon(self.user_epsilon, user)
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
        w = _as_index("winner", winner, limit)
        lo = _as_index("loser", loser, limit)
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

    # ------------------------------------------------------------------ derived views
    def pair_statistics(self) -> PairStatistics:
        """Records aggregated over unordered pairs ``a < b`` (cached)."""
        ps = self._cache.get("pairs")
        if ps is None:
            ps = _aggregate(self.n_items, self.i, self.j, self.y, self.count)
            if self.ties:
                ps = dataclasses.replace(ps, t=_pair_ties(ps, self.i, self.j, self.y, self.count))
            self._cache["pairs"] = ps
        return ps

    @property
    def n_records(self) -> int:
        """Number of records ``m``."""
        if not self._records_built():
            ps = self._cache["pairs"]
            return int(np.count_nonzero(ps.w)) + int(np.count_nonzero(ps.n - ps.w))
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
        if not self._records_built():  # whole numbers: the same sum in any order
            return float(self._cache["pairs"].n.sum())
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


def _unit_binary(y, count) -> bool:
    """All counts 1 and all outcomes 0 or 1 (raw comparisons)."""
    return bool(np.all(count == 1.0) and np.all((y == 0.0) | (y == 1.0)))


def _aggregate_unit_binary(n_items, key, a_won, split) -> PairStatistics:
    """Aggregate raw comparisons by one sort of ``key << 1 | a_won`` (see :func:`_aggregate`)."""
    m = key.size
    packed = np.sort((key << 1) | a_won)
    skey = packed >> 1
    first = np.empty(m, dtype=bool)
    first[0] = True
    np.not_equal(skey[1:], skey[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    ends = np.append(starts[1:], m)
    nn = (ends - starts).astype(np.float64)
    # wins: differences of the running count of a's wins at the run ends (exact integers)
    won = np.cumsum(packed & 1)[ends - 1]
    ww = np.diff(won, prepend=0).astype(np.float64)
    return PairStatistics(n_items, *split(skey[starts]), nn, ww)


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


def _aggregate(n_items, i, j, y, count) -> PairStatistics:
    a = np.minimum(i, j)
    b = np.maximum(i, j)
    key, key_bits, split = _pair_key(n_items, a, b)
    m = key.size
    is_sorted = bool(m) and bool(np.all(key[1:] > key[:-1]))
    if m and not is_sorted and key_bits < 63:
        if _unit_binary(y, count):
            # Raw comparisons (count 1, outcome 0 or 1): pack a's outcome bit
            # instead of the record index; the counts are then run lengths and
            # the wins sums of bits, exact integers equal to bincount's (no gathers).
            return _aggregate_unit_binary(n_items, key, (i < j) == (y == 1.0), split)
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


_UNION_ROUNDS = 64
_EDGE_BLOCK = 1 << 18  # edges per block of a union-find round (small, reused buffers)


def connected_components(n_items: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """Connected components of the graph on ``n_items`` nodes with edges ``(a_k, b_k)``.

    Returns the number of components and a label per node, the components
    numbered by their smallest node (scipy's
    :func:`scipy.sparse.csgraph.connected_components` numbers them alike).
    Vectorised union-find: each round hooks every edge's larger root under the
    smaller one and then compresses the paths, until a round hooks nothing;
    without scipy's import (about 0.4 s of start-up). Past 64 rounds it hands
    over to scipy. The edges are read in blocks into a few small buffers: no
    copy of ``a`` or ``b`` and no temporaries of their length.
    """
    from . import _checks

    n = _checks.count(n_items, "n_items", 1)
    a = _index_view("a", a, n)
    b = _index_view("b", b, n)
    if a.shape != b.shape:
        raise ValueError(f"a and b must have the same length, got {a.size} and {b.size}")
    return _union_find(n, a, b)


def _index_view(name, x, n_items):
    """:func:`_as_index`'s checks, without its copy where ``x`` already holds integers."""
    arr = np.asarray(x)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.dtype.itemsize > 8:
        return _as_index(name, arr, n_items)
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= n_items):
        return _as_index(name, arr, n_items)  # its message names the first bad index
    return arr


def _union_find(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """:func:`connected_components` of checked indices ``0 <= a, b < n`` (not modified)."""
    dtype = np.int32 if n < 2**31 else np.int64
    parent = np.arange(n, dtype=dtype)
    m = a.size
    block = max(1, min(m, _EDGE_BLOCK))
    ra, rb, lo = (np.empty(block, dtype=dtype) for _ in range(3))
    for _ in range(_UNION_ROUNDS):
        # every value of ``roots`` is a root (parent[x] <= x, paths compressed):
        # each edge hooks its larger root under its smaller one, as one
        # ``minimum.at`` over all edges would, then the paths are compressed
        roots, parent = parent, parent.copy()
        for start in range(0, m, block):
            stop = min(m, start + block)
            x, y, z = ra[: stop - start], rb[: stop - start], lo[: stop - start]
            np.take(roots, a[start:stop], out=x)
            np.take(roots, b[start:stop], out=y)
            np.minimum(x, y, out=z)
            np.maximum(x, y, out=x)
            np.minimum.at(parent, x, z)
        while True:  # parent[x] <= x throughout: jump until every node points at its root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
        if np.array_equal(parent, roots):  # nothing hooked: every edge lies within a tree
            break
    else:
        return _scipy_components(n, a, b, parent)
    roots, labels = np.unique(parent, return_inverse=True)
    return int(roots.size), labels.astype(np.int64, copy=False)


def _scipy_components(n: int, a: np.ndarray, b: np.ndarray, parent: np.ndarray):
    """Components by scipy, of the edges left and the trees built so far."""
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import connected_components as scipy_components

    src = np.concatenate([a, np.arange(n)])
    dst = np.concatenate([b, parent])
    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    adj = csr_array((np.ones(src.size), dst[order], indptr), shape=(n, n))
    k, labels = scipy_components(adj, directed=True, connection="weak")
    return int(k), labels


class PairSums:
    """Comparisons summed over unordered pairs as they arrive in blocks (a stream).

    Memory follows the number of distinct pairs: a block of unit comparisons is
    kept as one packed integer per row (the pair and who won), a block with counts
    as its distinct pairs, and everything kept is merged into distinct pairs
    whenever it holds more than twice the entries of the last merge (amortised
    ``O(log)`` sorting per entry). Item ids are below ``2**31``; counts and wins
    are sums of whole numbers, exact in any order, so the result equals
    :meth:`Comparisons.pair_statistics` of all the rows bit for bit.
    """

    _BITS = 31
    _MERGE_MIN = 1 << 22  # entries kept before a merge, at the least

    def __init__(self):
        # (key, n, w): key = lo << 31 | hi; n None for unit rows, w then their a-won bits
        self._parts: list[tuple[np.ndarray, np.ndarray | None, np.ndarray]] = []
        # unit rows are packed into one buffer per merge (allocated once, filled block
        # by block: no row-sized array of each block stays behind between temporaries)
        self._rows: tuple[np.ndarray, np.ndarray] | None = None
        self._fill = 0
        self._pending = 0
        self._merged = 0

    def add(self, i, j, y=None, count=None) -> None:
        """Add comparisons: ``i`` against ``j``, outcome ``y`` for ``i`` (0/1; None = all 1)."""
        i = np.asarray(i, dtype=np.int64)
        j = np.asarray(j, dtype=np.int64)
        if not i.size:
            return
        if min(int(i.min()), int(j.min())) < 0 or max(int(i.max()), int(j.max())) >= 2**self._BITS:
            raise ValueError(f"PairSums takes item ids from 0 to 2**{self._BITS} - 1")
        lo = np.minimum(i, j)
        a_won = i == lo if y is None else (i == lo) == (np.asarray(y) == 1.0)
        lo <<= self._BITS
        if count is None:
            key, won = self._row_space(i.size)
            np.maximum(i, j, out=key)
            key |= lo
            won[:] = a_won
        else:
            key = np.maximum(i, j)
            key |= lo
            count = np.asarray(count, dtype=np.float64)
            uniq, inverse = np.unique(key, return_inverse=True)
            self._parts.append(
                (
                    uniq,
                    np.bincount(inverse, weights=count, minlength=uniq.size),
                    np.bincount(inverse, weights=count * a_won, minlength=uniq.size),
                )
            )
            self._pending += uniq.size
        del lo
        if self._pending > self._limit():
            self._merge()

    def _limit(self) -> int:
        """Entries kept (distinct pairs of the last merge, rows since) before the next merge."""
        return max(2 * self._merged, self._MERGE_MIN)

    def _row_space(self, m: int) -> tuple[np.ndarray, np.ndarray]:
        """Room for ``m`` unit rows in the row buffer: ``(keys, won)`` views to fill."""
        if self._rows is not None and self._fill + m > self._rows[0].size:
            self._merge()
        if self._rows is None:
            size = max(self._limit() + 1, m)  # untouched pages of the buffer cost no memory
            self._rows = (np.empty(size, dtype=np.int64), np.empty(size, dtype=bool))
            self._fill = 0
        k = self._fill
        self._fill += m
        self._pending += m
        return self._rows[0][k : k + m], self._rows[1][k : k + m]

    def _take_parts(self) -> list:
        """The kept parts, the filled rows of the row buffer among them (the buffer dropped)."""
        parts, self._parts = self._parts, []
        if self._rows is not None:
            keys, won = self._rows
            self._rows = None
            parts.append((keys[: self._fill], None, won[: self._fill]))
        return parts

    def _combine(self, rank=None, n_items: int | None = None, final: bool = False):
        """Merge the parts: ``(n_items, a, b, n, w)`` of the distinct pairs, sorted by pair.

        ``final``: ``a`` and ``b`` as int32 (the item ids are below ``2**31``), the
        form the sparse solver's loops take without a copy.
        """
        parts = self._take_parts()
        if all(p[1] is None for p in parts):
            return _sum_unit_rows(parts, self._BITS, rank, n_items)  # it empties ``parts``
        key = np.concatenate([p[0] for p in parts]) if len(parts) > 1 else parts[0][0]
        n = np.concatenate([np.ones(p[0].size) if p[1] is None else p[1] for p in parts])
        w = np.concatenate([p[2].astype(np.float64) for p in parts])
        del parts
        a = key >> self._BITS
        np.bitwise_and(key, (1 << self._BITS) - 1, out=key)
        b = key
        if rank is not None:
            rank = np.asarray(rank, dtype=np.int64)
            a = rank[a]
            b = rank[b]
            swap = a > b
            lo = np.minimum(a, b)
            np.maximum(a, b, out=b)
            a = lo
            np.subtract(n, w, out=w, where=swap)
            del swap, lo
        if n_items is None:
            n_items = int(max(a.max(), b.max())) + 1
        key, key_bits, split = _pair_key(n_items, a, b)
        del a, b
        key, n, w = _sum_by_key(key, key_bits, n, w)
        a, b = split(key)
        if final:
            a, b = a.astype(np.int32), b.astype(np.int32)
        return int(n_items), a, b, n, w

    def _merge(self) -> None:
        if not self._parts and self._rows is None:
            return
        _, a, b, n, w = self._combine()
        a = a.astype(np.int64, copy=False)
        a <<= self._BITS
        a |= b
        self._parts = [(a, n, w)]
        self._merged = a.size
        self._pending = 0

    def result(self, rank=None, n_items: int | None = None) -> PairStatistics:
        """The pairs, with the ids renumbered by ``rank`` (``rank[id]`` = item index) if given."""
        if not self._parts and self._rows is None:
            raise ValueError("no comparisons were added")
        return PairStatistics(*self._combine(rank, n_items, final=True))


def _sum_unit_rows(parts: list, bits: int, rank, n_items):
    """:meth:`PairSums._combine` of unit rows ``(key, None, won)``, ``key = lo << bits | hi``.

    ``parts`` is emptied (the blocks' arrays freed as they are joined). Ids
    renumbered by ``rank`` (the pair and its winner flipped where the order
    changes); then one in-place sort of ``pair << 1 | a_won``: the counts are the
    runs' lengths and the wins their sums of bits (exact integers). Besides the
    one int64 key the rows' arrays are int32 and bool, and the distinct pairs
    are compacted into the key's own buffer: the peak is about 13 bytes per row,
    or the four output arrays (24 bytes per distinct pair) and a byte per row;
    ``a`` and ``b`` come out as int32.
    """
    key, won = _joined_unit_parts(parts)
    m = key.size
    a = np.empty(m, dtype=np.int32)
    np.right_shift(key, bits, out=a, casting="unsafe")
    np.bitwise_and(key, (1 << bits) - 1, out=key)
    if rank is None:
        b = key.astype(np.int32)
    else:
        rank = np.asarray(rank).astype(np.int32)
        b = rank[key]
        a = rank[a]
    del key
    if rank is not None:
        swap = a > b
        lo = np.minimum(a, b)
        np.maximum(a, b, out=b)
        a = lo
        won = won ^ swap  # the new first item won
        del swap, lo
    if n_items is None:
        n_items = int(max(a.max(), b.max())) + 1
    s = max(1, (int(n_items) - 1).bit_length())  # _pair_key's shift: 2 s + 1 <= 63 bits
    key = a.astype(np.int64)
    del a
    key <<= s
    key |= b
    del b
    key <<= 1
    key |= won
    del won
    key.sort()
    won = np.empty(m, dtype=np.uint8)
    np.bitwise_and(key, 1, out=won, casting="unsafe")
    key >>= 1
    starts = _compact_runs(key)  # key[:starts.size]: the distinct pairs
    a = np.empty(starts.size, dtype=np.int32)
    np.right_shift(key[: starts.size], s, out=a, casting="unsafe")
    b = np.empty(starts.size, dtype=np.int32)
    np.bitwise_and(key[: starts.size], (1 << s) - 1, out=b, casting="unsafe")
    del key
    n = np.empty(starts.size)
    np.subtract(starts[1:], starts[:-1], out=n[:-1])
    n[-1] = m - starts[-1]
    del starts
    w = _run_sums(won, n)
    return int(n_items), a, b, n, w


def _joined_unit_parts(parts: list) -> tuple[np.ndarray, np.ndarray]:
    """The parts' keys and win bits joined, each part dropped from ``parts`` once copied."""
    if len(parts) == 1:
        key, _, won = parts.pop()
        return key, won
    m = sum(p[0].size for p in parts)
    key = np.empty(m, dtype=np.int64)
    won = np.empty(m, dtype=bool)
    k = 0
    parts.reverse()
    while parts:
        part_key, _, part_won = parts.pop()
        key[k : k + part_key.size] = part_key
        won[k : k + part_key.size] = part_won
        k += part_key.size
        del part_key, part_won
    return key, won


def _compact_runs(key: np.ndarray, block: int = 1 << 18) -> np.ndarray:
    """Starts of the runs of equal values in sorted ``key``; their values moved to its front.

    In place and by blocks (the write position never passes the read position),
    so nothing of the rows' length is allocated but a byte per row (where a run
    starts) and the starts (int32 where the rows fit).
    """
    m = key.size
    first = np.empty(m, dtype=bool)
    first[0] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    starts = np.empty(int(np.count_nonzero(first)), dtype=np.int32 if m < 2**31 else np.int64)
    k = 0
    for r0 in range(0, m, block):
        local = np.flatnonzero(first[r0 : r0 + block])
        starts[k : k + local.size] = local + r0
        key[k : k + local.size] = key[r0 + local]
        k += local.size
    return starts


def _run_sums(won, n, block: int = 1 << 18):
    """Sums of ``won`` over consecutive runs of lengths ``n`` (float64), a block of runs at a time.

    ``numpy.add.reduceat`` with ``dtype=float64`` casts its whole input first (8
    bytes per row); by blocks the cast holds at most about ``block`` rows. Sums of
    0/1, exact.
    """
    w = np.empty(n.size)
    lo = 0
    for k0 in range(0, n.size, block):
        lengths = n[k0 : k0 + block].astype(np.int64)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        hi = lo + int(ends[-1])
        np.add.reduceat(won[lo:hi], starts, dtype=np.float64, out=w[k0 : k0 + block])
        lo = hi
    return w


def _sum_by_key(key, key_bits: int, n, w):
    """Distinct ``key`` values in ascending order and the sums of ``n`` and ``w`` over each.

    ``key`` is overwritten. One SIMD value sort of ``key`` with the position in the
    low bits where the bits allow (about 5x an argsort), else a stable argsort. The
    sums are of whole numbers here, exact in any order.
    """
    m = key.size
    shift = max(1, (m - 1).bit_length())
    if key_bits + shift <= 63:  # in place: ``key`` is the caller's temporary
        np.left_shift(key, shift, out=key)
        key |= np.arange(m, dtype=np.int64)
        key.sort()
        order = key & ((1 << shift) - 1)
        key >>= shift
    else:
        order = np.argsort(key, kind="stable")
        key = key[order]
    first = np.empty(m, dtype=bool)
    first[:1] = True
    np.not_equal(key[1:], key[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    del first
    sums = [np.add.reduceat(values[order], starts) for values in (n, w)]
    return key[starts], sums[0], sums[1]
