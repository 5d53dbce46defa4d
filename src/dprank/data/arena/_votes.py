"""Arena votes kept as four outcomes per pair (and voter), and the summing of vote rows.

Private to :mod:`dprank.data.arena`, which re-exports its public names.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..comparisons import Comparisons

#: The outcome codes of a battle file's ``winner`` field, in the order of :class:`ArenaVotes`.
OUTCOMES = ("model_a", "model_b", "tie", "tie (bothbad)")


#: How a "both bad" vote enters the comparisons: as a tie, or not at all.
BOTH_BAD_RULES = ("tie", "drop")


BATTLE_COLUMNS = ("model_a", "model_b", "winner")


@dataclass(frozen=True, eq=False)
class ArenaVotes:
    """Votes summed per (pair, voter): the four outcomes kept apart.

    Attributes
    ----------
    models : (n,) numpy.ndarray of str
        Model names in index order.
    a, b : (R,) int64 arrays
        The pair of each row, ``a < b``.
    wins_a, wins_b, ties, both_bad : (R,) float64 arrays
        Votes for ``a``, for ``b``, ties and both-bad ties.
    user : (R,) int64 array or None
        The voter (``judge``) of each row; rows are then per pair and voter.
    user_labels : numpy.ndarray or None
    user_epsilon : (n_users,) float64 array or None
        Each voter's budget, in a released (local-DP) file.
    n_rows : int
        Rows (votes, or table rows) read.
    layout : str
        ``"model_a,model_b,winner"`` (battles) or ``"count table"``.
    """

    models: np.ndarray
    a: np.ndarray
    b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    both_bad: np.ndarray
    user: np.ndarray | None = None
    user_labels: np.ndarray | None = None
    user_epsilon: np.ndarray | None = None
    n_rows: int = 0
    layout: str = "model_a,model_b,winner"

    @property
    def n_models(self) -> int:
        return int(self.models.size)

    def totals(self) -> dict[str, float]:
        """Votes per outcome over the whole table."""
        return {
            name: float(x.sum())
            for name, x in zip(
                OUTCOMES, (self.wins_a, self.wins_b, self.ties, self.both_bad), strict=True
            )
        }

    def comparisons(self, both_bad: str = "tie") -> Comparisons:
        """The votes as comparisons with three outcomes (``Comparisons(..., ties=True)``).

        Parameters
        ----------
        both_bad : {"tie", "drop"}
            A "both bad" vote counts as a tie (default; LMArena, ``arena-rank``) or is
            left out (``leaderbot``'s default).
        """
        if not isinstance(both_bad, str) or both_bad not in BOTH_BAD_RULES:
            raise ValueError(f"both_bad must be one of {list(BOTH_BAD_RULES)}, got {both_bad!r}")
        ties = self.ties + self.both_bad if both_bad == "tie" else self.ties
        return Comparisons.from_tie_counts(
            self.n_models,
            self.a,
            self.b,
            self.wins_a,
            self.wins_b,
            ties,
            user=self.user,
            labels=self.models,
            user_epsilon=self.user_epsilon,
        )


def summed(models, first, second, counts, user, *, n_rows, layout, **extra) -> ArenaVotes:
    """Votes of rows ``(first, second)`` with outcome counts ``counts`` (R x 4), summed per
    pair ``a < b`` (and user)."""
    swap = first > second
    a, b = np.where(swap, second, first), np.where(swap, first, second)
    counts = np.where(swap[:, None], counts[:, [1, 0, 2, 3]], counts)
    n = np.int64(len(models))
    key = a * n + b
    if user is not None:
        key = key * np.int64(int(user.max(initial=0)) + 1) + user
    uniq, inv = np.unique(key, return_inverse=True)
    sums = [np.bincount(inv, counts[:, k], uniq.size) for k in range(4)]
    if user is not None:
        n_users = np.int64(int(user.max(initial=0)) + 1)
        user, uniq = uniq % n_users, uniq // n_users
    return _votes_of_pairs(models, uniq, n, sums, user=user, n_rows=n_rows, layout=layout, **extra)


def _votes_of_pairs(models, pairs, n, outcomes, **fields) -> ArenaVotes:
    """The votes of pairs ``a * n + b`` (``a < b``) with ``outcomes`` (four columns) per pair."""
    a, b = (pairs // n).astype(np.int64), (pairs % n).astype(np.int64)
    return ArenaVotes(models, a, b, *outcomes, **fields)


#: Pairs times outcomes up to which votes are summed by one ``bincount`` (no sort).
_DENSE_CELLS = 1 << 26


def summed_votes(models, first, second, outcome, count, *, n_rows, **extra) -> ArenaVotes:
    """:func:`summed` of one vote (or ``count`` votes) per row without users: a pair's
    outcome cell counted by one ``bincount`` where the cells of all pairs fit."""
    n = len(models)
    if n * n * 4 > _DENSE_CELLS:
        counts = np.zeros((first.size, 4))
        counts[np.arange(first.size), outcome] = 1.0 if count is None else count
        return summed(models, first, second, counts, None, n_rows=n_rows, **extra)
    # the key of (pair lo < hi, outcome for lo): a swapped row's win of model_a is a win of
    # the pair's second item (outcome 0 <-> 1); int32 arithmetic (the cells fit)
    swap = first > second
    key = np.minimum(first, second).astype(np.int32)
    key *= n
    key += np.maximum(first, second)
    key *= 4
    key += outcome
    key ^= swap & (outcome < 2)
    cells = np.bincount(key, weights=count, minlength=n * n * 4).reshape(n * n, 4)
    pairs = np.flatnonzero(cells.sum(axis=1))
    cells = cells[pairs].astype(np.float64)
    outcomes = [cells[:, k].copy() for k in range(4)]
    return _votes_of_pairs(models, pairs, n, outcomes, user=None, n_rows=n_rows, **extra)
