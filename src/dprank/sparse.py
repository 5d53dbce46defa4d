"""Sparse Newton-CG for ridge-penalised pairwise likelihoods (cost ``O(pairs)`` per step).

Every estimator of the library minimises, over ``theta in R^n``, an objective
of the form (Paper A, eq. (2.2); Paper B2, eq. (5))::

    f(theta) = sum_{pairs a<b} [ w_ab l(d_ab) + (n_ab - w_ab) l(-d_ab) ]
               + (gamma / 2) ||theta||^2 + beta^T theta,     d_ab = theta_a - theta_b,

with ``l = -log F`` the comparison loss, ``n_ab`` the (weighted) number of
comparisons of the pair and ``w_ab`` the (weighted) outcomes for ``a``
(:meth:`dprank.comparisons.Comparisons.pair_statistics`). For 0/1 outcomes
``w_ab = wins[a, b]`` and ``n_ab - w_ab = wins[b, a]``, so ``f`` is exactly
the dense objective of :mod:`dprank.mle`; Paper B2's weighted objective is
``f`` with ``w = S``, ``n = N`` and ``gamma = 2 lambda``.

Solver
------
* Pairs are aggregated once per data set; one objective/gradient pass costs
  a gather, a few elementwise operations and two ``bincount`` scatters over
  the observed pairs.
* The Hessian is ``L(h) + gamma I`` (plus ``11^T`` under the sum-to-zero
  constraint), ``L(h)`` the graph Laplacian with pair weights
  ``h = w l''(d) + (n - w) l''(-d)``: ``H x = D x - U x - U^T x`` with ``D``
  the diagonal and ``U`` the strict upper triangle, stored in CSR with the
  pattern built once per data set (:class:`SparseData`); since the pairs are
  sorted, a Newton step only assigns the new weights as the CSR data (no
  gather, no conversion).
* Newton systems are solved by preconditioned conjugate gradients with the
  preconditioner of the dense solver: Jacobi on the complement of the
  all-ones vector, exact on it (``1`` is an exact eigenvector). Inexact
  Newton: CG stops at the relative residual ``eta_k = min(0.1, sqrt(|g_k| /
  |g_0|))`` (floored at ``1e-10``), a forcing sequence that keeps local
  superlinear convergence (Eisenstat and Walker 1996).
* Step lengths and the stopping rule are those of :func:`dprank.mle.fit_penalized_mle`
  (logistic link: ``t = min(1, 1/spread(step))`` or Armijo never below it;
  other links: Armijo) or those of :func:`dprank.weighted_mle.fit_weighted_mle`
  (stop when ``||grad||_inf <= gtol``).
"""

from __future__ import annotations

import numpy as np
from scipy import sparse as sp
from scipy import special

from .comparisons import Comparisons, PairStatistics
from .models import BTL, Link

__all__ = ["DisconnectedGraphError", "SparseData", "sparse_newton"]

_CG_MAX_ITER = 2000


class DisconnectedGraphError(ValueError):
    """The unpenalised fit was asked for on a disconnected comparison graph."""


def check_connected(n_items: int, a: np.ndarray, b: np.ndarray) -> None:
    """Raise :class:`DisconnectedGraphError` naming the component sizes if not connected."""
    from scipy.sparse.csgraph import connected_components

    adj = sp.coo_matrix((np.ones(a.size), (a, b)), shape=(n_items, n_items)).tocsr()
    k, lab = connected_components(adj, directed=False)
    if k > 1:
        sizes = np.sort(np.bincount(lab))[::-1]
        shown = ", ".join(str(int(s)) for s in sizes[:10]) + (", ..." if k > 10 else "")
        raise DisconnectedGraphError(
            f"the comparison graph has {k} connected components (sizes {shown}): the "
            "unpenalised fit (gamma = 0) is not identified; use a ridge gamma > 0 "
            "or fit each component separately"
        )


class SparseData:
    """Aggregated pairs of one data set and the CSR pattern of its Hessian.

    Parameters
    ----------
    data : Comparisons or PairStatistics
    link : Link
    """

    def __init__(self, data, link: Link = BTL):
        ps = data.pair_statistics() if isinstance(data, Comparisons) else data
        if not isinstance(ps, PairStatistics):
            raise TypeError(f"expected Comparisons or PairStatistics, got {type(data).__name__}")
        self.n = int(ps.n_items)
        self.a, self.b = ps.a, ps.b
        self.cnt = np.asarray(ps.n, dtype=np.float64)
        self.w = np.asarray(ps.w, dtype=np.float64)
        if np.any(self.cnt < 0):
            raise ValueError("pair counts must be non-negative")
        self.link = link
        self.btl = link is BTL
        self.n_pairs = int(self.a.size)
        self._csr = None

    @property
    def density(self) -> float:
        """Observed pairs over ``n (n - 1) / 2``."""
        return self.n_pairs / max(1.0, self.n * (self.n - 1) / 2.0)

    def upper(self):
        """CSR pattern of the strict upper triangle (pairs ``a < b``, built once).

        The pairs are sorted by ``(a, b)``, so the CSR data array is the pair
        array itself: a Newton step only assigns the new weights.
        """
        if self._csr is None:
            n = self.n
            order = self.a * np.int64(n) + self.b
            if order.size and not np.all(order[1:] > order[:-1]):
                raise ValueError("pairs must be distinct and sorted by (a, b)")
            indptr = np.zeros(n + 1, dtype=np.int64)
            np.cumsum(np.bincount(self.a, minlength=n), out=indptr[1:])
            self._csr = sp.csr_matrix((np.zeros(self.n_pairs), self.b.copy(), indptr), shape=(n, n))
        return self._csr

    # objective pieces --------------------------------------------------------
    def diff(self, theta):
        return theta[self.a] - theta[self.b]

    def pair_value(self, theta) -> float:
        d = self.diff(theta)
        if self.btl:
            return float(self.cnt @ np.logaddexp(0.0, d) - self.w @ d)
        link = self.link
        return float(self.w @ link.loss(d) + (self.cnt - self.w) @ link.loss(-d))

    def btl_value_derivatives(self, theta):
        """Logistic link: pair value, ``df/dd`` and ``d2f/dd2`` from one exponential pass."""
        d = self.diff(theta)
        e = np.exp(-np.abs(d))
        inv = 1.0 / (1.0 + e)
        s = np.where(d >= 0, inv, e * inv)  # F(d)
        sp_d = np.maximum(d, 0.0)
        sp_d += np.log1p(e)  # log(1 + e^d)
        value = float(self.cnt @ sp_d - self.w @ d)
        h = self.cnt * (e * inv * inv)  # n F(1 - F)
        g = self.cnt * s
        g -= self.w
        return value, g, h

    def pair_derivatives(self, theta):
        """Per pair ``(df/dd, d2f/dd2)``."""
        d = self.diff(theta)
        if self.btl:
            s = special.expit(d)
            g = self.cnt * s
            h = g * (1.0 - s)
            g -= self.w
            return g, h
        d1p, d2p = self.link.loss_derivatives(d)
        d1m, d2m = self.link.loss_derivatives(-d)
        rest = self.cnt - self.w
        return self.w * d1p - rest * d1m, self.w * d2p + rest * d2m

    def scatter(self, g):
        n = self.n
        return np.bincount(self.a, g, n) - np.bincount(self.b, g, n)

    def degree_weights(self, h):
        n = self.n
        return np.bincount(self.a, h, n) + np.bincount(self.b, h, n)


class _Problem:
    def __init__(self, data: SparseData, gamma: float, beta, sum_zero: bool):
        self.data = data
        self.n = data.n
        self.gamma = float(gamma)
        self.beta = np.zeros(self.n) if beta is None else np.asarray(beta, dtype=np.float64)
        self.sum_zero = sum_zero
        self.c = 1.0 if sum_zero else 0.0

    def value(self, theta):
        return (
            self.data.pair_value(theta)
            + 0.5 * self.gamma * float(theta @ theta)
            + float(self.beta @ theta)
        )

    def value_cached(self, theta):
        """Objective value and, for the logistic link, the pair derivatives there."""
        if not self.data.btl:
            return self.value(theta), None
        v, g, h = self.data.btl_value_derivatives(theta)
        v += 0.5 * self.gamma * float(theta @ theta) + float(self.beta @ theta)
        return v, (g, h)

    def grad_hess(self, theta, cache=None):
        """Gradient and pair Hessian weights; sets ``last_value`` (logistic link, fresh pass)."""
        self.last_value = None
        if cache is not None:
            g, h = cache
        elif self.data.btl:
            v, g, h = self.data.btl_value_derivatives(theta)
            self.last_value = v + 0.5 * self.gamma * float(theta @ theta) + float(self.beta @ theta)
        else:
            g, h = self.data.pair_derivatives(theta)
        grad = self.data.scatter(g)
        grad += self.gamma * theta
        grad += self.beta
        if self.sum_zero:
            grad -= grad.mean()
        return grad, h

    def direction(self, grad, h, rtol):
        """Approximately solve ``(L(h) + gamma I + c 11^T) d = -grad`` by PCG."""
        data = self.data
        n = self.n
        upper = data.upper()
        upper.data = h
        upper_t = upper.T  # CSC view sharing the data
        diag = data.degree_weights(h) + self.gamma
        gamma, c = self.gamma, self.c
        ones_eig = gamma + c * n
        if not ones_eig > 0:
            raise ValueError("singular Hessian: gamma = 0 without the sum-to-zero constraint")
        inv_diag = 1.0 / np.where(diag > 0, diag, 1.0)

        def hess_mv(x):
            y = diag * x
            y -= upper @ x
            y -= upper_t @ x
            if c:
                y += c * x.sum()
            return y

        def precond(r):
            mean = r.mean()
            z = inv_diag * (r - mean)
            z -= z.mean()
            z += mean / ones_eig
            return z

        rhs = -grad
        x = np.zeros(n)
        r = rhs.copy()
        z = precond(r)
        p = z.copy()
        rz = r @ z
        tol2 = (rtol * np.linalg.norm(rhs)) ** 2
        it = 0
        for it in range(1, _CG_MAX_ITER + 1):
            hp = hess_mv(p)
            curv = p @ hp
            if not curv > 0:
                return None, it  # not positive definite
            alpha = rz / curv
            x += alpha * p
            r -= alpha * hp
            if r @ r <= tol2:
                break
            z = precond(r)
            rz_new = r @ z
            p *= rz_new / rz
            p += z
            rz = rz_new
        return x, it


def sparse_newton(
    data: SparseData,
    gamma: float,
    beta=None,
    *,
    theta0=None,
    sum_zero: bool = False,
    xtol: float | None = 1e-10,
    gtol: float | None = None,
    max_iter: int = 100,
):
    """Damped inexact Newton-CG on the sparse objective (see the module docstring).

    Stops when the max-norm of the step taken is at most ``xtol`` (the rule of
    :func:`dprank.mle.fit_penalized_mle`) or, with ``gtol``, when
    ``||grad||_inf <= gtol`` (the rule of :func:`dprank.weighted_mle.fit_weighted_mle`).

    Returns
    -------
    dict
        ``theta, converged, n_iter, step_norm, grad_norm`` (Euclidean norm of the
        gradient at the last iterate before the final step), ``grad_inf`` (at the
        returned point when ``gtol`` is used), ``cg_iter`` (total), ``fval`` and
        ``indefinite`` (the Newton system was not positive definite).
    """
    prob = _Problem(data, gamma, beta, sum_zero)
    n = data.n
    if prob.beta.shape != (n,):
        raise ValueError(f"perturbation b must have shape ({n},), got {prob.beta.shape}")
    if not np.all(np.isfinite(prob.beta)):
        raise ValueError("perturbation b must be finite")
    if not (np.isfinite(prob.gamma) and prob.gamma >= 0):
        raise ValueError(f"gamma must be finite and >= 0, got {gamma}")
    if prob.gamma == 0:
        if not sum_zero:
            raise ValueError(
                "gamma = 0 needs sum_zero=True: the objective is then translation invariant"
            )
        check_connected(n, data.a[data.cnt > 0], data.b[data.cnt > 0])
    theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=np.float64)
    if theta.shape != (n,):
        raise ValueError(f"theta0 must have shape ({n},), got {theta.shape}")
    if sum_zero:
        theta -= theta.mean()
    fval = None
    converged = indefinite = False
    taken = np.inf
    grad_norm = grad_inf = np.inf
    g0 = None
    n_iter = cg_total = 0
    grad, h = prob.grad_hess(theta)
    fval = prob.last_value
    cache = None
    while True:
        grad_norm = float(np.linalg.norm(grad))
        grad_inf = float(np.max(np.abs(grad))) if n else 0.0
        if gtol is not None and grad_inf <= gtol:
            converged = True
            break
        if n_iter >= max_iter:
            break
        n_iter += 1
        if g0 is None:
            g0 = max(grad_norm, 1e-300)
        rtol = max(min(0.1, np.sqrt(grad_norm / g0)), 1e-10)
        step, cg_it = prob.direction(grad, h, rtol)
        cg_total += cg_it
        if step is None:
            indefinite = True
            break
        spread = float(step.max() - step.min()) if n else 0.0
        if data.btl and xtol is not None and spread <= 1.0:
            t = 1.0
            theta = theta + step
            fval = None
        else:
            t_safe = 1.0 / spread if (data.btl and spread > 0) else 0.0
            if fval is None:
                fval = prob.value(theta)
            cache = None
            slope = float(grad @ step)
            t = 1.0
            while True:
                candidate = theta + t * step
                fnew, cache = prob.value_cached(candidate)
                if fnew <= fval + 1e-4 * t * slope or t <= t_safe or t < 1e-12:
                    break
                if abs(fnew - fval) <= 1e-14 * max(1.0, abs(fval)):
                    break
                t = max(0.5 * t, t_safe)
            theta, fval = candidate, fnew
        taken = t * float(np.max(np.abs(step))) if n else 0.0
        if xtol is not None and taken <= xtol:
            converged = True
            break
        grad, h = prob.grad_hess(theta, cache)
        if prob.last_value is not None:
            fval = prob.last_value
        cache = None
    if gtol is not None and not converged and not indefinite:
        grad, h = prob.grad_hess(theta)
        grad_inf = float(np.max(np.abs(grad)))
    return {
        "theta": theta,
        "converged": converged,
        "n_iter": n_iter,
        "step_norm": taken,
        "grad_norm": grad_norm,
        "grad_inf": grad_inf,
        "cg_iter": cg_total,
        "fval": prob.value(theta) if fval is None else fval,
        "indefinite": indefinite,
        "hess_weights": h,
    }
