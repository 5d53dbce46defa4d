"""Objective (2.2) of Paper A on the list of compared pairs (logistic link): a form of
:mod:`dprank.objective`, reached only through it (private).

:class:`dprank.objective.DenseObjective` evaluates the gradient and the Hessian
weights on all ``n^2`` cells of the win matrix; on a comparison graph of density
``p`` only ``p n (n - 1) / 2`` pairs carry data. :class:`PairObjective` computes
the same quantities over the compared pairs only: one exponential per item and a
few vector operations per compared cell ``(i, j)`` (both cells of a pair, in
row-major order, so that the sums over an item's pairs are contiguous:
``numpy.add.reduceat``), and keeps the Hessian weights as a CSR matrix of the
fixed sparsity pattern for the conjugate-gradient Newton steps. No ``n x n``
array is touched after the set-up.

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

from ..base import _checks
from ..base._lapack import pcg

_CG_MAX_ITER = 200


def compared_mask(w: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """``(n, n)`` booleans: the off-diagonal cells ``(i, j)`` of compared pairs (both orders).

    A pair is compared when ``w[i, j] + w[j, i] > 0``. ``counts``: ``w + w.T`` where
    known (a :class:`PairwiseData`).
    """
    if counts is None:
        mask = w > 0
        mask |= mask.T
    else:
        mask = counts > 0
    np.fill_diagonal(mask, False)  # the estimators ignore the diagonal
    return mask


def compared_cells(w: np.ndarray, counts: np.ndarray | None = None) -> np.ndarray:
    """Flat indices (row-major) of the cells of :func:`compared_mask`: both of each pair's."""
    return np.flatnonzero(compared_mask(w, counts))  # much faster than the 2-d numpy.nonzero


def pair_density(n: int, mask: np.ndarray) -> float:
    """Compared pairs over ``n (n - 1) / 2``, from :func:`compared_mask`."""
    return np.count_nonzero(mask) / max(1.0, n * (n - 1.0))


def cells_of_wins(w: np.ndarray, cells: np.ndarray | None = None):
    """The compared cells of a (checked) win matrix, as :class:`PairObjective` takes them.

    Returns ``(n, i, j, c, won)``: the cells ``(i, j)`` of :func:`compared_cells` (both
    orders of every compared pair, row-major), ``c = w[i, j] + w[j, i]`` and
    ``won = w[i, j]`` (float64).
    """
    n = w.shape[0]
    cells = compared_cells(w) if cells is None else cells
    i = cells // n
    j = cells - i * n
    flat = w.reshape(-1)
    won = flat.take(cells).astype(np.float64)
    return n, i, j, won + flat.take(j * n + i), won


def cells_of_pairs(n: int, a: np.ndarray, b: np.ndarray, cnt: np.ndarray, w: np.ndarray):
    """:func:`cells_of_wins` of aggregated pairs ``(a, b)``, ``a != b``, each listed once."""
    i = np.concatenate([a, b]).astype(np.int64)
    j = np.concatenate([b, a]).astype(np.int64)
    order = np.argsort(i * n + j, kind="stable")
    won = np.concatenate([w, cnt - w])[order]
    return n, i[order], j[order], np.concatenate([cnt, cnt])[order], won


def cached_cells(data):
    """:func:`cells_of_wins` of a :class:`PairwiseData`, computed once per data set."""
    cells = getattr(data, "_dprank_cells", None)
    if cells is None:
        cells = cells_of_wins(data.wins, compared_cells(data.wins, data.counts))
        data._dprank_cells = cells
    return cells


class PairObjective:
    """Objective (2.2), logistic link, over the compared pairs (see the module docstring).

    Offers the interface of :class:`dprank.objective.DenseObjective` that the
    Newton loop of :func:`dprank.fit.mle.fit_penalized_mle` uses (``n``, ``gamma``,
    ``ones_weight``, ``btl``, :meth:`value`, :meth:`gradient_and_weights`), with
    the same argument checks and messages, and its own :meth:`newton_direction`.

    Parameters
    ----------
    cells : tuple
        ``(n, i, j, c, won)`` as returned by :func:`cells_of_wins`.
    gamma, b, sum_zero
        As for :class:`dprank.objective.DenseObjective`.
    """

    btl = True

    def __init__(self, cells, gamma, b, sum_zero: bool):
        import scipy.sparse

        n, self.i, self.j, self.cnt, won = cells
        self.n = n
        self.gamma, self.b = _checks.ridge_and_perturbation(gamma, b, n, sum_zero)
        self.sum_zero = sum_zero
        self.ones_weight = 1.0 if sum_zero else 0.0
        # rows of the cells: i is sorted, so row k is indptr[k]:indptr[k + 1]
        indptr = np.searchsorted(self.i, np.arange(n + 1))
        sizes = np.diff(indptr)
        self._sizes = sizes  # x.take(i) == numpy.repeat(x, sizes) (i sorted), and faster
        # items with comparisons (all of them, on a connected graph)
        self._rows = None if np.all(sizes) else np.flatnonzero(sizes)
        self._starts = indptr[:-1] if self._rows is None else indptr[self._rows]
        self.won = won
        self.row_wins = self._row_sums(won)
        # int32 indices where they fit, as scipy.sparse would make them (without a copy then)
        idx = np.int32 if self.i.size < 2**31 else np.int64
        self._v = scipy.sparse.csr_array(
            (np.zeros(self.i.size), self.j.astype(idx), indptr.astype(idx)), shape=(n, n)
        )

    def cold_start(self) -> np.ndarray:
        """A start for a fit without ``theta0``: the Jacobi step from zero, or zero.

        At ``theta = 0`` every ``s_ij = 1/2``: the gradient is
        ``c_i / 2 - (wins of i) + b`` and the Hessian's diagonal ``c_i / 4 + gamma``
        (``c_i`` the comparisons of ``i``), so the step ``-g / diag`` costs no
        exponential. It saves the Newton solve and the line search of the first
        iteration, and it lowers the objective: the weights ``c s (1 - s)`` are largest
        at zero, so ``H(theta) <= H(0) <= 2 D - gamma I`` (``D`` the diagonal, a
        Laplacian is at most twice its diagonal) and ``f(-g / D) <= f(0) -
        (gamma / 2) |g / D|^2``. Under ``sum_zero`` (centred step) the objective is
        compared with ``f(0) = log 2 sum_pairs c_ij`` instead, and zero kept if lower.
        """
        zero = np.zeros(self.n)
        c_row = self._row_sums(self.cnt)
        diag = 0.25 * c_row + self.gamma
        if not np.all(diag > 0):
            return zero
        grad = 0.5 * c_row - self.row_wins + self.b
        if self.sum_zero:
            grad -= grad.mean()
        start = -grad / diag
        if self.sum_zero:
            start -= start.mean()
        if self.sum_zero and not self.value(start) < 0.5 * np.log(2.0) * self.cnt.sum():
            return zero
        return start

    def _row_sums(self, x):
        """``sum_j x_ij`` per item ``i`` (zero for items without comparisons)."""
        if self._rows is None:
            return np.add.reduceat(x, self._starts) if x.size else np.zeros(self.n)
        out = np.zeros(self.n)
        if self._rows.size:
            out[self._rows] = np.add.reduceat(x, self._starts)
        return out

    def _win_probs(self, theta):
        """``P(i beats j)`` over the cells ``(i, j)``."""
        a = np.exp(theta - theta.max())
        if np.all(a > 0):
            ai = np.repeat(a, self._sizes)
            return np.divide(ai, ai + a.take(self.j), out=ai)
        # exp underflow (scores spread over > 700): the logistic function, stably
        d = np.repeat(theta, self._sizes) - theta.take(self.j)
        e = np.exp(-np.abs(d))
        return np.where(d >= 0, 1.0 / (1.0 + e), e / (1.0 + e))

    def value(self, theta):
        """Objective value (the loss plus ridge plus linear perturbation)."""
        shifted = theta - theta.max()
        a = np.exp(shifted)
        if np.all(a > 0):
            # -log P(i beats j) = log(a_i + a_j) - log a_i, log a = theta - max(theta);
            # every pair has two cells, hence the 1/2
            log_denom = np.log(np.repeat(a, self._sizes) + a.take(self.j))
            val = float(0.5 * (self.cnt @ log_denom) - self.row_wins @ shifted)
        else:
            d = theta.take(self.i) - theta.take(self.j)
            val = float(self.won @ np.logaddexp(0.0, -d))
        return val + 0.5 * self.gamma * float(theta @ theta) + float(self.b @ theta)

    def gradient_and_weights(self, theta):
        """Gradient and the Hessian weights ``V`` (a CSR matrix, reused by the next call).

        The gradient's data part is ``sum_j c_ij s_ij - (wins of i)``, the weights
        ``V_ij = c_ij s_ij (1 - s_ij)``; the Hessian's diagonal is kept for
        :meth:`newton_direction`.
        """
        s = self._win_probs(theta)
        cs = self.cnt * s
        grad = self._row_sums(cs)
        grad -= self.row_wins
        grad += self.gamma * theta
        grad += self.b
        if self.sum_zero:
            grad -= grad.mean()
        np.subtract(1.0, s, out=s)
        cs *= s
        self._v.data = cs
        self._diag = self._row_sums(cs)
        self._diag += self.gamma
        return grad, self._v

    def jacobi_step(self, grad):
        """``-grad / diag(H)`` (centred under ``sum_zero``), at the last gradient's point."""
        step = -grad / self._diag
        if self.sum_zero:
            step -= step.mean()
        return step

    def newton_direction(self, grad, v, eta: float):
        """Solve ``(L(V) + gamma I + c 11^T) d = -grad`` to relative residual ``eta``.

        Preconditioned conjugate gradients as in :mod:`dprank.fit.mle` (Jacobi on the
        complement of ``1``, exact on ``1``), on the ``V`` and the diagonal of the
        last :meth:`gradient_and_weights`; a direct solve if CG stalls. Returns the
        direction and the number of CG iterations.
        """
        n, c = self.n, self.ones_weight
        diag = self._diag
        inv_diag = 1.0 / diag
        inv_n = 1.0 / n
        inv_ones = 1.0 / (self.gamma + c * n)  # H 1 = (gamma + c n) 1 exactly

        def precond(r):
            mean = r.sum() * inv_n
            z = inv_diag * (r - mean)
            z -= z.sum() * inv_n
            z += mean * inv_ones
            return z

        def matvec(p):
            hp = diag * p
            hp -= v @ p
            if c:
                hp += c * p.sum()
            return hp

        rhs = -grad
        x, it, done = pcg(matvec, precond, rhs, eta * eta * (rhs @ rhs), _CG_MAX_ITER)
        if done:
            return x, it
        hess = np.negative(v.toarray())
        hess[np.diag_indices(n)] = diag
        if c:
            hess += c
        import scipy.linalg

        return scipy.linalg.solve(hess, rhs, assume_a="pos", check_finite=False), it
