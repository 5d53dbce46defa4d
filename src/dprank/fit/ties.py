"""Maximum likelihood with three outcomes: Davidson's and Rao and Kupper's ties models.

A comparison of ``a`` and ``b`` ends in a win of ``a``, a tie, or a win of ``b``.
With scores ``theta`` (``pi = exp(theta)``) and one tie parameter:

* **Davidson** (1970, JASA 65(329), 317-328), ``nu = exp(mu) > 0``::

      P(a wins) = pi_a / D,   P(tie) = nu sqrt(pi_a pi_b) / D,   P(b wins) = pi_b / D,
      D = pi_a + pi_b + nu sqrt(pi_a pi_b);

* **Rao and Kupper** (1967, JASA 62(317), 194-204), ``kappa = exp(mu) >= 1``::

      P(a wins) = pi_a / (pi_a + kappa pi_b),   P(b wins) = pi_b / (kappa pi_a + pi_b),
      P(tie) = (kappa^2 - 1) pi_a pi_b / ((pi_a + kappa pi_b)(kappa pi_a + pi_b)).

:func:`fit_ties_mle` minimises the negative log-likelihood of the counts ``W, L, T``
(wins of ``a``, wins of ``b``, ties) of every compared pair, plus the ridge
``(gamma / 2) ||theta||^2`` and a linear term ``b^T theta`` (the penalised,
perturbed objective of Paper A's eq. (2.2), :mod:`dprank.objective`), over
``(theta, mu)``: the loss and its derivatives are :class:`dprank.objective.TiesObjective`.

Solver
------
Damped Newton on ``(theta, mu)``, the step rules of :func:`dprank.fit.mle.fit_penalized_mle`
(Armijo backtracking; stop when the max-norm of the step taken is at most ``xtol``).
The Hessian is the graph Laplacian of the pairs' weights plus the ridge, bordered by
one row for ``mu``; each Newton system is solved by eliminating ``mu`` (Schur
complement): two solves with the Laplacian block, by Cholesky on the ``n x n``
matrix where the graph is small or dense, else by the compiled preconditioned
conjugate gradients of the sparse solver (:func:`dprank.objective.kernels`, the
loops of :mod:`dprank.fit.sparse`; ``O(pairs)`` per step, so 10^5 items and millions of
pairs fit). Inexact Newton on the sparse path with the forcing of :mod:`dprank.fit.sparse`.

Without any tie (``sum T <= 0``) the tie parameter's maximum likelihood is at the
boundary (Davidson: ``nu = 0``; Rao-Kupper: ``kappa = 1``) and both models reduce to
Bradley-Terry; the fit then keeps ``mu`` there and reports ``mu = -inf`` (Davidson)
or ``0`` (Rao-Kupper).

With ``gamma = 0`` the scores are identified up to a constant: the fit constrains
``sum(theta) = 0`` and needs a connected comparison graph; where the maximum
likelihood does not exist (an item that never loses, say) Newton does not converge
and the fit says so (``converged=False``, or :class:`dprank.fit.mle.ConvergenceError`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons, PairArrays, PairStatistics
from ..objective import TieModel, TiesObjective, get_tie_model, kernels
from .sparse import check_connected

__all__ = ["TieCounts", "TiesFit", "fit_ties_mle"]

#: The Laplacian block is solved densely (Cholesky) up to this many items ...
DENSE_MAX_N = 2000
#: ... where the graph's density (pairs over n(n-1)/2) is at least this, or n <= 64.
DENSE_MIN_DENSITY = 0.3
_DIRECT_MAX_N = 64
_CG_MAX_ITER = 2000
_SOLVERS = ("auto", "dense", "sparse")


@dataclass(frozen=True, eq=False)
class TieCounts(PairArrays):
    """Outcome counts of the compared pairs ``a < b`` (int64, sorted by ``a``, then ``b``).

    Attributes
    ----------
    W, L, T : (P,) float64 arrays
        Wins of ``a``, wins of ``b`` and ties (real numbers are allowed for the
        debiased counts of a local-DP release; Davidson's loss stays convex).
    """

    W: np.ndarray
    L: np.ndarray
    T: np.ndarray

    @classmethod
    def from_arrays(cls, n_items, a, b, W, L, T) -> TieCounts:
        """Counts of pairs ``(a, b)`` in any order and orientation, summed per pair ``a < b``."""
        n = _checks.count(n_items, "n_items", 1)
        a = np.asarray(a, dtype=np.int64)
        b = np.asarray(b, dtype=np.int64)
        W, L, T = (np.asarray(x, dtype=np.float64) for x in (W, L, T))
        m = a.size
        if any(x.shape != (m,) for x in (b, W, L, T)):
            raise ValueError("a, b, W, L and T must be 1-d arrays of one length")
        if m and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
            raise ValueError(f"pair indices must lie in 0..{n - 1}")
        if np.any(a == b):
            raise ValueError("a pair joins an item with itself")
        if not all(np.all(np.isfinite(x)) for x in (W, L, T)):
            raise ValueError("W, L and T must be finite")
        swap = a > b
        lo, hi = np.where(swap, b, a), np.where(swap, a, b)
        W, L = np.where(swap, L, W), np.where(swap, W, L)
        key = lo * n + hi
        uniq, inv = np.unique(key, return_inverse=True)
        sums = [np.bincount(inv, x, uniq.size) for x in (W, L, T)]
        return cls(n, uniq // n, uniq % n, *sums)

    @classmethod
    def from_pair_statistics(cls, stats: PairStatistics) -> TieCounts:
        """From pair statistics with ties: ``W = w - t/2``, ``L = n - w - t/2``, ``T = t``.

        Without ties (``stats.t`` None) every comparison was decided: ``T = 0``.
        """
        t = np.zeros_like(stats.n) if stats.t is None else np.asarray(stats.t, np.float64)
        W = stats.w - 0.5 * t
        L = stats.n - stats.w - 0.5 * t
        return cls(int(stats.n_items), stats.a.astype(np.int64), stats.b.astype(np.int64), W, L, t)

    @property
    def total(self) -> np.ndarray:
        """Comparisons per pair, ``W + L + T``."""
        return self.W + self.L + self.T

    def full_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(W, L, T)`` on every pair of ``triu_indices(n, 1)`` (zeros where never compared)."""
        n = self.n_items
        P = n * (n - 1) // 2
        # index of pair (a, b), a < b, in triu order
        idx = self.a * (2 * n - self.a - 1) // 2 + (self.b - self.a - 1)
        return tuple(np.bincount(idx, x, P) for x in (self.W, self.L, self.T))


@dataclass(frozen=True)
class TiesFit:
    """Result of :func:`fit_ties_mle`.

    Attributes
    ----------
    theta : (n,) numpy.ndarray
        The scores (log-strengths; sum zero when fitted without a ridge).
    mu : float
        The tie parameter on the log scale (Davidson ``log nu``, Rao-Kupper
        ``log kappa``); ``-inf``/``0`` where the data hold no tie.
    tie_parameter : float
        ``nu`` (Davidson) or ``kappa`` (Rao-Kupper).
    model : str
    converged : bool
    n_iter : int
    step_norm : float
        Max-norm of the last step taken.
    grad_norm : float
        Euclidean norm of the gradient in ``(theta, mu)`` before the last step.
    """

    theta: np.ndarray
    mu: float
    tie_parameter: float
    model: str
    converged: bool
    n_iter: int
    step_norm: float
    grad_norm: float


def _as_counts(data) -> TieCounts:
    if isinstance(data, TieCounts):
        return data
    if isinstance(data, Comparisons):
        return TieCounts.from_pair_statistics(data.pair_statistics())
    if isinstance(data, PairStatistics):
        return TieCounts.from_pair_statistics(data)
    raise TypeError(
        f"data must be a TieCounts, Comparisons or PairStatistics, got {type(data).__name__}"
    )


def _start_mu(model: TieModel, counts: TieCounts) -> float:
    """``mu`` at which the tie share at equal scores is the data's."""
    tau = float(counts.T.sum() / max(counts.total.sum(), 1e-300))
    tau = min(max(tau, 1e-6), 1 - 1e-6)
    if model.name == "davidson":  # P(tie | d = 0) = nu / (2 + nu)
        return math.log(2.0 * tau / (1.0 - tau))
    return 2.0 * math.atanh(tau)  # Rao-Kupper: P(tie | d = 0) = tanh(mu / 2)


class _Laplacian:
    """Solves ``(L(h) + gamma I + c 11^T) x = r`` for the pairs of a TieCounts."""

    def __init__(self, counts: TieCounts, gamma: float, sum_zero: bool, solver: str):
        n, P = counts.n_items, counts.n_pairs
        self.n, self.a, self.b, self.gamma = n, counts.a, counts.b, gamma
        self.c = 1.0 if sum_zero else 0.0
        if solver == "auto":
            density = P / max(1.0, n * (n - 1) / 2.0)
            dense = n <= _DIRECT_MAX_N or (n <= DENSE_MAX_N and density >= DENSE_MIN_DENSITY)
            solver = "dense" if dense else "sparse"
        self.dense = solver == "dense"
        if not self.dense:
            dtype = np.int32 if n < 2**31 - 1 else np.int64
            self.ptr = np.searchsorted(self.a, np.arange(n + 1)).astype(np.int64)
            self.bb = np.ascontiguousarray(self.b, dtype=dtype)
        else:
            self.flat_ab = self.a * n + self.b

    def solve(self, h, rhs_list, rtol: float):
        """Solutions for each right-hand side (None where the matrix is not positive)."""
        n = self.n
        diag = np.bincount(self.a, h, n) + np.bincount(self.b, h, n) + self.gamma
        if self.dense:
            import scipy.linalg

            A = np.bincount(self.flat_ab, h, n * n).reshape(n, n)
            A += A.T
            np.negative(A, out=A)
            A[np.diag_indices(n)] = diag
            if self.c:
                A += self.c
            rhs = np.column_stack(rhs_list)
            try:
                factor = scipy.linalg.cho_factor(A, overwrite_a=True, check_finite=False)
            except np.linalg.LinAlgError:
                return [None] * len(rhs_list)
            out = scipy.linalg.cho_solve(factor, rhs, check_finite=False)
            return [out[:, k] for k in range(out.shape[1])]
        ones_eig = self.gamma + self.c * n
        h = np.ascontiguousarray(h, dtype=np.float64)
        out = []
        for rhs in rhs_list:
            if not np.any(rhs):
                out.append(np.zeros(n))
                continue
            x, _, positive = kernels().pcg(
                self.ptr,
                self.bb,
                h,
                diag,
                np.ascontiguousarray(rhs, dtype=np.float64),
                self.c,
                ones_eig,
                float(rtol),
                0.0,
                _CG_MAX_ITER,
            )
            out.append(x if positive else None)
        return out


def fit_ties_mle(
    data,
    model: str | TieModel = "davidson",
    gamma: float = 0.0,
    b=None,
    *,
    theta0=None,
    mu0: float | None = None,
    sum_zero: bool | None = None,
    mu_ridge: float = 0.0,
    xtol: float = 1e-10,
    max_iter: int = 200,
    solver: str = "auto",
    raise_on_failure: bool = False,
) -> TiesFit:
    """Penalised maximum likelihood of a ties model (module docstring).

    Parameters
    ----------
    data : TieCounts, Comparisons or PairStatistics
        The outcome counts per pair (a :class:`~dprank.data.comparisons.Comparisons` with
        ties: its tie records counted as ``T``).
    model : {"davidson", "raokupper"} or TieModel
    gamma : float
        Ridge ``(gamma / 2) ||theta||^2`` (``>= 0``; ``0``: the maximum likelihood
        with ``sum(theta) = 0``).
    b : (n,) array_like, optional
        Linear term ``b^T theta`` (objective perturbation).
    theta0, mu0 : optional
        Starting point (default: ``theta = 0``, ``mu`` matching the tie share).
    sum_zero : bool, optional
        Constrain ``sum(theta) = 0`` (default: exactly when ``gamma = 0``).
    mu_ridge : float
        Ridge ``(mu_ridge / 2) mu^2`` on the tie parameter (default 0: its maximum
        likelihood; the private fits' weak prior keeps it finite where noisy ties exceed
        the comparisons).
    xtol : float
        Stop when the max-norm of the step taken is at most ``xtol``.
    max_iter : int
    solver : {"auto", "dense", "sparse"}
        How the Laplacian block is solved (module docstring); the same minimiser.
    raise_on_failure : bool
        Raise :class:`dprank.fit.mle.ConvergenceError` instead of returning ``converged=False``.

    Returns
    -------
    TiesFit
    """
    tie = get_tie_model(model)
    counts = _as_counts(data)
    gamma = _checks.non_negative(gamma, "gamma")
    _checks.flag(raise_on_failure, "raise_on_failure")
    if theta0 is not None:
        _checks.finite(theta0, "theta0")
    if mu0 is not None and not math.isfinite(_checks.real(mu0, "mu0")):
        raise ValueError(f"mu0 must be finite, got {mu0!r}")
    _checks.non_negative(xtol, "xtol")
    _checks.count(max_iter, "max_iter")
    if not isinstance(solver, str) or solver not in _SOLVERS:
        raise ValueError(f"solver must be one of {', '.join(_SOLVERS)}, got {solver!r}")
    sum_zero = gamma == 0 if sum_zero is None else _checks.flag(sum_zero, "sum_zero")
    if gamma == 0 and not sum_zero:
        raise ValueError("gamma = 0 needs sum_zero=True: the objective is translation invariant")
    n = counts.n_items
    if tie.name == "raokupper" and any(np.any(x < 0) for x in (counts.W, counts.L, counts.T)):
        raise ValueError("the Rao-Kupper fit needs non-negative counts (its loss is not convex)")
    if np.any(counts.total < 0):
        raise ValueError("a pair has a negative number of comparisons (W + L + T < 0)")
    beta = None if b is None else np.asarray(_checks.finite(b, "b"), dtype=np.float64)
    if beta is not None and beta.shape != (n,):
        raise ValueError(f"b must have shape ({n},), got {beta.shape}")
    if gamma == 0:
        used = counts.total > 0
        check_connected(n, counts.a[used], counts.b[used])
    obj = TiesObjective(
        n, counts.a, counts.b, counts.W, counts.L, counts.T, tie, gamma, beta, sum_zero,
        _checks.non_negative(mu_ridge, "mu_ridge"),
    )  # fmt: skip
    free_mu = float(counts.T.sum()) > 0
    if free_mu:
        mu = _start_mu(tie, counts) if mu0 is None else float(mu0)
    else:
        mu = -math.inf if tie.name == "davidson" else 0.0
    theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=np.float64)
    if theta.shape != (n,):
        raise ValueError(f"theta0 must have shape ({n},), got {theta.shape}")
    if sum_zero:
        theta -= theta.mean()
    system = _Laplacian(counts, gamma, sum_zero, solver)
    state = _newton(obj, system, theta, mu, free_mu, xtol, max_iter)
    theta, mu, converged, n_iter, taken, grad_norm = state
    if not converged and raise_on_failure:
        from .mle import ConvergenceError

        raise ConvergenceError(
            f"Newton did not converge in {max_iter} iterations (last step {taken:.3g} > xtol "
            f"{xtol:g}); the maximum likelihood may not exist (use a ridge gamma > 0)"
        )
    return TiesFit(
        theta=theta,
        mu=float(mu),
        tie_parameter=float(math.exp(min(mu, 700.0))) if math.isfinite(mu) else 0.0,
        model=tie.name,
        converged=converged,
        n_iter=n_iter,
        step_norm=taken,
        grad_norm=grad_norm,
    )


def _newton(obj: TiesObjective, system: _Laplacian, theta, mu, free_mu, xtol, max_iter):
    """Damped Newton on ``(theta, mu)`` (``mu`` held where ``free_mu`` is False)."""
    converged = False
    taken = grad_norm = math.inf
    g0 = None
    n_iter = 0
    fval, g_theta, g_mu, h, c, h_mumu = obj.derivatives(theta, mu)
    for it in range(1, max_iter + 1):
        n_iter = it
        g_mu = g_mu if free_mu else 0.0
        grad_norm = math.sqrt(float(g_theta @ g_theta) + g_mu * g_mu)
        g0 = g0 or max(grad_norm, 1e-300)
        rtol = max(min(0.1, math.sqrt(grad_norm / g0)), 1e-10)
        rhs = [-g_theta, c] if free_mu else [-g_theta]
        sols = system.solve(h, rhs, rtol)
        if any(s is None for s in sols):
            break  # numerically singular: the scores run off (no maximum likelihood)
        if free_mu:
            x, y = sols
            schur = h_mumu - float(c @ y)
            step_mu = (-g_mu - float(c @ x)) / schur if schur > 0 else 0.0
            step = x - y * step_mu
        else:
            step, step_mu = sols[0], 0.0
        if obj.sum_zero:
            step -= step.mean()
        slope = float(g_theta @ step) + g_mu * step_mu
        t = 1.0
        while True:
            cand_theta, cand_mu = theta + t * step, mu + t * step_mu
            fnew = obj.value(cand_theta, cand_mu)
            if fnew <= fval + 1e-4 * t * slope or t < 1e-10:
                break
            if math.isfinite(fnew) and abs(fnew - fval) <= 1e-14 * max(1.0, abs(fval)):
                break  # round-off level: at the minimum already
            t *= 0.5
        if not math.isfinite(fnew):
            break
        theta, mu = cand_theta, cand_mu
        taken = t * max(float(np.max(np.abs(step))) if step.size else 0.0, abs(step_mu))
        if taken <= xtol:
            converged = True
            break
        fval, g_theta, g_mu, h, c, h_mumu = obj.derivatives(theta, mu)
    return theta, mu, converged, n_iter, taken, grad_norm
