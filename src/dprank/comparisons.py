"""Pairwise comparisons as a sparse edge list: the data type shared by the estimators and the CLI.

Interim implementation (branch i18) of the interface agreed between helpers 17
and 18 (``notes/comparisons-interface.md``): the names and meanings below are
that interface. Helper 17's module (branch i17) replaces this file when the
branches are merged; keep theirs.

Memory is ``O(n + m)`` for ``n`` items and ``m`` records; dense ``n x n`` win
matrices appear only in :meth:`Comparisons.to_wins` (small ``n``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph

__all__ = ["Comparisons", "PairStatistics"]


@dataclass(frozen=True)
class PairStatistics:
    """Records aggregated per unordered pair ``a < b``, sorted by ``(a, b)``.

    Attributes
    ----------
    a, b : (P,) int64
        The pair's items, ``a < b``.
    n : (P,) float64
        Total count of the pair's comparisons.
    w : (P,) float64
        Count-weighted sum of the outcomes for ``a`` (wins of ``a`` for 0/1 outcomes).
    """

    a: np.ndarray
    b: np.ndarray
    n: np.ndarray
    w: np.ndarray


@dataclass(frozen=True, eq=False)
class Comparisons:
    """Pairwise comparisons among ``n_items`` items as an edge list.

    Attributes
    ----------
    n_items : int
    i, j : (m,) int64
        The two items of each record, ``i != j``.
    y : (m,) float64
        Outcome for ``i``: 1.0 = ``i`` won, 0.0 = ``j`` won (released local-DP data
        may hold other real values).
    count : (m,) float64
        Multiplicity of the record (> 0).
    user : (m,) int64 or None
        User index ``0 .. n_users - 1`` of each record.
    labels : (n_items,) array of str or None
        Item labels (None: ``0 .. n - 1``).
    user_epsilon : (n_users,) float64 or None
        Each user's local-DP budget (released data).
    """

    n_items: int
    i: np.ndarray
    j: np.ndarray
    y: np.ndarray
    count: np.ndarray
    user: np.ndarray | None = None
    labels: np.ndarray | None = None
    user_epsilon: np.ndarray | None = None

    def __post_init__(self):
        m = np.shape(self.i)[0]
        for name in ("j", "y", "count"):
            if np.shape(getattr(self, name)) != (m,):
                raise ValueError(f"{name} must have shape ({m},)")
        if self.user is not None and np.shape(self.user) != (m,):
            raise ValueError(f"user must have shape ({m},)")

    @classmethod
    def from_winner_loser(cls, winner, loser, count=None, user=None, n_items=None, labels=None):
        """Records ``winner`` beat ``loser`` (item indices), optionally with counts and users."""
        winner = np.asarray(winner, dtype=np.int64)
        loser = np.asarray(loser, dtype=np.int64)
        n = int(n_items) if n_items is not None else int(max(winner.max(), loser.max())) + 1
        c = np.ones(winner.size) if count is None else np.asarray(count, dtype=np.float64)
        u = None if user is None else np.asarray(user, dtype=np.int64)
        return cls(n, winner, loser, np.ones(winner.size), c, u, labels)

    @classmethod
    def from_wins(cls, wins):
        """The records of a dense win matrix (``wins[i, j]`` = times ``i`` beat ``j``)."""
        wins = np.asarray(wins, dtype=np.float64)
        i, j = np.nonzero(wins)
        return cls.from_winner_loser(i, j, wins[i, j], n_items=wins.shape[0])

    def to_wins(self) -> np.ndarray:
        """Dense ``(n, n)`` win matrix (small ``n`` only)."""
        n = self.n_items
        won = self.count * self.y
        flat = np.bincount(self.i * n + self.j, won, n * n)
        flat += np.bincount(self.j * n + self.i, self.count - won, n * n)
        return flat.reshape(n, n)

    @cached_property
    def _pairs(self) -> PairStatistics:
        n = self.n_items
        a, b = np.minimum(self.i, self.j), np.maximum(self.i, self.j)
        w_a = np.where(self.i == a, self.y, 1.0 - self.y) * self.count
        keys, inverse = np.unique(a * n + b, return_inverse=True)
        return PairStatistics(
            keys // n,
            keys % n,
            np.bincount(inverse, self.count, keys.size),
            np.bincount(inverse, w_a, keys.size),
        )

    def pair_statistics(self) -> PairStatistics:
        """Records aggregated per unordered pair (cached)."""
        return self._pairs

    @property
    def n_users(self) -> int:
        """Number of users (0 without users)."""
        if self.user is None:
            return 0
        if self.user_epsilon is not None:
            return int(np.size(self.user_epsilon))
        return int(self.user.max()) + 1 if self.user.size else 0

    @property
    def n_comparisons(self) -> float:
        """Total number of comparisons (sum of counts)."""
        return float(self.count.sum())

    def degrees(self) -> np.ndarray:
        """Number of distinct opponents of each item."""
        ps = self.pair_statistics()
        n = self.n_items
        return np.bincount(ps.a, minlength=n) + np.bincount(ps.b, minlength=n)

    def components(self) -> tuple[int, np.ndarray]:
        """Connected components of the comparison graph (scipy.sparse.csgraph)."""
        ps = self.pair_statistics()
        n = self.n_items
        graph = sparse.coo_matrix((np.ones(ps.a.size), (ps.a, ps.b)), shape=(n, n))
        return csgraph.connected_components(graph, directed=False)

    def per_user_counts(self) -> np.ndarray:
        """Comparisons per user (for ``L``)."""
        if self.user is None:
            raise ValueError("these comparisons have no users")
        return np.bincount(self.user, self.count, minlength=self.n_users)
