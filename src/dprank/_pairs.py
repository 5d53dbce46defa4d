"""Objective (2.2) of Paper A on the list of compared pairs (logistic link).

:class:`dprank.objective.DenseObjective` evaluates the gradient and the Hessian
weights on all ``n^2`` cells of the win matrix; on a comparison graph of density
``p`` only ``p n (n - 1) / 2`` pairs carry data. :class:`PairObjective` computes
the same quantities over the compared pairs only (one exponential per item, a
few vector operations per pair, ``numpy.bincount`` for the sums over pairs) and
writes the Hessian weights into a reusable ``n x n`` array (the sparsity pattern
of the graph is fixed, so the other cells stay zero), which the dense Newton
solver of :mod:`dprank.mle` then uses unchanged.

With pairs ``(i, j)``, ``i < j``, ``c_ij`` comparisons of which ``i`` won
``w_ij``, and ``s_ij = F(theta_i - theta_j) = a_i / (a_i + a_j)``,
``a = exp(theta)``::

    f(theta)   = sum_pairs [c_ij log(a_i + a_j) - w_ij log a_i - (c_ij - w_ij) log a_j]
                 + (gamma / 2) ||theta||^2 + b^T theta
    df/dtheta_i = sum_j (c_ij s_ij - w_ij) + gamma theta_i + b_i   (antisymmetric in i, j)
    Hessian     = L(V) + gamma I,  V_ij = c_ij s_ij (1 - s_ij).
"""

from __future__ import annotations

import numpy as np

from . import _checks
from .objective import PairwiseData


def compared_cells(w: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Flat indices of the cells ``(i, j)`` of a compared pair (``w[i, j] + w[j, i] > 0``).

    Symmetric, in row-major order; the diagonal is included where ``w[i, i] > 0``
    (:func:`pairs_of_wins` drops it). ``counts``: ``w + w.T`` where known.
    """
    if counts is None:
        mask = w > 0
        mask |= mask.T
    else:
        mask = counts > 0
    return np.flatnonzero(mask)  # much faster than the 2-d numpy.nonzero


def pair_density(n: int, cells: np.ndarray) -> float:
    """Compared pairs over ``n (n - 1) / 2``, from :func:`compared_cells`."""
    diagonal = np.count_nonzero(cells % (n + 1) == 0)
    return (cells.size - diagonal) / max(1.0, n * (n - 1.0))


def pairs_of_wins(w: np.ndarray, cells: np.ndarray | None = None):
    """The compared pairs of a (checked) win matrix.

    Returns ``(i, j, c, won)``: the pairs ``i < j`` with ``c = w[i, j] + w[j, i] > 0``
    in row-major order, their comparison counts and the comparisons ``i`` won
    (float64; the diagonal is ignored, as by the dense objective).
    """
    n = w.shape[0]
    cells = compared_cells(w) if cells is None else cells
    i, j = np.divmod(cells, n)
    keep = i < j
    i, j = i[keep], j[keep]
    flat = w.reshape(-1)
    won = flat[cells[keep]].astype(np.float64)
    return i, j, won + flat[j * n + i], won


def cached_pairs(data: PairwiseData):
    """:func:`pairs_of_wins` of a :class:`PairwiseData`, computed once per data set."""
    pairs = getattr(data, "_dprank_pairs", None)
    if pairs is None:
        pairs = pairs_of_wins(data.wins, compared_cells(data.wins, data.counts))
        data._dprank_pairs = pairs
    return pairs


class PairObjective:
    """Objective (2.2), logistic link, over the compared pairs (see the module docstring).

    Offers the interface of :class:`dprank.objective.DenseObjective` that the
    Newton loop of :func:`dprank.mle.fit_penalized_mle` uses (``n``, ``gamma``,
    ``ones_weight``, ``btl``, :meth:`value`, :meth:`gradient_and_weights`), with
    the same argument checks and messages.

    Parameters
    ----------
    n : int
        Number of items.
    pairs : tuple of arrays
        ``(i, j, c, won)`` as returned by :func:`pairs_of_wins`.
    gamma, b, sum_zero
        As for :class:`dprank.objective.DenseObjective`.
    """

    btl = True

    def __init__(self, n: int, pairs, gamma, b, sum_zero: bool):
        self.n = n
        self.i, self.j, self.cnt, self.won = pairs
        self.gamma = _checks.real(gamma, "gamma")
        if not np.isfinite(self.gamma) or self.gamma < 0:
            raise ValueError(f"gamma must be finite and >= 0, got {gamma}")
        if self.gamma == 0 and not sum_zero:
            raise ValueError(
                "gamma = 0 needs sum_zero=True: the objective is then translation invariant"
            )
        self.b = np.zeros(n) if b is None else np.asarray(_checks.array(b, "b"), np.float64)
        if self.b.shape != (n,):
            raise ValueError(f"perturbation b must have shape ({n},), got {self.b.shape}")
        if not np.all(np.isfinite(self.b)):
            raise ValueError("perturbation b must be finite")
        self.sum_zero = sum_zero
        self.ones_weight = 1.0 if sum_zero else 0.0
        self.row_wins = np.bincount(self.i, self.won, n) + np.bincount(
            self.j, self.cnt - self.won, n
        )
        self._v = np.zeros((n, n))  # Hessian weights; cells off the graph stay zero
        self._cells = (self.i * n + self.j, self.j * n + self.i)  # flat indices of V_ij, V_ji

    def _win_probs(self, theta):
        """``s_ij = P(i beats j)`` over the pairs."""
        a = np.exp(theta - theta.max())
        if np.all(a > 0):
            ai = a[self.i]
            return np.divide(ai, ai + a[self.j], out=ai)
        # exp underflow (scores spread over > 700): the logistic function, stably
        d = theta[self.i] - theta[self.j]
        e = np.exp(-np.abs(d))
        return np.where(d >= 0, 1.0 / (1.0 + e), e / (1.0 + e))

    def value(self, theta):
        """Objective value (the loss plus ridge plus linear perturbation)."""
        shifted = theta - theta.max()
        a = np.exp(shifted)
        if np.all(a > 0):
            # log(a_i + a_j) - log a_i = -log P(i beats j), log a = theta - max(theta)
            log_denom = np.log(a[self.i] + a[self.j])
            val = float(self.cnt @ log_denom - self.row_wins @ shifted)
        else:
            d = theta[self.i] - theta[self.j]
            val = float(
                self.won @ np.logaddexp(0.0, -d) + (self.cnt - self.won) @ np.logaddexp(0.0, d)
            )
        return val + 0.5 * self.gamma * float(theta @ theta) + float(self.b @ theta)

    def gradient_and_weights(self, theta):
        """Gradient and the symmetric ``n x n`` Hessian weights ``V`` (``H = L(V) + gamma I``).

        ``V`` is a buffer reused by the next call.
        """
        s = self._win_probs(theta)
        cs = self.cnt * s
        r = cs - self.won
        grad = np.bincount(self.i, r, self.n)
        grad -= np.bincount(self.j, r, self.n)
        grad += self.gamma * theta
        grad += self.b
        if self.sum_zero:
            grad -= grad.mean()
        np.subtract(1.0, s, out=s)
        cs *= s
        flat = self._v.reshape(-1)
        flat[self._cells[0]] = cs
        flat[self._cells[1]] = cs
        return grad, self._v
