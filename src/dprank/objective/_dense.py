"""The dense forms of the objective: a win matrix (``O(n^2)``), and batches of small problems.

Private to :mod:`dprank.objective`, which re-exports its public names.
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..data.models import BTL, Link

# ---------------------------------------------------------------------------
# dense win matrices


class PairwiseData:
    """Sufficient statistics of one comparison data set, reusable across fits.

    Parameters
    ----------
    wins : (n, n) array_like
        ``wins[i, j]`` = number of comparisons ``i`` won against ``j``.
    link : Link
        Comparison model.
    """

    def __init__(self, wins, link: Link = BTL):
        w = np.asarray(_checks.win_matrix(wins), dtype=np.float64)
        _checks.link(link)
        self.n = w.shape[0]
        self.wins = w
        self.counts = w + w.T
        off_diag = ~np.eye(self.n, dtype=bool)
        self.complete = bool(np.all(self.counts[off_diag] == 1.0))
        self.row_wins = w.sum(axis=1)
        self.link = link


class DenseObjective:
    """Objective (2.2) on one win matrix: value, gradient, Hessian weights.

    ``f(theta) = sum_{i != j} wins[i, j] l(theta_i - theta_j) + (gamma / 2) ||theta||^2
    + b^T theta`` (Paper A, eq. (2.2)); its Hessian is ``L(V) + gamma I`` with
    ``L(V)`` the Laplacian of the symmetric weights of :meth:`gradient_and_weights`.

    Parameters
    ----------
    data : PairwiseData
    gamma : float
        Ridge (``>= 0``; ``0`` only with ``sum_zero``).
    b : (n,) array_like or None
        Linear perturbation.
    sum_zero : bool
        Project the gradient on ``1^perp`` (the constraint ``sum(theta) = 0``).
    """

    def __init__(self, data: PairwiseData, gamma, b, sum_zero):
        self.data = data
        self.n = data.n
        self.wins, self.counts, self.complete = data.wins, data.counts, data.complete
        self.row_wins, self.link = data.row_wins, data.link
        self.gamma, self.b = _checks.ridge_and_perturbation(gamma, b, self.n, sum_zero)
        self.sum_zero = sum_zero
        self.btl = self.link is BTL
        # weight of the 1 1^T term that makes the constrained Hessian invertible
        self.ones_weight = 1.0 if sum_zero else 0.0

    def _btl_probs(self, theta):
        a = np.exp(theta - theta.max())
        # every a_i + a_j > 0 (diagonal included) exactly when every a_i > 0 (a >= 0);
        # fails on exp underflow (scores spread over > 700) or NaN
        if not np.all(a > 0):
            return None, None
        denom = np.add.outer(a, a)
        return np.divide(a[:, None], denom, out=denom), a

    def value(self, theta):
        """Objective value (the loss plus ridge plus linear perturbation)."""
        val = None
        if self.btl:
            # -log P(i beats j) = log(a_i + a_j) - log(a_i), log(a) = theta - max(theta)
            shifted = theta - theta.max()
            a = np.exp(shifted)
            # log(a_i + a_j), a_i <= 1, is finite for every i, j exactly when every a_i > 0
            if np.all(a > 0):
                log_denom = np.log(np.add.outer(a, a))
                if self.complete:
                    pair_sum = 0.5 * (log_denom.sum() - np.trace(log_denom))
                else:
                    pair_sum = 0.5 * float(np.sum(self.counts * log_denom))
                val = float(pair_sum - self.row_wins @ shifted)
        if val is None:
            d = np.subtract.outer(theta, theta)
            val = float(np.sum(self.wins * self.link.loss(d)))
        return val + 0.5 * self.gamma * float(theta @ theta) + float(self.b @ theta)

    def gradient_and_weights(self, theta):
        """Gradient and the symmetric Hessian weights ``V`` (``H = L(V) + gamma I``)."""
        s = None
        if self.btl:
            s, _ = self._btl_probs(theta)
        if s is not None:
            ns = s if self.complete else np.multiply(self.counts, s)
            grad = ns.sum(axis=1)
            if self.complete:
                grad -= 0.5  # the diagonal holds a/(2a) = 1/2 and has no comparisons
            grad -= self.row_wins
            v = np.subtract(1.0, s)
            v *= ns
            if self.complete:
                np.fill_diagonal(v, 0.0)
        else:
            d = np.subtract.outer(theta, theta)
            d1, d2 = self.link.loss_derivatives(d)
            g = self.wins * d1
            grad = g.sum(axis=1) - g.sum(axis=0)
            c = self.wins * d2
            v = c + c.T
        grad += self.gamma * theta
        grad += self.b
        if self.sum_zero:
            grad -= grad.mean()
        return grad, v

    def hessian(self, v):
        """The Hessian ``L(V) + gamma I`` (plus ``11^T`` under ``sum_zero``) as a dense matrix."""
        hess = np.negative(v)
        hess[np.diag_indices(self.n)] = v.sum(axis=1) + self.gamma
        if self.ones_weight:
            hess += self.ones_weight
        return hess


def _dense(theta, wins, gamma, b, link) -> tuple[DenseObjective, np.ndarray]:
    if np.ndim(wins) < 2 or np.shape(wins)[-1] == 0:
        raise ValueError(f"wins must be an (n, n) matrix with n >= 1, got shape {np.shape(wins)}")
    obj = DenseObjective(PairwiseData(wins, link), gamma, b, sum_zero=gamma == 0)
    theta = np.asarray(_checks.finite(theta, "theta"), dtype=np.float64)
    if theta.shape != (obj.n,):
        raise ValueError(f"theta must have shape ({obj.n},), got {theta.shape}")
    return obj, theta


def objective_value(theta, wins, gamma: float, b=None, link: Link = BTL) -> float:
    """Value of objective (2.2) at ``theta`` (Paper A, Algorithm 1).

    Parameters
    ----------
    theta : (n,) array_like
        Scores.
    wins : (n, n) array_like
        ``wins[i, j]`` = number of comparisons ``i`` won against ``j``.
    gamma : float
        Ridge of ``(gamma / 2) ||theta||^2`` (``>= 0``).
    b : (n,) array_like, optional
        Linear perturbation (``None``: zero).
    link : Link
        Comparison model.

    Returns
    -------
    float
    """
    obj, theta = _dense(theta, wins, gamma, b, link)
    return obj.value(theta)


def objective_gradient(theta, wins, gamma: float, b=None, link: Link = BTL) -> np.ndarray:
    """Gradient of objective (2.2).

    ``sum_j (wins_ij l'(d_ij) - wins_ji l'(d_ji)) + gamma theta + b``.

    Parameters are those of :func:`objective_value`; with ``gamma = 0`` the
    gradient is projected on ``1^perp`` (the objective is translation invariant).

    Returns
    -------
    (n,) numpy.ndarray
    """
    obj, theta = _dense(theta, wins, gamma, b, link)
    return obj.gradient_and_weights(theta)[0]


def objective_hessian(theta, wins, gamma: float, link: Link = BTL) -> np.ndarray:
    """Hessian of objective (2.2): ``L(V) + gamma I``.

    ``L(V)`` is the Laplacian of ``V_ij = wins_ij l''(d_ij) + wins_ji l''(d_ji)``.

    Parameters are those of :func:`objective_value` (the Hessian does not depend
    on ``b``); with ``gamma = 0`` it gains ``11^T`` (the constrained problem's).

    Returns
    -------
    (n, n) numpy.ndarray
    """
    obj, theta = _dense(theta, wins, gamma, None, link)
    return obj.hessian(obj.gradient_and_weights(theta)[1])


# ---------------------------------------------------------------------------
# batches of small dense problems (Paper A's individual-DP and audit fits)


def batch_value(link: Link, wins, theta, gamma, b):
    """Objective (2.2) of ``R`` problems: ``wins (R, n, n)``, ``theta, b (R, n)``, ``gamma (R,)``.

    Returns
    -------
    (R,) numpy.ndarray
    """
    d = theta[:, :, None] - theta[:, None, :]
    return (
        np.einsum("rij,rij->r", wins, link.loss(d))
        + 0.5 * gamma * np.einsum("ri,ri->r", theta, theta)
        + np.einsum("ri,ri->r", b, theta)
    )


def batch_derivatives(link: Link, wins, theta):
    """The loss's gradient and Hessian weights for ``R`` problems (no ridge, no ``b``).

    Parameters
    ----------
    link : Link
    wins : (R, n, n) or (n, n) numpy.ndarray
    theta : (R, n) numpy.ndarray

    Returns
    -------
    grad : (R, n) numpy.ndarray
        ``sum_j wins_ij l'(d_ij) - sum_j wins_ji l'(d_ji)``; add ``gamma theta + b``.
    v : (R, n, n) numpy.ndarray
        Symmetric Hessian weights ``wins_ij l''(d_ij) + wins_ji l''(d_ji)``
        (the loss's Hessian is their Laplacian, :func:`batch_hessian`).
    """
    d = theta[:, :, None] - theta[:, None, :]
    d1, d2 = link.loss_derivatives(d)
    g = wins * d1
    grad = g.sum(axis=2) - g.sum(axis=1)
    c = wins * d2
    return grad, c + np.swapaxes(c, 1, 2)


def batch_hessian(v, gamma):
    """Hessians ``L(v_r) + gamma_r I`` of :func:`batch_derivatives`' weights ``v (R, n, n)``.

    ``gamma`` is a float or an ``(R, 1)`` array.
    """
    hess = -v
    idx = np.arange(v.shape[1])
    hess[:, idx, idx] += v.sum(axis=2) + gamma
    return hess
