"""The objective on pairs in ``numpy.triu_indices`` order (Paper B2) and with per-user offsets.

Private to :mod:`dprank.objective`, which re-exports its public names.
"""

from __future__ import annotations

import numpy as np

from ..data.models import BTL

# ---------------------------------------------------------------------------
# pairs in triu order (Paper B2's sufficient statistics)


def triu_scatter(iu, ju, g_pair, m: int):
    """``sum_{pairs (i, j)} g_ij (e_i - e_j)``: per-pair derivatives onto the items."""
    return np.bincount(iu, g_pair, m) - np.bincount(ju, g_pair, m)


def triu_laplacian(iu, ju, h, m: int, shift=None):
    """``sum_{i<j} h_ij (e_i - e_j)(e_i - e_j)^T`` (plus ``shift I``) as an ``(m, m)`` matrix."""
    H = np.zeros((m, m))
    H[iu, ju] = -h
    H[ju, iu] = -h
    diag = np.bincount(iu, h, m) + np.bincount(ju, h, m)
    if shift is not None:
        diag += shift
    H[np.diag_indices(m)] = diag
    return H


class TriuObjective:
    """Paper B2's objective (5) on per-pair statistics ``S, N`` in ``triu_indices(m, 1)`` order.

    ``f(theta) = sum_{i<j} [S_ij l(d_ij) + (N_ij - S_ij) l(-d_ij)]
    + (gamma / 2) ||theta||^2 + b^T theta`` with ``gamma = 2 lambda``
    (:func:`ridge_from_lambda`). The arguments are checked by the caller.

    Parameters
    ----------
    S, N : (P,) numpy.ndarray
    m : int
    gamma : float
    link : Link
    b : (m,) numpy.ndarray
    """

    def __init__(self, S, N, m, gamma, link, b):
        self.S, self.N, self.m = S, N, m
        self.gamma = gamma
        self.link = link
        self.btl = link is BTL
        self.b = b
        self.iu, self.ju = np.triu_indices(self.m, k=1)
        self.NmS = self.N - self.S

    def _d(self, theta):
        return theta[self.iu] - theta[self.ju]

    def value(self, theta) -> float:
        """Objective value (the ridge as ``((gamma / 2) theta) . theta``)."""
        d = self._d(theta)
        if self.btl:
            pair = self.N @ np.logaddexp(0.0, d) - self.S @ d
        else:
            pair = self.S @ self.link.loss(d) + self.NmS @ self.link.loss(-d)
        return float(pair + 0.5 * self.gamma * theta @ theta + self.b @ theta)

    def pair_derivatives(self, theta):
        """``(df/dd, d2f/dd2)`` per pair."""
        d = self._d(theta)
        if self.btl:
            f = 1.0 / (1.0 + np.exp(-d))
            return self.N * f - self.S, self.N * f * (1.0 - f)
        d1p, d2p = self.link.loss_derivatives(d)
        d1m, d2m = self.link.loss_derivatives(-d)
        return self.S * d1p - self.NmS * d1m, self.S * d2p + self.NmS * d2m

    def gradient(self, theta):
        """Gradient."""
        g_pair, _ = self.pair_derivatives(theta)
        return triu_scatter(self.iu, self.ju, g_pair, self.m) + self.gamma * theta + self.b

    def laplacian(self, h):
        """``sum_{i<j} h_ij (e_i - e_j)(e_i - e_j)^T``."""
        return triu_laplacian(self.iu, self.ju, h, self.m)

    def grad_hess(self, theta):
        """Gradient and Hessian."""
        g_pair, h = self.pair_derivatives(theta)
        grad = triu_scatter(self.iu, self.ju, g_pair, self.m) + self.gamma * theta + self.b
        return grad, triu_laplacian(self.iu, self.ju, h, self.m, self.gamma)


class UserEffectObjective:
    """The BTL likelihood with a user effect: B2 supplement S.1.2's step-1 objective ``Q``.

    User ``l`` answers pair ``p = (i, j)`` (``numpy.triu_indices(m, 1)`` order) with
    ``y_lp = 1`` ("``i`` preferred") when observed (``a_lp = 1``), and::

        Q(theta, gamma) = sum_l sum_p a_lp { log(1 + exp(eta_lp)) - y_lp eta_lp }
                          + (gamma_theta / 2) ||theta||^2 + (gamma_users / 2) ||gamma||^2,
        eta_lp = gamma_l + theta_i - theta_j,

    the loss of :class:`TriuObjective` (BTL) per answer, with each user's offset
    ``gamma_l`` inside the logistic. The ridges are in this module's convention
    (:func:`ridge_from_lambda` turns B2's ``lam ||theta||^2`` into ``gamma_theta``).
    The arguments are checked by the caller (:mod:`dprank.fit.mixed_effects`).

    Parameters
    ----------
    y1 : (L, P) numpy.ndarray of bool
        The answers.
    af : (L, P) numpy.ndarray of float64 or None
        The observation mask ``a`` as 0.0/1.0; ``None``: every pair observed
        (masking by 1.0 changes no bit, so it is skipped).
    m : int
        Number of items.
    gamma_theta, gamma_users : float
        Ridges on the item scores and on the user effects.
    """

    def __init__(self, y1, af, m: int, gamma_theta: float, gamma_users: float):
        self.y1 = y1
        self.yf = y1.astype(np.float64)
        self.af = af
        self.m = m
        self.gamma_theta, self.gamma_users = gamma_theta, gamma_users
        self.iu, self.ju = np.triu_indices(m, 1)
        self._last_eta = None

    def _mask(self, x):
        return x if self.af is None else x * self.af

    def eta(self, theta, gamma):
        """``gamma_l + theta_i - theta_j``; the fit asks for the same point twice in a row
        (the value at an accepted step, then the derivatives there), so the last is kept."""
        last = self._last_eta
        if last is not None and last[0] is theta and last[1] is gamma:
            return last[2]
        eta = gamma[:, None] + (theta[self.iu] - theta[self.ju])[None, :]
        self._last_eta = (theta, gamma, eta)
        return eta

    def value(self, theta, gamma) -> float:
        """``Q(theta, gamma)``."""
        eta = self.eta(theta, gamma)
        loss = np.logaddexp(0.0, eta) - self.yf * eta
        return float(
            np.sum(self._mask(loss))
            + 0.5 * self.gamma_theta * theta @ theta
            + 0.5 * self.gamma_users * gamma @ gamma
        )

    def derivatives(self, theta, gamma):
        """Gradient ``(dQ/dtheta, dQ/dgamma)`` and Hessian weights ``w = a F (1 - F)``."""
        from scipy.special import expit

        eta = self.eta(theta, gamma)
        F, Fm = expit(eta), expit(-eta)  # F(eta) and 1 - F(eta), both without cancellation
        r = self._mask(np.where(self.y1, -Fm, F))  # a (F(eta) - y)
        g_theta = triu_scatter(self.iu, self.ju, r.sum(axis=0), self.m) + self.gamma_theta * theta
        g_gamma = r.sum(axis=1) + self.gamma_users * gamma
        return g_theta, g_gamma, self._mask(F * Fm)
