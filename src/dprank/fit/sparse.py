"""Sparse Newton-CG for ridge-penalised pairwise likelihoods (cost ``O(pairs)`` per step).

Every estimator of the library minimises, over ``theta in R^n``, an objective
of the form (Paper A, eq. (2.2); Paper B2, eq. (5))::

    f(theta) = sum_{pairs a<b} [ w_ab l(d_ab) + (n_ab - w_ab) l(-d_ab) ]
               + (gamma / 2) ||theta||^2 + beta^T theta,     d_ab = theta_a - theta_b,

with ``l = -log F`` the comparison loss, ``n_ab`` the (weighted) number of
comparisons of the pair and ``w_ab`` the (weighted) outcomes for ``a``
(:meth:`dprank.data.comparisons.Comparisons.pair_statistics`). For 0/1 outcomes
``w_ab = wins[a, b]`` and ``n_ab - w_ab = wins[b, a]``, so ``f`` is exactly
the dense objective of :mod:`dprank.fit.mle`; Paper B2's weighted objective is
``f`` with ``w = S``, ``n = N`` and ``gamma = 2 lambda``.

Solver
------
* Pairs are aggregated once per data set. One compiled pass over them
  (:func:`dprank.objective.kernels`: the C loops of :mod:`dprank.base._compiled`,
  built with the package, IEEE arithmetic in the order written) gives the gradient,
  the Hessian's pair weights ``h = w l''(d) + (n - w) l''(-d)`` and its
  diagonal; an accepted line-search point reuses them. From ``theta = 0`` the
  first pass needs no exponentials (every ``F(0) = 1/2``). The loops walk the
  pairs in rows (:meth:`SparseData.rows`, CSR form).
* Objective values are computed only when a line search needs them. For the
  logistic link the objective is convex, so ``f(c) <= f(theta) + t
  grad(c).step``: a slope at the candidate ``c`` of at most ``1e-4`` times
  the initial slope proves the Armijo condition without the value.
* The Hessian is ``L(h) + gamma I`` (plus ``11^T`` under the sum-to-zero
  constraint), ``L(h)`` the graph Laplacian: ``H x = D x - U x - U^T x`` with
  ``D`` the diagonal and ``U[a, b] = h_ab``, one compiled loop over the rows
  (int32 partners: the loop is memory-bound), no matrix is formed.
* Newton systems are solved by preconditioned conjugate gradients (one
  compiled loop, ``pcg`` of the compiled loops) with the
  preconditioner of the dense solver: Jacobi on the complement of the
  all-ones vector, exact on it (``1`` is an exact eigenvector). Inexact
  Newton: CG stops at the relative residual ``eta_k = min(0.1, sqrt(|g_k| /
  |g_0|))`` (floored at ``1e-10``), a forcing sequence that keeps local
  superlinear convergence (Eisenstat and Walker 1996). On the step rule CG
  also stops once an update changes the step by at most ``xtol / 100``, so
  the last Newton step, which only confirms convergence, is cheap.
* Step lengths and the stopping rule are those of :func:`dprank.fit.mle.fit_penalized_mle`
  (logistic link: ``t = min(1, 1/spread(step))`` or Armijo never below it;
  other links: Armijo) or those of :func:`dprank.fit.weighted_mle.fit_weighted_mle`
  (stop when ``||grad||_inf <= gtol``).
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons, PairStatistics
from ..data.models import BTL, Link
from ..objective import (
    SparseObjective,
    kernels,
    sparse_accumulate,
    sparse_accumulate_at_zero,
    sparse_pair_value,
)

__all__ = ["DisconnectedGraphError", "SparseData", "sparse_newton"]

_CG_MAX_ITER = 2000


class DisconnectedGraphError(ValueError):
    """The unpenalised fit was asked for on a disconnected comparison graph."""


def check_connected(n_items: int, a: np.ndarray, b: np.ndarray) -> None:
    """Raise :class:`DisconnectedGraphError` naming the component sizes if not connected."""
    from ..data.comparisons import connected_components

    k, lab = connected_components(n_items, a, b)
    if k > 1:
        sizes = np.sort(np.bincount(lab))[::-1]
        shown = ", ".join(str(int(s)) for s in sizes[:10]) + (", ..." if k > 10 else "")
        raise DisconnectedGraphError(
            f"the comparison graph has {k} connected components (sizes {shown}): the "
            "unpenalised fit (gamma = 0) is not identified; use a ridge gamma > 0 "
            "or fit each component separately"
        )


def _unsorted_or_self_pair(ps: PairStatistics) -> bool:
    """Whether the pairs of ``ps`` are out of order by ``a`` or join an item with itself.

    The reader's pair sums (int32 counts, :class:`dprank.data.comparisons.PairSums`) and the
    statistics of checked records one a pair come sorted by ``(a, b)`` with ``a < b`` by
    construction (``sorted_by_construction``): nothing to check there.
    """
    if ps.sorted_by_construction:
        return False
    return bool(np.any(ps.a[1:] < ps.a[:-1]) or np.any(ps.a == ps.b))


class SparseData:
    """Aggregated pairs of one data set, with int32 copies of the indices for the loops.

    Parameters
    ----------
    data : Comparisons or PairStatistics
    link : Link
    """

    def __init__(self, data, link: Link = BTL):
        ps = data.pair_statistics() if isinstance(data, Comparisons) else data
        if not isinstance(ps, PairStatistics):
            raise TypeError(
                f"data must be a Comparisons or PairStatistics, got {type(data).__name__}"
            )
        _checks.link(link)
        self.n = int(ps.n_items)
        self.a, self.b = ps.a, ps.b
        # the counts and wins as the statistics keep them: float64, or int32 (whole numbers
        # of the reader's pair sums), which the compiled loops read as they are
        cnt, w = ps.stored_counts()
        if cnt.dtype != np.int32 or w.dtype != np.int32:
            cnt = np.ascontiguousarray(cnt, dtype=np.float64)
            w = np.ascontiguousarray(w, dtype=np.float64)
        if cnt.size and not ps.sorted_by_construction:  # else positive and finite already
            # min and max are NaN if any entry is NaN: no boolean temporaries (int32 counts
            # are finite: their least is all there is to check)
            lo = float(cnt.min())
            if cnt.dtype != np.int32 and not all(
                np.isfinite([lo, float(cnt.max()), float(w.min()), float(w.max())])
            ):
                raise ValueError("data: pair counts and outcomes must be finite")
            if lo < 0:
                raise ValueError("data: pair counts must be non-negative")
        if self.a.size and _unsorted_or_self_pair(ps):
            # the compiled loops walk the pairs in rows (sorted by a), none of an item with itself
            if np.any(self.a == self.b):
                raise ValueError("data: a pair joins an item with itself")
            order = np.argsort(self.a, kind="stable")
            self.a, self.b = self.a[order], self.b[order]
            cnt, w = cnt[order], w[order]
        self._stored = (cnt, w)
        # whole-number counts: their total is the statistics' own (summed once, or the rows
        # the pair sums counted), the same number in any order
        self._whole_stats = ps if cnt.dtype == np.int32 else None
        # room for the logistic fit's pair weights whose pages are already in memory (the
        # reader's pair sums hand it over once): fresh pages would cost the system's page
        # faults, about as much as a pass over the pairs
        spare = ps.take_spare() if link is BTL else None
        self._spare = spare if spare is not None and spare.shape == (self.a.size,) else None
        self._float = None
        self.link = link
        self.btl = link is BTL
        self.n_pairs = int(self.a.size)
        self._idx = None

    @property
    def cnt(self) -> np.ndarray:
        """The pairs' counts, float64 (:meth:`counts` gives them as kept)."""
        return self._as_float()[0]

    @property
    def w(self) -> np.ndarray:
        """The pairs' wins of ``a``, float64 (:meth:`counts` gives them as kept)."""
        return self._as_float()[1]

    def _as_float(self) -> tuple[np.ndarray, np.ndarray]:
        if self._float is None:
            cnt, w = self._stored
            self._float = (cnt.astype(np.float64, copy=False), w.astype(np.float64, copy=False))
        return self._float

    def weights_room(self) -> np.ndarray:
        """A float64 array of one entry per pair for the logistic fit's pair weights: the
        reader's spare buffer the first time (its pages already in memory), then fresh."""
        room, self._spare = self._spare, None
        return np.empty(self.n_pairs) if room is None else room

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(cnt, w)`` as kept: float64, or both int32 (whole numbers below 2^31, from
        :class:`dprank.data.comparisons.PairSums`) for the compiled loops, which read
        them as the same doubles at half the memory."""
        return self._stored

    def count_total(self) -> float:
        """``sum(cnt)``: the total count of comparisons."""
        if self._whole_stats is not None:
            return self._whole_stats.count_total()
        return float(self._stored[0].sum())

    @property
    def density(self) -> float:
        """Observed pairs over ``n (n - 1) / 2``."""
        return self.n_pairs / max(1.0, self.n * (self.n - 1) / 2.0)

    def indices(self) -> tuple[np.ndarray, np.ndarray]:
        """Pair indices ``(a, b)`` (int32 below 2^31 items)."""
        dtype = np.int32 if self.n < 2**31 - 1 else np.int64
        return (
            np.ascontiguousarray(self.a, dtype=dtype),
            np.ascontiguousarray(self.b, dtype=dtype),
        )

    def rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The pairs in rows for the compiled loops: ``(ptr, b)``, built once.

        Those of item ``a`` are ``ptr[a]:ptr[a + 1]`` (CSR form; the pairs are
        sorted by ``a``), ``b`` int32 below 2^31 items.
        """
        if self._idx is None:
            dtype = np.int32 if self.n < 2**31 - 1 else np.int64
            # the pairs are sorted by a: each row starts where a first reaches it (no
            # bincount, which would cast a pair-length copy of a to int64)
            if self.a.dtype in (np.int32, np.int64):  # one pass over a (the compiled loops')
                ptr = kernels().row_starts(self.n, self.a)
            else:
                ptr = np.searchsorted(self.a, np.arange(self.n + 1, dtype=self.a.dtype))
                ptr = ptr.astype(np.int64)
            self._idx = (ptr, np.ascontiguousarray(self.b, dtype=dtype))
        return self._idx

    # objective pieces (dprank.objective) ----------------------------------------
    def diff(self, theta):
        return theta[self.a] - theta[self.b]

    def pair_value(self, theta) -> float:
        """The pairs' loss at ``theta`` (:func:`dprank.objective.sparse_pair_value`)."""
        return sparse_pair_value(self, theta)

    def accumulate(self, theta, grad, diag):
        """Add the pairs' gradient and Hessian diagonal to ``grad``, ``diag``; return ``h``.

        See :func:`dprank.objective.sparse_accumulate`.
        """
        return sparse_accumulate(self, theta, grad, diag)

    def accumulate_at_zero(self, grad, diag):
        """:meth:`accumulate` at ``theta = 0``, logistic link, with the value."""
        return sparse_accumulate_at_zero(self, grad, diag)


class _Problem(SparseObjective):
    """The objective (:class:`dprank.objective.SparseObjective`) and its Newton direction.

    One fit's problem: its logistic pair weights are written into one array, reused by
    every evaluation (:func:`sparse_newton` holds one set of weights at a time: a fresh
    array each time would have its pages faulted in and zeroed again, a pair-length
    array per evaluation).
    """

    _weights = None

    def _weights_out(self):
        if not self.data.btl:
            return None
        if self._weights is None:
            self._weights = self.data.weights_room()
        return self._weights

    def direction(self, grad, hess, rtol, atol_update=0.0):
        """Approximately solve ``(L(h) + gamma I + c 11^T) d = -grad`` by PCG.

        Stops at relative residual ``rtol`` or once a CG update changes the
        step by at most ``atol_update`` in max-norm.
        """
        diag, h = hess
        ones_eig = self.gamma + self.c * self.n
        if not ones_eig > 0:
            raise ValueError("singular Hessian: gamma = 0 without the sum-to-zero constraint")
        if self.n == 0:
            return np.zeros(0), 0
        ptr, b = self.data.rows()
        rhs = np.negative(grad, out=grad)  # -grad in place, no item-sized copy: undone below
        try:
            x, it, positive = kernels().pcg(
                ptr, b, h, diag, rhs, self.c, ones_eig, float(rtol), float(atol_update),
                _CG_MAX_ITER,
            )  # fmt: skip
        finally:
            np.negative(grad, out=grad)  # a sign flip each way: grad's own bits again
        return (x if positive else None), int(it)


def _newton_setup(data, gamma, beta, theta0, sum_zero, xtol, gtol, max_iter):
    """Check :func:`sparse_newton`'s arguments by name; its problem and starting point."""
    if not isinstance(data, SparseData):
        raise TypeError(f"data must be a SparseData, got {type(data).__name__}")
    _checks.real(gamma, "gamma")
    if beta is not None:
        _checks.array(beta, "beta (the perturbation b)")
    _checks.flag(sum_zero, "sum_zero")
    for name, tol in (("xtol", xtol), ("gtol", gtol)):
        if tol is not None:
            _checks.non_negative(tol, name)
    _checks.count(max_iter, "max_iter")
    if theta0 is not None:
        _checks.finite(theta0, "theta0")
    prob = _Problem(data, gamma, beta, sum_zero)
    n = data.n
    if prob.beta.shape != (n,):
        raise ValueError(f"perturbation b (beta) must have shape ({n},), got {prob.beta.shape}")
    if not np.all(np.isfinite(prob.beta)):
        raise ValueError("perturbation b (beta) must be finite")
    if not (np.isfinite(prob.gamma) and prob.gamma >= 0):
        raise ValueError(f"gamma must be finite and >= 0, got {gamma}")
    if prob.gamma == 0:
        if not sum_zero:
            raise ValueError(
                "gamma = 0 needs sum_zero=True: the objective is then translation invariant"
            )
        compared = data.counts()[0] > 0  # as kept (int32 or float64): no float copy
        check_connected(n, data.a[compared], data.b[compared])
    theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=np.float64)
    if theta.shape != (n,):
        raise ValueError(f"theta0 must have shape ({n},), got {theta.shape}")
    if sum_zero:
        theta -= theta.mean()
    return prob, theta


def _line_search(prob, theta, step, grad, fval, spread, btl):
    """Backtracking (Armijo) search along ``step`` from ``theta``.

    Returns ``t``, ``theta + t step``, the objective there (None where a slope proved
    Armijo) and, for the logistic link, the derivatives there (else None).
    """
    t_safe = 1.0 / spread if (btl and spread > 0) else 0.0
    slope = float(grad @ step)
    t = 1.0
    fresh = None
    while True:
        candidate = theta + t * step
        if btl:
            # Derivatives first (reused if accepted). The logistic objective
            # is convex (counts >= 0), so f(c) <= f(theta) + t grad(c).step:
            # a slope at c still <= 1e-4 slope proves Armijo, with no value.
            grad_c, hess_c, _ = prob.evaluate(candidate)
            fresh = (grad_c, hess_c)
            if float(grad_c @ step) <= 1e-4 * slope:
                fnew = None
                break
        if fval is None:
            fval = prob.value(theta)
        fnew = prob.value(candidate)
        if fnew <= fval + 1e-4 * t * slope or t <= t_safe or t < 1e-12:
            break
        if abs(fnew - fval) <= 1e-14 * max(1.0, abs(fval)):
            break
        t = max(0.5 * t, t_safe)
    return t, candidate, fnew, fresh


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
    :func:`dprank.fit.mle.fit_penalized_mle`) or, with ``gtol``, when
    ``||grad||_inf <= gtol`` (the rule of :func:`dprank.fit.weighted_mle.fit_weighted_mle`).

    Returns
    -------
    dict
        ``theta, converged, n_iter, step_norm, grad_norm`` (Euclidean norm of the
        gradient at the last iterate before the final step), ``grad_inf`` (at the
        returned point when ``gtol`` is used), ``cg_iter`` (total), ``fval`` (the
        objective at ``theta``; with ``gtol`` always, else None where no line
        search needed it), ``indefinite`` (the Newton system was not positive
        definite) and ``hess_weights`` (the Laplacian's pair weights; None for the
        logistic link, whose fit frees them once the direction is found).
    """
    prob, theta = _newton_setup(data, gamma, beta, theta0, sum_zero, xtol, gtol, max_iter)
    n = data.n
    converged = indefinite = False
    taken = np.inf
    grad_norm = grad_inf = np.inf
    g0 = None
    n_iter = cg_total = 0
    # CG updates below 1% of xtol cannot move the step across the stopping
    # rule: the last Newton step, far below xtol once the convergence is
    # quadratic, then takes one or two CG iterations instead of a solve to
    # the forcing tolerance.
    atol_update = 0.01 * xtol if xtol is not None else 0.0
    grad, hess, fval = prob.evaluate(theta, at_zero=data.btl and not np.any(theta))
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
        step, cg_it = prob.direction(grad, hess, rtol, atol_update)
        cg_total += cg_it
        # logistic link: the weights were for this direction only (the next evaluation
        # writes its own over them)
        hess = None if data.btl else hess
        if step is None:
            indefinite = True
            break
        spread = float(step.max() - step.min()) if n else 0.0
        fresh = None
        if data.btl and xtol is not None and spread <= 1.0:
            t = 1.0
            theta = theta + step
            fval = None
        else:
            t, theta, fval, fresh = _line_search(prob, theta, step, grad, fval, spread, data.btl)
        taken = t * float(np.max(np.abs(step))) if n else 0.0
        if xtol is not None and taken <= xtol:
            converged = True
            break
        if fresh is not None:
            grad, hess = fresh
        else:
            grad, hess, _ = prob.evaluate(theta)
    if gtol is not None and not converged and not indefinite:
        grad, hess, _ = prob.evaluate(theta)
        grad_inf = float(np.max(np.abs(grad)))
    if fval is None and gtol is not None:
        fval = prob.value(theta)
    return {
        "theta": theta,
        "converged": converged,
        "n_iter": n_iter,
        "step_norm": taken,
        "grad_norm": grad_norm,
        "grad_inf": grad_inf,
        "cg_iter": cg_total,
        "fval": fval,
        "indefinite": indefinite,
        "hess_weights": None if hess is None else hess[1],
    }
