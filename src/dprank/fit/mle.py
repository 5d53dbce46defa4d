"""Perturbed, ridge-penalised maximum likelihood on win matrices (Algorithm 1).

The estimator of Paper A, Algorithm 1 / equation (2.2), is::

    argmin_theta  sum_{i != j} wins[i, j] * l(theta_i - theta_j)
                  + (gamma / 2) ||theta||^2 + b^T theta,          l = -log F,

with ``b = w`` the Laplace perturbation (``w ~ Laplace(lambda)``). The same
objective with a sum-to-zero constraint is the individual-DP estimator of
Proposition 3.1, and with ``b = 0`` the (penalised) MLE.

Solver
------
A damped Newton method on the sufficient statistics (the ``n x n`` win
matrix): each iteration costs ``O(n^2)`` whatever the number of comparisons.

* For the logistic link the pairwise probabilities are ``a_i / (a_i + a_j)``
  with ``a = exp(theta)``: no ``n^2`` exponentials.
* The Newton system ``H d = -g`` is solved by preconditioned conjugate
  gradients. ``H = L(V) + gamma I`` is a weighted graph Laplacian plus a ridge;
  the all-ones vector is an exact eigenvector (eigenvalue ``gamma``), so the
  preconditioner is Jacobi on the complement of ``1`` and exact on ``1``. For
  the well-conditioned problems of the papers CG needs a handful of
  ``O(n^2)`` matrix-vector products. Small problems (``n <= 64``) use a dense
  Cholesky solve instead.
* Step length without objective evaluations (logistic link): the logistic
  loss satisfies ``|l'''| <= l''``, so along a Newton direction ``d`` with
  spread ``R = max(d) - min(d)`` the step ``t = min(1, 1/R)`` provably
  decreases the objective (generalised self-concordance, Bach 2010). Other
  links use Armijo backtracking on the objective.
* Convergence: the max-norm of the (damped) Newton step falls below ``xtol``.

Pair-list path
--------------
On a win matrix whose comparison graph is far from complete the ``n^2`` cells
are mostly empty. ``solver="pairs"`` (:class:`dprank.objective.PairObjective`) evaluates the same
gradient and Hessian weights over the compared pairs only (one exponential per
item, a few vector operations per compared cell, row sums by
``numpy.add.reduceat``), keeps the weights as a CSR matrix for the same
preconditioned CG, solves each Newton system only as accurately as the
convergence needs (relative residual ``max((|g|/|g_0|)^2, 0.1 xtol gamma / |g|)``
within ``[1e-8, FORCING_MAX]``: the quadratic rate is kept, and the last steps
only have to tell whether they are below ``xtol``), and starts a cold fit at the
closed-form Jacobi step from zero where that lowers the objective (one Newton
iteration fewer). Same minimiser and stopping rule; the iterates differ from
the dense path's in the last bits. ``solver="auto"`` (the default) takes the
compared pairs for the logistic link, ``n > PAIRS_MIN_N = 64`` and a density
(compared pairs over ``n(n-1)/2``) below ``PAIRS_MAX_DENSITY = 0.7``: there, with
``gamma > 0``, the sparse Newton-CG of :mod:`dprank.fit.sparse` on those pairs (its
per-pair loops compiled: about 1.5x faster than the pair list at n = 300, p =
0.25), else this pair-list Newton (``solver="pairs"`` asks for it).
``solver="dense"`` always takes the ``n x n`` path: the Paper A workflow asks for
it, so its results stay bit-identical.

Sparse data
-----------
Given a :class:`dprank.data.comparisons.Comparisons` (or a
:class:`dprank.fit.sparse.SparseData`), the fit runs the sparse Newton-CG of
:mod:`dprank.fit.sparse` (cost ``O(observed pairs)`` per step, same step and
stopping rules) unless the comparison graph is dense enough that the dense
solver is faster: density (observed pairs over ``n(n-1)/2``) at least
``DENSE_MIN_DENSITY = 0.3`` and ``n <= DENSE_MAX_N = 4000``. The threshold
was measured on Erdos-Renyi graphs (n = 200, 700, 2000; p = 0.05 to 0.7;
logistic link, paper ridge): the sparse solver is faster below p = 0.2 and
slower from p = 0.4 (docs/sparse.md). ``solver`` overrides the rule
(``"sparse"``, ``"dense"`` or ``"pairs"``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..base._lapack import cholesky_factor, cholesky_solve, pcg
from ..base._lazy_scipy import scipy  # imported on first use (dprank rank never uses it)
from ..data.comparisons import Comparisons, PairStatistics
from ..data.models import BTL, Link
from ..objective import (
    DenseObjective,
    PairObjective,
    PairwiseData,
    batch_derivatives,
    batch_value,
    cached_cells,
    cells_of_pairs,
    cells_of_wins,
    compared_mask,
    objective_value,
    pair_density,
)
from .sparse import SparseData, check_connected, sparse_newton

__all__ = [
    "BatchFit",
    "ConvergenceError",
    "MLEFit",
    "PairwiseData",
    "fit_penalized_mle",
    "fit_penalized_mle_batch",
    "penalized_objective",
]

_DIRECT_MAX_N = 64
#: ``solver="auto"`` on a win matrix: the pair-list objective above this many items ...
PAIRS_MIN_N = 64
#: ... and below this density (compared pairs over n(n-1)/2; measured, docs/performance.md)
PAIRS_MAX_DENSITY = 0.7
_SOLVERS = ("auto", "dense", "pairs", "sparse")
#: Dense fast path for sparse input: density at least this (measured crossover, docs/sparse.md)
DENSE_MIN_DENSITY = 0.3
#: ... and at most this many items (memory of the n x n arrays)
DENSE_MAX_N = 4000
_CG_MAX_ITER = 200
FORCING_MAX = 1e-2


class ConvergenceError(RuntimeError):
    """Raised when Newton's method does not reach the requested tolerance."""


@dataclass(frozen=True)
class MLEFit:
    """Result of :func:`fit_penalized_mle`.

    Attributes
    ----------
    theta : numpy.ndarray
        The minimiser.
    converged : bool
        Whether the last Newton step was below ``xtol`` (max-norm).
    n_iter : int
        Newton iterations taken.
    step_norm : float
        Max-norm of the last Newton step actually taken.
    grad_norm : float
        Euclidean norm of the (projected) gradient at the last iterate before
        the final step (an upper bound on the final gradient up to O(step^2)).
    """

    theta: np.ndarray
    converged: bool
    n_iter: int
    step_norm: float
    grad_norm: float


def _newton_direction(prob, grad, v):
    """Solve ``(L(V) + gamma I + c 11^T) d = -grad``."""
    n = prob.n
    diag = v.sum(axis=1) + prob.gamma
    c = prob.ones_weight
    if n <= _DIRECT_MAX_N:
        hess = np.negative(v)
        hess[np.diag_indices(n)] = diag
        if c:
            hess += c
        return cholesky_solve(cholesky_factor(hess, overwrite_a=True), -grad), 0

    ones_eig = prob.gamma + c * n  # H 1 = (gamma + c n) 1 exactly
    inv_diag = 1.0 / diag

    def hess_mv(x):
        y = diag * x - v @ x
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
    x, it, done = pcg(hess_mv, precond, rhs, (1e-8 * np.linalg.norm(rhs)) ** 2, _CG_MAX_ITER)
    if done:
        return x, it
    # ill-conditioned: fall back to a direct solve
    hess = np.negative(v)
    hess[np.diag_indices(n)] = diag
    if c:
        hess += c
    return scipy.linalg.solve(hess, rhs, assume_a="pos", check_finite=False), it


def _require_items(wins) -> None:
    """Reject a win matrix without items (public functions call it first; any array-like,
    scipy.sparse included, is read through its ``shape``)."""
    if isinstance(wins, (PairwiseData, SparseData)):
        return
    shape = tuple(getattr(wins, "shape", None) or np.shape(wins))
    if len(shape) < 2 or shape[-1] == 0:
        raise ValueError(f"wins must be an (n, n) matrix with n >= 1, got shape {shape}")


def penalized_objective(
    theta: np.ndarray,
    wins: np.ndarray,
    gamma: float,
    b: np.ndarray | None = None,
    link: Link = BTL,
) -> float:
    """Value of the objective (2.2) at ``theta`` (for checks and benchmarks)."""
    _require_items(wins)
    return objective_value(theta, wins, gamma, b, link)


def _dense_start(prob, data, theta0, sum_zero: bool) -> np.ndarray:
    """The starting point, checked (and the graph's connectivity where ``gamma = 0``)."""
    if prob.gamma == 0:
        ia, ib = np.nonzero(np.triu(data.counts, 1))
        check_connected(prob.n, ia, ib)
    return _start(prob.n, theta0, sum_zero)


def _start(n: int, theta0, sum_zero: bool) -> np.ndarray:
    """The starting point (zero unless ``theta0``), checked."""
    theta = np.zeros(n) if theta0 is None else np.array(theta0, dtype=np.float64)
    if theta.shape != (n,):
        raise ValueError(f"theta0 must have shape ({n},), got {theta.shape}")
    if sum_zero:
        theta -= theta.mean()
    return theta


def _backtrack(prob, theta, step, grad, fval, spread: float):
    """Armijo backtracking along ``step``: ``t``, ``theta + t step`` and the objective there."""
    # for BTL never below 1/spread, which provably decreases
    t_safe = 1.0 / spread if prob.btl else 0.0
    fval = prob.value(theta) if fval is None or prob.btl else fval
    slope = float(grad @ step)
    t = 1.0
    while True:
        candidate = theta + t * step
        fnew = prob.value(candidate)
        if fnew <= fval + 1e-4 * t * slope or t <= t_safe or t < 1e-10:
            break
        if abs(fnew - fval) <= 1e-14 * max(1.0, abs(fval)):
            break  # round-off level: the step is at the minimum already
        t = max(0.5 * t, t_safe)
    return t, candidate, fnew


def fit_penalized_mle(
    wins: np.ndarray | PairwiseData,
    gamma: float,
    b: np.ndarray | None = None,
    *,
    link: Link = BTL,
    theta0: np.ndarray | None = None,
    sum_zero: bool = False,
    xtol: float = 1e-10,
    max_iter: int = 100,
    raise_on_failure: bool = False,
    solver: str = "auto",
) -> MLEFit:
    """Solve the perturbed, penalised MLE (Paper A, Algorithm 1, eq. (2.2)).

    Parameters
    ----------
    wins : (n, n) array_like, PairwiseData, Comparisons or SparseData
        ``wins[i, j]`` = number of comparisons ``i`` won against ``j``; pass a
        :class:`PairwiseData` to reuse its statistics across several fits. An
        edge list (:class:`dprank.data.comparisons.Comparisons`) is fitted by the
        sparse solver (or the dense one above the measured density threshold);
        with ``gamma = 0`` its graph must be connected (a
        :class:`dprank.fit.sparse.DisconnectedGraphError` names the components' sizes).
    gamma : float
        Ridge coefficient. Edge DP: ``gamma = c0 sqrt(n p log n)``
        (Proposition 2.2; ``c0 = 2`` in the authors' code). Must be positive
        unless ``sum_zero``.
    b : (n,) array_like, optional
        Linear perturbation ``w`` of (2.2); ``None`` means no perturbation.
    link : Link
        Comparison model (default BTL); ignored when ``wins`` is a PairwiseData.
    theta0 : (n,) array_like, optional
        Starting point (a warm start, e.g. the fit at another epsilon).
    sum_zero : bool
        Constrain ``sum(theta) = 0`` (individual DP, Proposition 3.1).
    xtol : float
        Stop once the max-norm of the Newton step is at most ``xtol``. Newton
        converges quadratically, so the returned point is then accurate well
        below ``xtol``.
    max_iter : int
        Maximum number of Newton iterations.
    raise_on_failure : bool
        Raise :class:`ConvergenceError` instead of returning ``converged=False``.
    solver : {"auto", "dense", "pairs", "sparse"}
        ``"dense"``: Newton on the ``n x n`` statistics; ``"pairs"``: Newton over the
        compared pairs (logistic link only); ``"sparse"``: the sparse Newton-CG of
        :mod:`dprank.fit.sparse` (edge lists only); ``"auto"``: the fastest for the data's
        size, density and link (see the module docstring). All reach the same
        minimiser; only ``"dense"`` reproduces the papers' results bit for bit.

    Returns
    -------
    MLEFit

    Raises
    ------
    ValueError
        A bad argument (named in the message), or ``gamma = 0`` on data whose
        unpenalised MLE does not exist (an item that wins or loses all its
        comparisons: the Newton system becomes singular).
    """
    _checks.link(link)
    _checks.flag(sum_zero, "sum_zero")
    _checks.flag(raise_on_failure, "raise_on_failure")
    _checks.solver_options(xtol, "xtol", max_iter, theta0)
    if solver not in _SOLVERS:
        raise ValueError(f"solver must be one of {', '.join(_SOLVERS)}, got {solver!r}")
    if isinstance(wins, (Comparisons, SparseData)):
        sdata = wins if isinstance(wins, SparseData) else _sparse_data(wins, link)
        solver = _edge_list_solver(sdata, solver)
        if solver == "sparse":
            res = sparse_newton(
                sdata, gamma, b, theta0=theta0, sum_zero=sum_zero, xtol=xtol, max_iter=max_iter
            )
            return _finish(res, max_iter, xtol, raise_on_failure)
        link = sdata.link
        wins = _dense_wins(sdata) if solver == "dense" else sdata
    elif solver == "sparse":
        raise ValueError("solver='sparse' needs an edge list (Comparisons or SparseData)")
    _require_items(wins)
    route = _objective(wins, gamma, b, link, theta0, sum_zero, solver)
    if isinstance(route, SparseData):  # a sparse win matrix: the compiled sparse Newton-CG
        res = sparse_newton(
            route, gamma, b, theta0=theta0, sum_zero=sum_zero, xtol=xtol, max_iter=max_iter
        )
        return _finish(res, max_iter, xtol, raise_on_failure)
    prob, theta = route
    return _newton(prob, theta, xtol, max_iter, raise_on_failure)


def _newton(prob, theta, xtol, max_iter, raise_on_failure) -> MLEFit:
    """Damped Newton on ``prob`` (a DenseObjective or a PairObjective) from ``theta``."""
    fval = None if prob.btl else prob.value(theta)
    converged = False
    taken = np.inf
    grad_norm = np.inf
    n_iter = 0
    pairs = isinstance(prob, PairObjective)
    grad_norm0 = None
    for it in range(1, max_iter + 1):
        n_iter = it
        grad, v = prob.gradient_and_weights(theta)
        grad_norm = float(np.linalg.norm(grad))
        try:
            if pairs and grad_norm <= xtol * prob.gamma:
                # H >= gamma I: the Newton step is at most |g| / gamma <= xtol; its
                # Jacobi approximation (no solve) ends the iteration
                step = prob.jacobi_step(grad)
            elif pairs:
                grad_norm0 = grad_norm0 or grad_norm
                eta = _forcing(grad_norm, grad_norm0, xtol, prob.gamma)
                step, _ = prob.newton_direction(grad, v, eta)
            else:
                step, _ = _newton_direction(prob, grad, v)
        except np.linalg.LinAlgError:
            raise _no_mle_error() from None
        spread = float(step.max() - step.min())
        if prob.btl and spread <= 1.0:
            t = 1.0  # guaranteed decrease, no objective evaluation needed
            theta = theta + step
        else:
            t, theta, fval = _backtrack(prob, theta, step, grad, fval, spread)
        taken = t * float(np.max(np.abs(step)))
        if taken <= xtol:
            converged = True
            break
    if not converged and raise_on_failure:
        raise ConvergenceError(
            f"Newton did not converge in {max_iter} iterations "
            f"(last step {taken:.3g} > xtol {xtol:g})"
        )
    return MLEFit(
        theta=theta, converged=converged, n_iter=n_iter, step_norm=taken, grad_norm=grad_norm
    )


def _forcing(grad_norm: float, grad_norm0: float, xtol: float, gamma: float) -> float:
    """Relative CG tolerance ``eta`` of an inexact Newton step of the pairs path.

    The larger (looser) of ``(|g| / |g_0|)^2`` (Eisenstat and Walker's second choice,
    which keeps the quadratic rate; at least ``1e-8``) and ``0.1 xtol gamma / |g|``,
    at most ``FORCING_MAX``. The second makes the error of the step at most
    ``eta |g| / lambda_min(H) <= 0.1 xtol`` (``H >= gamma I``): the last steps need
    only tell whether they are below ``xtol``.
    """
    eta = max(1e-8, (grad_norm / grad_norm0) ** 2)
    if grad_norm > 0:
        eta = max(eta, 0.1 * xtol * gamma / grad_norm)
    return min(FORCING_MAX, eta)


def _objective(wins, gamma, b, link, theta0, sum_zero: bool, solver: str):
    """The objective of a win matrix (or PairwiseData) on the chosen path, and the start.

    Or, where ``auto`` finds the matrix sparse and ``gamma > 0``, its compared pairs
    as a :class:`SparseData`.
    """
    if isinstance(wins, SparseData):  # an edge list routed to the pairs (_edge_list_solver)
        _pairs_link(wins.link)
        cells = cells_of_pairs(wins.n, wins.a, wins.b, wins.cnt, wins.w)
        return _pair_objective(cells, gamma, b, sum_zero, theta0)
    if isinstance(wins, PairwiseData):
        data, link, w = wins, wins.link, wins.wins
    else:
        data, w = None, _checks.win_matrix(wins)
    n, cells = w.shape[0], None
    if solver == "auto":
        solver = "dense"
        if link is BTL and n > PAIRS_MIN_N:
            mask = compared_mask(w, None if data is None else data.counts)
            if pair_density(n, mask) < PAIRS_MAX_DENSITY:
                solver = "pairs"
                if _checks.ridge_and_perturbation(gamma, b, n, sum_zero)[0] > 0:
                    return _matrix_pairs(data, w, mask)
                cells = np.flatnonzero(mask)  # compared_cells
    if solver == "dense":
        data = PairwiseData(w, link) if data is None else data
        prob = DenseObjective(data, gamma, b, sum_zero)  # objective (2.2), dprank.objective
        return prob, _dense_start(prob, data, theta0, sum_zero)
    _pairs_link(link)
    cells = cached_cells(data) if data is not None else cells_of_wins(w, cells)
    return _pair_objective(cells, gamma, b, sum_zero, theta0)


def _matrix_pairs(data, w, mask) -> SparseData:
    """The compared pairs ``a < b`` of a win matrix as a SparseData (cached on a PairwiseData).

    ``mask``: :func:`compared_mask` of ``w``. Only the upper triangle's cells are
    gathered (arrays of the pairs' length, none of both orders).
    """
    sd = getattr(data, "_dprank_sparse", None)
    if sd is None:
        n = w.shape[0]
        cells = np.flatnonzero(np.triu(mask, 1))  # row-major: the pairs sorted by (a, b)
        i = cells // n
        j = cells - i * n
        flat = w.reshape(-1)
        won = flat.take(cells).astype(np.float64)
        c = won + flat.take(j * n + i)  # as cells_of_wins: w[a, b] + w[b, a]
        dtype = np.int32 if n < 2**31 - 1 else np.int64
        sd = SparseData(PairStatistics(n, i.astype(dtype), j.astype(dtype), c, won), BTL)
        if data is not None:
            data._dprank_sparse = sd
    return sd


def _pairs_link(link: Link) -> None:
    if link is not BTL:
        raise ValueError(f"solver='pairs' needs the logistic link (BTL), got {link.name}")


def _pair_objective(cells, gamma, b, sum_zero, theta0):
    prob = PairObjective(cells, gamma, b, sum_zero)  # objective (2.2) over the pairs
    if prob.gamma == 0:
        check_connected(prob.n, prob.i, prob.j)
    if theta0 is None:
        return prob, prob.cold_start()
    return prob, _start(prob.n, theta0, sum_zero)


def _edge_list_solver(sdata: SparseData, solver: str) -> str:
    """The path for an edge list: ``solver`` itself unless ``auto`` (see the module docstring)."""
    if solver != "auto":
        return solver
    if sdata.density >= DENSE_MIN_DENSITY and sdata.n <= DENSE_MAX_N:
        return "dense"
    return "sparse"


def _no_mle_error() -> ValueError:
    return ValueError(
        "the Newton system became singular: with gamma = 0 the MLE of these wins does not "
        "exist (an item wins or loses all its comparisons, so theta runs off to infinity); "
        "use gamma > 0"
    )


def _sparse_data(comparisons: Comparisons, link: Link) -> SparseData:
    """The SparseData of ``comparisons`` for ``link``, cached on the comparisons."""
    key = ("sparse_data", link.name)
    sd = comparisons._cache.get(key)
    if sd is None:
        sd = SparseData(comparisons, link)
        comparisons._cache[key] = sd
    return sd


def _dense_wins(sdata: SparseData) -> np.ndarray:
    wins = np.zeros((sdata.n, sdata.n))
    wins[sdata.a, sdata.b] = sdata.w
    wins[sdata.b, sdata.a] = sdata.cnt - sdata.w
    return wins


def _finish(res, max_iter, xtol, raise_on_failure) -> MLEFit:
    if not res["converged"] and raise_on_failure:
        raise ConvergenceError(
            f"Newton did not converge in {max_iter} iterations "
            f"(last step {res['step_norm']:.3g} > xtol {xtol:g})"
        )
    return MLEFit(
        theta=res["theta"],
        converged=res["converged"],
        n_iter=res["n_iter"],
        step_norm=res["step_norm"],
        grad_norm=res["grad_norm"],
    )


@dataclass(frozen=True)
class BatchFit:
    """Result of :func:`fit_penalized_mle_batch`: one row per problem.

    Attributes
    ----------
    theta : (R, n) numpy.ndarray
    converged : (R,) bool array
    n_iter : (R,) int array
        Newton iterations each problem took.
    """

    theta: np.ndarray
    converged: np.ndarray
    n_iter: np.ndarray


def _batch_problem(wins, b, gamma, sum_zero: bool):
    """:func:`fit_penalized_mle_batch`'s ``wins``, ``b`` and ``gamma``, checked and broadcast."""
    w = np.asarray(_checks.array(wins, "wins"), dtype=np.float64)
    if b is not None:
        b = np.asarray(_checks.finite(b, "b"), dtype=np.float64)
    if w.ndim == 2:
        if b is None or b.ndim != 2:
            raise ValueError("a single win matrix needs b of shape (R, n) to set the batch size")
        w = np.broadcast_to(w, (b.shape[0], *w.shape))
    if w.ndim != 3 or w.shape[1] != w.shape[2]:
        raise ValueError(f"wins must have shape (R, n, n), got {w.shape}")
    n_rep, n = w.shape[0], w.shape[1]
    if np.any(w < 0) or not np.all(np.isfinite(w)):
        raise ValueError("wins must hold finite, non-negative counts")
    b = np.zeros((n_rep, n)) if b is None else b
    if b.shape != (n_rep, n):
        raise ValueError(f"perturbation b must have shape ({n_rep}, {n}), got {b.shape}")
    gam = _checks.array(gamma, "gamma", ndim=(0, 1))
    if gam.ndim == 1 and gam.shape != (n_rep,):
        raise ValueError(f"gamma must be one number or one per problem ({n_rep},), got {gam.shape}")
    gam = np.broadcast_to(np.asarray(gam, dtype=np.float64), (n_rep,)).copy()
    if np.any(gam < 0) or not np.all(np.isfinite(gam)):
        raise ValueError("gamma must be finite and >= 0")
    if np.any(gam == 0) and not sum_zero:
        raise ValueError(
            "gamma = 0 needs sum_zero=True: the objective is then translation invariant"
        )
    return w, b, gam


def fit_penalized_mle_batch(
    wins: np.ndarray,
    gamma: float | np.ndarray,
    b: np.ndarray | None = None,
    *,
    link: Link = BTL,
    sum_zero: bool = True,
    xtol: float = 1e-10,
    max_iter: int = 100,
) -> BatchFit:
    """Solve many small perturbed, penalised MLE problems at once.

    Minimises, for every ``r``, the objective of :func:`fit_penalized_mle`
    (Paper A eq. (2.2); with ``sum_zero`` the individual-DP estimator of
    Proposition 3.1 / Algorithm 3's MLE step)::

        sum_{i != j} wins[r, i, j] l(theta_i - theta_j)
            + (gamma_r / 2) ||theta||^2 + b[r]^T theta,   sum(theta) = 0,

    by damped Newton steps taken for all problems together: gradients and
    Hessians are ``(R, n, n)`` arrays and the Newton systems are solved by one
    batched Cholesky-free ``numpy.linalg.solve``. Meant for small ``n`` (the
    individual-DP and real-data problems have ``n <= 32``) and many
    replicates; each problem stops being updated once its Newton step is below
    ``xtol`` (max-norm). Step lengths: the logistic link takes
    ``min(1, 1 / spread(step))`` (as in :func:`fit_penalized_mle`), other links
    backtrack until the objective decreases.

    Parameters
    ----------
    wins : (R, n, n) or (n, n) array_like
        Win counts; a single matrix is shared by all problems (then ``R`` is
        taken from ``b``).
    gamma : float or (R,) array_like
        Ridge coefficients (``0`` allowed with ``sum_zero``).
    b : (R, n) array_like, optional
        Linear perturbations; ``None`` means zero.
    link : Link
    sum_zero : bool
        Constrain ``sum(theta) = 0``; required when some ``gamma`` is 0.
    xtol, max_iter : float, int
        Convergence tolerance on the Newton step and iteration cap.

    Returns
    -------
    BatchFit
    """
    _require_items(wins)
    _checks.link(link)
    _checks.flag(sum_zero, "sum_zero")
    _checks.non_negative(xtol, "xtol")
    _checks.count(max_iter, "max_iter")
    w, b, gam = _batch_problem(wins, b, gamma, sum_zero)
    n_rep, n = w.shape[0], w.shape[1]
    btl = link is BTL
    theta = np.zeros((n_rep, n))
    active = np.ones(n_rep, dtype=bool)
    converged = np.zeros(n_rep, dtype=bool)
    n_iter = np.zeros(n_rep, dtype=np.int64)
    eye = np.eye(n)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        th, wa, ga, ba = theta[idx], w[idx], gam[idx], b[idx]
        pair_grad, v = batch_derivatives(link, wa, th)
        grad = pair_grad + ga[:, None] * th + ba
        # the ridge on the diagonal through ``eye *`` (not dprank.objective.batch_hessian's
        # indexed add): the two differ in the sign of zero off-diagonal entries
        hess = -v
        hess += eye * (v.sum(axis=2) + ga[:, None])[:, :, None]
        if sum_zero:
            grad -= grad.mean(axis=1, keepdims=True)
            hess += 1.0
        try:
            step = np.linalg.solve(hess, -grad[:, :, None])[:, :, 0]
        except np.linalg.LinAlgError:
            raise _no_mle_error() from None
        spread = step.max(axis=1) - step.min(axis=1)
        if btl:
            t = np.minimum(1.0, 1.0 / np.maximum(spread, 1e-300))
        else:
            t = np.ones(idx.size)
            f0 = batch_value(link, wa, th, ga, ba)
            for _ in range(40):
                f1 = batch_value(link, wa, th + t[:, None] * step, ga, ba)
                bad = f1 > f0 + 1e-12 * np.abs(f0)
                if not bad.any():
                    break
                t[bad] *= 0.5
        theta[idx] = th + t[:, None] * step
        n_iter[idx] += 1
        done = t * np.abs(step).max(axis=1) <= xtol
        converged[idx[done]] = True
        active[idx[done]] = False
    return BatchFit(theta=theta, converged=converged, n_iter=n_iter)
