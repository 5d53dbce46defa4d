"""The score equation of :mod:`dprank.intervals` and its empirical-Bayes ridge.

``G(t)_i = sum_j N_ij F(t_i - t_j) + rho t_i = W~_i`` (step 1 of the construction in
:mod:`dprank.intervals`), solved by Newton's method with dense matrices up to
:data:`DENSE_MAX` items and Jacobi-preconditioned conjugate gradients above, and the
noise-adapted ridge ``rho`` of step 2 (:func:`_eb_ridge`). Private: the public names
live in :mod:`dprank.intervals`, which re-exports the constants.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.special

from .models import Link

#: Largest number of items solved with dense matrices (above: conjugate gradients).
DENSE_MAX = 2000

#: Largest share of the win totals' attainable spread that the empirical-Bayes ridge matches.
SATURATION = 0.9

#: Smallest ridge of the empirical-Bayes choice, relative to the mean information per item.
MIN_RELATIVE_RIDGE = 1e-3


def _pdf(link: Link, x):
    if link.name == "btl":
        s = scipy.special.expit(x)
        return s * (1.0 - s)
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _antiderivative(link: Link, x):
    """``Lambda(x)`` with ``Lambda' = F``: convex, so step 1 minimises a convex function."""
    if link.name == "btl":
        return np.logaddexp(0.0, x)
    return x * scipy.special.ndtr(x) + np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


@dataclass(frozen=True, eq=False)
class _Equation:
    """``G(t)_i = sum_j N_ij F(t_i - t_j) + rho t_i`` on the pairs ``(a, b, N)``."""

    n: int
    a: np.ndarray
    b: np.ndarray
    N: np.ndarray
    link: Link
    rho: float

    def expected_wins(self, t):
        f = self.N * self.link.cdf(t[self.a] - t[self.b])
        return np.bincount(self.a, f, self.n) + np.bincount(self.b, self.N - f, self.n)

    def gradient(self, t, target):
        return self.expected_wins(t) + self.rho * t - target

    def value(self, t, target):
        # Lambda(t_a - t_b) + t_b per comparison: its gradient is F for a and 1 - F for b
        d = t[self.a] - t[self.b]
        return float(
            np.sum(self.N * (_antiderivative(self.link, d) + t[self.b]))
            + 0.5 * self.rho * t @ t
            - target @ t
        )

    def hessian_weights(self, t):
        return self.N * _pdf(self.link, t[self.a] - t[self.b])

    def solve_hessian(self, v, rhs, tol=1e-8, max_iter=500):
        """``H x = rhs`` for ``H = Laplacian(v) + rho I`` (dense up to :data:`DENSE_MAX` items)."""
        n, a, b = self.n, self.a, self.b
        if n <= DENSE_MAX:
            return np.linalg.solve(_dense_laplacian(n, a, b, v, self.rho), rhs)
        diag = np.bincount(a, v, n) + np.bincount(b, v, n) + self.rho

        def matvec(x):
            return diag * x - np.bincount(a, v * x[b], n) - np.bincount(b, v * x[a], n)

        return _pcg(matvec, diag, rhs, tol, max_iter)

    def solve(self, target, theta0=None, tol=1e-6, max_iter=200):
        """Newton with Armijo backtracking for ``G(t) = target`` (a convex minimisation)."""
        t = np.zeros(self.n) if theta0 is None else np.array(theta0, dtype=np.float64)
        f = self.value(t, target)
        for _ in range(max_iter):
            g = self.gradient(t, target)
            step = -self.solve_hessian(self.hessian_weights(t), g, tol=1e-6)
            slope = float(g @ step)
            s = 1.0
            while True:
                cand = t + s * step
                fc = self.value(cand, target)
                if fc <= f + 1e-4 * s * slope or s < 1e-10:
                    break
                if abs(fc - f) <= 1e-13 * max(1.0, abs(f)):
                    break  # round-off level: the step is at the minimum already
                s *= 0.5
            t, f = cand, fc
            if float(np.max(np.abs(step - step.mean()))) <= tol:
                break
        return t


def _pcg(matvec, diag, rhs, tol, max_iter):
    """Jacobi-preconditioned conjugate gradient for ``A x = rhs`` (``A`` given by ``matvec``)."""
    x = np.zeros_like(rhs)
    r = rhs.copy()
    z = r / diag
    p = z.copy()
    rz = float(r @ z)
    stop = tol * float(np.linalg.norm(rhs))
    for _ in range(max_iter):
        ap = matvec(p)
        alpha = rz / max(float(p @ ap), 1e-300)
        x += alpha * p
        r -= alpha * ap
        if float(np.linalg.norm(r)) <= stop:
            break
        z = r / diag
        rz_new = float(r @ z)
        p = z + (rz_new / max(rz, 1e-300)) * p
        rz = rz_new
    return x


def _prior_slopes(link: Link, tau):
    """``E f(X)`` and ``E F(X) (1 - F(X))`` for ``X = theta_i - theta_j``, ``theta ~ N(0, tau^2)``.

    Trapezoid rule on ``|x| <= min(12 sd, 40)`` (the integrands are below
    ``e^-40`` or the normal density below ``e^-72`` outside).
    """
    sd = math.sqrt(2.0) * np.atleast_1d(np.asarray(tau, dtype=np.float64))
    out_f, out_v = np.empty(sd.size), np.empty(sd.size)
    for k, v in enumerate(sd):
        if v == 0.0:
            x, w = np.zeros(1), np.ones(1)
        else:
            x = np.linspace(-1.0, 1.0, 4001) * min(12.0 * v, 40.0)
            w = np.exp(-0.5 * (x / v) ** 2) / (v * math.sqrt(2.0 * math.pi)) * (x[1] - x[0])
            w[[0, -1]] *= 0.5
        F = link.cdf(x)
        out_f[k] = _pdf(link, x) @ w
        out_v[k] = (F * (1.0 - F)) @ w
    return out_f, out_v


def _eb_ridge(
    w_obs, noise_var: float, a, b, N, link: Link, sampling: bool = True
) -> tuple[float, float]:
    """Empirical-Bayes ridge of the debiased fit from the released win totals.

    Linearised, the centred win totals are ``W~ = H theta + xi + e``: ``H`` the
    Laplacian of ``N f``, ``xi`` the sampling error (variance ``N F (1 - F)``
    per pair), ``e`` the privacy noise (variance ``noise_var`` per item). Under
    the working prior ``theta ~ N(0, tau^2)`` their spread over items is
    ``V(tau) = c_f(tau)^2 tau^2 tr(L^2) / (n - 1) + c_v(tau) tr(L) / (n - 1) + noise_var``
    (``L`` the Laplacian of ``N``, ``c_f = E f``, ``c_v = E F (1 - F)`` under the
    prior). ``tau`` solves ``V(tau) = max(V_obs, V(0)) (1 + sqrt(2 / (n - 1)))``,
    one standard error above the observed spread ``V_obs`` of ``W~`` (an
    understated ``tau`` over-shrinks; a spread within the noise then does not
    shrink every score to 0), capped at :data:`SATURATION` of the largest
    spread any ``tau`` gives (beyond it ``tau`` is not identified). The ridge
    is the posterior mean's, per item of mean degree ``d``:
    ``rho = (c_v d + noise_var) / (c_f d tau^2)`` (``1 / tau^2`` without
    noise, more where the privacy noise dominates), at least
    :data:`MIN_RELATIVE_RIDGE` times the information ``f(0) d``.

    Parameters
    ----------
    w_obs : (n,) array
        The released win totals ``W~``.
    noise_var : float
        Variance of the noise on each total beyond the BTL sampling.
    a, b, N : arrays
        The public design's pairs and (weighted) comparisons per pair.
    link : Link
    sampling : bool
        Whether the sampling term ``c_v tr(L) / (n - 1)`` is added; False where
        ``noise_var`` was measured with the sampling included (local DP).

    Returns
    -------
    rho, tau : float
    """
    w = np.asarray(w_obs, dtype=np.float64)
    n = w.size
    deg = np.bincount(a, N, n) + np.bincount(b, N, n)
    t1 = float(deg.sum()) / (n - 1) if sampling else 0.0
    t2 = float(deg @ deg + 2.0 * N @ N) / (n - 1)
    v_obs = float(np.sum((w - w.mean()) ** 2)) / (n - 1)

    def spread(tau):
        cf, cv = _prior_slopes(link, tau)
        return cf * cf * np.square(tau) * t2 + cv * t1 + noise_var

    v0 = float(spread(0.0)[0])
    grid = np.concatenate([[0.0], np.geomspace(1e-3, 50.0, 400)])
    sup = float(np.max(spread(grid)))
    target = max(v_obs, v0) * (1.0 + math.sqrt(2.0 / (n - 1)))
    target = min(target, v0 + SATURATION * (sup - v0))
    above = np.nonzero(spread(grid) >= target)[0]
    if above.size == 0:
        tau = float(grid[-1])
    else:
        lo, hi = float(grid[above[0] - 1]), float(grid[above[0]])
        for _ in range(40):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if spread(mid)[0] < target else (lo, mid)
        tau = hi
    tau = max(tau, float(grid[1]))
    cf, cv = (float(v[0]) for v in _prior_slopes(link, tau))
    d = float(deg.mean())
    info0 = float(_pdf(link, np.zeros(1))[0]) * d
    rho = (cv * t1 * (n - 1) / n + noise_var) / (cf * d * tau * tau)
    return max(rho, MIN_RELATIVE_RIDGE * info0), tau


def _dense_laplacian(n, a, b, v, diag_add):
    H = np.zeros((n, n))
    np.add.at(H, (a, b), -v)
    np.add.at(H, (b, a), -v)
    H[np.diag_indices(n)] = np.bincount(a, v, n) + np.bincount(b, v, n) + diag_add
    return H
