"""The score equation of :mod:`dprank.intervals` and its solver.

``G(t)_i = sum_j N_ij F(t_i - t_j) + rho t_i = W~_i`` (step 1 of the construction in
:mod:`dprank.intervals`). For the Bradley-Terry-Luce model it is the gradient of the
library's objective (:mod:`dprank.objective`) with no outcomes for ``a``; for Thurstone's,
of the same objective under the probit moment loss
(:func:`dprank.objective.moment_link`); both solved by the shared sparse Newton-CG
(:func:`dprank.fit.sparse.sparse_newton`). Linear systems in the Hessian: dense up to
:data:`DENSE_MAX` items; above, the sparse solver's compiled preconditioned conjugate
gradients (:func:`dprank.objective.sparse_laplacian_solve`) where the pairs come sorted by
their first item, the shared numpy ones (:func:`dprank.base._lapack.pcg`) otherwise.
Private: the public names live in :mod:`dprank.intervals`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import scipy.special

from ..base._lapack import pcg
from ..data.models import Link

#: Largest number of items solved with dense matrices (above: conjugate gradients).
DENSE_MAX = 2000

#: Step tolerance of the shared Newton solver for the Bradley-Terry-Luce equation.
_XTOL = 1e-8


def pdf(link: Link, x):
    if link.name == "btl":
        s = scipy.special.expit(x)
        return s * (1.0 - s)
    return np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def cdf_pdf(link: Link, x):
    """``(F(x), f(x))`` with one evaluation of the logistic function for BTL."""
    if link.name == "btl":
        F = scipy.special.expit(x)
        return F, F * (1.0 - F)
    return link.cdf(x), np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def quantile(link: Link, p):
    """``F^-1(p)``: the logit for BTL, the probit for Thurstone's model."""
    return scipy.special.logit(p) if link.name == "btl" else scipy.special.ndtri(p)


@dataclass(frozen=True, eq=False)
class Equation:
    """``G(t)_i = sum_j N_ij F(t_i - t_j) + rho t_i`` on the pairs ``(a, b, N)``."""

    n: int
    a: np.ndarray
    b: np.ndarray
    N: np.ndarray
    link: Link
    rho: float

    @functools.cached_property
    def _sparse_data(self):
        """The pairs as :class:`dprank.fit.sparse.SparseData` with no outcomes (``w = 0``),
        under the link's moment loss (:func:`dprank.objective.moment_link`)."""
        from ..data.comparisons import PairStatistics
        from ..fit.sparse import SparseData
        from ..objective import moment_link

        ps = PairStatistics(self.n, self.a, self.b, self.N, np.zeros(self.N.size))
        return SparseData(ps, moment_link(self.link))

    def expected_wins(self, t):
        f = self.N * self.link.cdf(t[self.a] - t[self.b])
        return np.bincount(self.a, f, self.n) + np.bincount(self.b, self.N - f, self.n)

    def hessian_weights(self, t):
        return self.N * pdf(self.link, t[self.a] - t[self.b])

    def information_weights(self, t):
        """``N f^2 / (F (1 - F))`` per pair: the Fisher information (``N f`` for BTL)."""
        d = t[self.a] - t[self.b]
        f = pdf(self.link, d)
        F = self.link.cdf(d)
        return self.N * f * f / np.maximum(F * (1.0 - F), 1e-300)

    def solve_hessian(self, v, rhs, tol=1e-8, max_iter=500, x0=None):
        """``H x = rhs`` for ``H = Laplacian(v) + rho I`` (dense up to :data:`DENSE_MAX` items;
        above, conjugate gradients to a residual of ``tol |rhs|``: compiled where the pairs
        come sorted by their first item, :meth:`_solve_compiled`).

        ``x0``: a start for the conjugate gradients (above :data:`DENSE_MAX` items; they
        solve for ``x - x0`` to the same residual, ``tol`` of ``|rhs|``).
        """
        n, a, b = self.n, self.a, self.b
        if n <= DENSE_MAX:
            return np.linalg.solve(dense_laplacian(n, a, b, v, self.rho), rhs)
        diag = np.bincount(a, v, n) + np.bincount(b, v, n) + self.rho
        if self._rows is not None and self.rho > 0:
            x = self._solve_compiled(v, diag, rhs, tol, max_iter, x0)
            if x is not None:
                return x

        def matvec(x):
            return diag * x - np.bincount(a, v * x[b], n) - np.bincount(b, v * x[a], n)

        tol2 = (tol * float(np.linalg.norm(rhs))) ** 2
        if x0 is None:
            return pcg(matvec, lambda r: r / diag, rhs, tol2, max_iter)[0]
        x, _, _ = pcg(matvec, lambda r: r / diag, rhs - matvec(x0), tol2, max_iter)
        return x0 + x

    @functools.cached_property
    def _rows(self):
        """The pairs as :attr:`_sparse_data` holds them (in rows, sorted by ``a``) where that
        is this equation's own order (pair weights pass to the compiled loops as they are);
        else None."""
        sd = self._sparse_data
        if sd.a is self.a or (np.array_equal(sd.a, self.a) and np.array_equal(sd.b, self.b)):
            return sd
        return None

    def _solve_compiled(self, v, diag, rhs, tol, max_iter, x0):
        """:meth:`solve_hessian` above :data:`DENSE_MAX` items by the compiled conjugate
        gradients (:func:`dprank.objective.sparse_laplacian_solve`; the Hessian's product
        with ``x0`` by :func:`dprank.objective.sparse_laplacian_product`): the residual
        ``tol |rhs|`` of the same system. None where the iteration met a direction of
        non-positive curvature (rounding on a near-singular system)."""
        from ..objective import sparse_laplacian_product, sparse_laplacian_solve

        sd = self._rows
        v = np.ascontiguousarray(v, dtype=np.float64)
        rhs = np.asarray(rhs, dtype=np.float64)
        goal = tol * float(np.linalg.norm(rhs))
        r = rhs if x0 is None else rhs - sparse_laplacian_product(sd, v, diag, x0)
        size = float(np.linalg.norm(r))
        if not size > goal:  # x0 (or 0) already solves it to the tolerance
            return np.zeros(self.n) if x0 is None else np.array(x0, dtype=np.float64)
        x, _, positive = sparse_laplacian_solve(sd, v, diag, r, self.rho, goal / size, max_iter)
        if not positive:
            return None
        return x if x0 is None else x0 + x

    def solve(self, target, theta0=None, max_iter=200):
        """``G(t) = target``: the minimum of a convex function (``rho > 0``).

        The library's pair-list objective (:mod:`dprank.objective`) on the pairs with
        no outcomes for ``a`` (``w = 0``), ridge ``rho``, linear term
        ``beta_i = sum_{pairs (a, i)} N - target_i`` and the link's moment loss
        (:func:`dprank.objective.moment_link`: the likelihood's own for BTL, the
        antiderivative of ``Phi`` for Thurstone), minimised by the shared sparse
        Newton-CG (:func:`dprank.fit.sparse.sparse_newton`) to a step of ``1e-8``.
        """
        from ..fit.sparse import sparse_newton

        if not self.rho > 0:
            raise ValueError(f"the score equation needs a ridge rho > 0, got {self.rho}")
        beta = np.bincount(self.b, self.N, self.n) - np.asarray(target, dtype=np.float64)
        out = sparse_newton(
            self._sparse_data, self.rho, beta, theta0=theta0, xtol=_XTOL, max_iter=max_iter
        )
        return out["theta"]


def dense_laplacian(n, a, b, v, diag_add):
    H = np.zeros((n, n))
    np.add.at(H, (a, b), -v)
    np.add.at(H, (b, a), -v)
    H[np.diag_indices(n)] = np.bincount(a, v, n) + np.bincount(b, v, n) + diag_add
    return H
