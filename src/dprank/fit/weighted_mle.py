"""Weighted, ridge-penalised MLE on private surrogate comparisons (Paper B2, eq. (5)).

B2's estimator minimises, over ``theta in R^m``,

    L_lambda(theta) = - sum_l sum_{i<j} a_ij^(l) { z_ij^(l) log F(d_ij)
                                  + (w_l - z_ij^(l)) log(1 - F(d_ij)) } + lambda ||theta||^2,

``d_ij = theta_i - theta_j``. It depends on the data only through the per-pair
sufficient statistics (docs/papers/paper-b.md#s1-3)

    S_ij = sum_l a_ij^(l) w_l z~_ij^(l),       N_ij = sum_l a_ij^(l) w_l,

(built by :mod:`dprank.privacy.ldp`), so that with ``l(x) = -log F(x)`` and the
symmetry ``1 - F(x) = F(-x)``

    L_lambda(theta) = sum_{i<j} [S_ij l(d_ij) + (N_ij - S_ij) l(-d_ij)]
                      + lambda ||theta||^2 + b^T theta,

where the optional linear term ``b`` serves NoisyObj (objective perturbation).
``S, N`` are ``(P,)`` arrays over the pairs in ``numpy.triu_indices(m, 1)``
order. One objective evaluation costs ``O(m^2)`` whatever ``L``. The objective,
its gradient and Hessian are :class:`dprank.objective.TriuObjective`, whose ridge
is written ``(gamma / 2) ||theta||^2`` with ``gamma = 2 lambda``
(:func:`dprank.objective.ridge_from_lambda`).

Solver
------
* BTL: ``S l(d) + (N-S) l(-d) = N log(1 + e^d) - S d`` is convex for any real
  ``S`` (``N >= 0``), with Hessian weights ``N F(1-F)`` independent of ``S``;
  damped Newton (Cholesky of the ``m x m`` Hessian, Armijo backtracking) from
  ``theta = 0`` converges in a handful of iterations.
* Other links (TM): the debiased ``z~`` can be negative or exceed ``w_l``, so
  ``S`` may lie outside ``[0, N]`` and the objective may be non-convex (B2
  section 4.1.2, Lemma 4), even unbounded below. Damped Newton is used while
  the Hessian is positive definite; at the first iterate where it is not, the
  fit continues from there with scipy's ``trust-exact`` trust-region method
  (which handles indefinite Hessians) and, if that fails, with L-BFGS-B from
  ``theta = 0``. The result records which path was taken and whether the
  gradient tolerance (``||grad||_inf <= gtol``, default ``1e-8``, docs/papers/paper-b.md#a3) was
  met; non-convergence is never silent (``converged=False``, and
  ``diverged=True`` when the iterates ran past ``theta_max``).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..base._checks import binary
from ..base._lapack import cholesky_factor, cholesky_solve
from ..base._lazy_scipy import scipy  # imported on first use (dprank rank never uses it)
from ..data.comparisons import Comparisons, PairStatistics
from ..data.models import BTL, Link
from ..objective import TriuObjective, lambda_from_ridge, ridge_from_lambda
from ..privacy.ldp import add_sufficient_statistics
from .mle import DENSE_MAX_N, DENSE_MIN_DENSITY
from .sparse import SparseData, sparse_newton

__all__ = [
    "WeightedFit",
    "classic_rr_plugin_statistics",
    "default_lambda",
    "fit_weighted_mle",
    "hessian_min_nonzero_eigenvalue",
    "laplace_plugin_statistics",
    "noisy_obj_calibration",
    "noisy_obj_fit",
    "weighted_objective",
    "weighted_objective_gradient",
]


@dataclass(frozen=True)
class WeightedFit:
    """Result of :func:`fit_weighted_mle`.

    Attributes
    ----------
    theta : (m,) numpy.ndarray
        The (local) minimiser found.
    converged : bool
        ``||grad||_inf <= gtol`` at ``theta``.
    n_iter : int
        Iterations taken, over all methods used.
    method : str
        Path taken: ``"newton"``, ``"newton>trust-exact"`` or
        ``"newton>trust-exact>lbfgs"``.
    grad_norm : float
        ``||grad||_inf`` at ``theta``.
    objective : float
        ``L_lambda(theta)``.
    local_min : bool
        The Hessian of the objective at ``theta`` is positive definite (always
        true for BTL), so ``theta`` is a strict local minimum when converged.
    diverged : bool
        Not converged, and the iterates left ``||theta||_inf <= theta_max``
        (the objective looks unbounded below: possible for TM when debiased
        win totals are negative, e.g. small ``eps`` and few users).
    """

    theta: np.ndarray
    converged: bool
    n_iter: int
    method: str
    grad_norm: float
    objective: float
    local_min: bool
    diverged: bool = False


def _objective(S, N, m, lam, link, b) -> TriuObjective:
    """Objective (5) on sufficient statistics (:class:`dprank.objective.TriuObjective`),
    after checking the arguments; ``lambda ||theta||^2`` is the ridge ``gamma = 2 lambda``."""
    S = np.asarray(_checks.array(S, "S"), dtype=np.float64)
    N = np.asarray(_checks.array(N, "N"), dtype=np.float64)
    m = _checks.count(m, "m", 1)
    _checks.link(link)
    P = m * (m - 1) // 2
    if S.shape != (P,) or N.shape != (P,):
        raise ValueError(f"S and N must have shape ({P},) for m = {m}, got {S.shape}, {N.shape}")
    if not (np.all(np.isfinite(S)) and np.all(np.isfinite(N))):
        raise ValueError("S and N must be finite")
    if np.any(N < 0):
        raise ValueError("N must be non-negative (observation weights)")
    lam = _checks.real(lam, "lam")
    if not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lam (lambda) must be positive and finite, got {lam}")
    b = np.zeros(m) if b is None else np.asarray(_checks.finite(b, "b"), np.float64)
    if b.shape != (m,):
        raise ValueError(f"b must have shape ({m},), got {b.shape}")
    return TriuObjective(S, N, m, ridge_from_lambda(lam), link, b)


def _theta_and_pairs(theta, S) -> np.ndarray:
    """``theta`` as float64 after checking it is finite and has one entry per item of ``S``."""
    theta = np.asarray(_checks.finite(theta, "theta", ndim=1), dtype=np.float64)
    P = theta.size * (theta.size - 1) // 2
    if np.shape(S) != (P,):
        raise ValueError(
            f"theta has {theta.size} items, so S and N must have shape ({P},), "
            f"got S of shape {np.shape(S)}"
        )
    return theta


def weighted_objective(theta, S, N, lam: float, link: Link = BTL, b=None) -> float:
    """Value of B2 objective (5) (plus ``b^T theta``) on sufficient statistics."""
    theta = _theta_and_pairs(theta, S)
    return _objective(S, N, theta.size, lam, link, b).value(theta)


def weighted_objective_gradient(theta, S, N, lam: float, link: Link = BTL, b=None) -> np.ndarray:
    """Gradient of B2 objective (5) (plus ``b``) at ``theta``.

    Per pair, ``d/dd`` is ``N F(d) - S`` for BTL and
    ``-S phi/Phi(d) + (N - S) phi(d)/Phi(-d)`` for TM (docs/papers/paper-b.md#s1-3).
    """
    theta = _theta_and_pairs(theta, S)
    return _objective(S, N, theta.size, lam, link, b).gradient(theta)


def _cholesky_ok(H) -> bool:
    try:
        cholesky_factor(H)
    except scipy.linalg.LinAlgError:
        return False
    return True


def _fallback(obj, theta, theta0, gtol, fallback_max_iter, theta_max, n_iter, method):
    """scipy trust-exact from the Newton iterate, then L-BFGS-B from the start."""

    ran_away = []

    def stop(intermediate_result):
        # the objective may be unbounded below (TM): stop once theta runs away
        if not np.max(np.abs(intermediate_result.x)) <= theta_max:
            ran_away.append(True)
            raise StopIteration

    method += ">trust-exact"
    res = scipy.optimize.minimize(
        obj.value,
        theta,
        jac=obj.gradient,
        hess=lambda x: obj.grad_hess(x)[1],
        method="trust-exact",
        options={"gtol": gtol, "maxiter": fallback_max_iter},
        callback=stop,
    )
    n_iter += int(res.nit)
    theta = res.x
    grad = obj.gradient(theta)
    if not np.max(np.abs(grad)) <= gtol or np.max(np.abs(theta)) > theta_max:
        method += ">lbfgs"
        res = scipy.optimize.minimize(
            obj.value,
            np.zeros(obj.m) if theta0 is None else np.array(theta0, dtype=np.float64),
            jac=obj.gradient,
            method="L-BFGS-B",
            options={
                "gtol": gtol,
                "ftol": 1e-15,
                "maxiter": fallback_max_iter,
                "maxcor": 20,
            },
            callback=stop,
        )
        n_iter += int(res.nit)
        # prefer a converged L-BFGS point; otherwise keep the trust-region one if bounded
        lb_ok = np.max(np.abs(res.x)) <= theta_max and np.max(np.abs(obj.gradient(res.x))) <= gtol
        if lb_ok or not np.max(np.abs(theta)) <= theta_max:
            theta = res.x
    fval = obj.value(theta)
    grad, H = obj.grad_hess(theta)
    return theta, grad, H, fval, n_iter, method, bool(ran_away)


def _armijo(obj, theta, step, grad, fval):
    """Armijo backtracking along ``step``: the new point and the objective there."""
    slope = float(grad @ step)
    t = 1.0
    while True:
        cand = theta + t * step
        fnew = obj.value(cand)
        if fnew <= fval + 1e-4 * t * slope:
            break
        if abs(fnew - fval) <= 1e-14 * max(1.0, abs(fval)) or t < 1e-12:
            break  # round-off level: accept (the gradient test decides)
        t *= 0.5
    return cand, fnew


def _weighted_fit(theta, grad, H, fval, n_iter, method, ran_away, gtol, theta_max):
    """The :class:`WeightedFit` of the last iterate: convergence, divergence, local minimum."""
    out_of_bounds = bool(not np.all(np.isfinite(theta)) or np.max(np.abs(theta)) > theta_max)
    grad_norm = float(np.max(np.abs(grad)))
    converged = bool(grad_norm <= gtol and not out_of_bounds)
    diverged = out_of_bounds or (ran_away and not converged)
    local_min = bool(not diverged and _cholesky_ok(H))
    return WeightedFit(
        theta=theta,
        converged=converged,
        n_iter=n_iter,
        method=method,
        grad_norm=grad_norm,
        objective=float(fval),
        local_min=local_min,
        diverged=diverged,
    )


def fit_weighted_mle(
    S,
    N,
    m: int,
    lam: float,
    link: Link = BTL,
    *,
    b=None,
    theta0=None,
    gtol: float = 1e-8,
    max_iter: int = 100,
    fallback_max_iter: int = 500,
    theta_max: float = 1e3,
) -> WeightedFit:
    """Minimise B2 objective (5) on per-pair sufficient statistics (docs/papers/paper-b.md#s1-3).

    Parameters
    ----------
    S, N : (P,) array_like
        ``S_ij = sum_l a w_l z_ij`` and ``N_ij = sum_l a w_l`` over the pairs in
        ``triu_indices(m, 1)`` order (:mod:`dprank.privacy.ldp`). ``N >= 0``; ``S`` is
        any real number (debiased releases). Sparse data: pass a
        :class:`dprank.data.comparisons.Comparisons` of released records as ``S``
        (outcome ``y`` = the plug-in value ``z`` for the first item, ``count`` =
        the user weight ``w_l``; any plug-in: ADRR, debiased or classic RR,
        Laplace) and ``N = None``; then ``S``, ``N`` are its pair statistics
        and the fit runs the sparse Newton-CG of :mod:`dprank.fit.sparse`
        (``method = "newton-cg"``) below the measured density threshold of
        :mod:`dprank.fit.mle`, the dense solver above it or where the TM objective
        is not convex.
    m : int
        Number of items.
    lam : float
        Ridge coefficient ``lambda > 0`` (:func:`default_lambda`).
    link : Link
        ``BTL`` or ``THURSTONE`` (any :class:`dprank.data.models.Link`).
    b : (m,) array_like, optional
        Linear term ``b^T theta`` added to the objective (NoisyObj); with
        ``b = None`` the minimiser satisfies ``1^T theta = 0`` (B2 Lemma 3).
    theta0 : (m,) array_like, optional
        Start (default 0, docs/papers/paper-b.md#a3).
    gtol : float
        Convergence: ``||grad||_inf <= gtol`` (docs/papers/paper-b.md#a3: 1e-8).
    max_iter : int
        Newton iterations.
    fallback_max_iter : int
        Iterations of each scipy fallback (non-convex links only).
    theta_max : float
        The fit stops and reports ``diverged`` once ``||theta||_inf`` exceeds it.

    Returns
    -------
    WeightedFit
        Check ``converged`` (and ``local_min`` for TM); failures are reported,
        not raised.
    """
    _checks.count(m, "m", 1)
    _checks.link(link)
    _checks.solver_options(gtol, "gtol", max_iter, theta0)
    _checks.count(fallback_max_iter, "fallback_max_iter")
    _checks.positive(theta_max, "theta_max")
    if isinstance(S, (Comparisons, PairStatistics)):
        if N is not None:
            raise ValueError("pass N = None with a Comparisons (N is its pair counts)")
        ps = S.pair_statistics() if isinstance(S, Comparisons) else S
        if int(m) != ps.n_items:
            raise ValueError(f"m = {m} but the comparisons hold {ps.n_items} items")
        sdata = SparseData(ps, link)
        dense = sdata.density >= DENSE_MIN_DENSITY and sdata.n <= DENSE_MAX_N
        if not dense:
            fit = _fit_weighted_sparse(sdata, lam, b, theta0, gtol, max_iter)
            if fit is not None:
                return fit
        if sdata.n > DENSE_MAX_N:
            raise ValueError(
                f"the objective is not convex here and m = {sdata.n} is too large for the "
                "dense trust-region fallback"
            )
        S, N = _triu_statistics(sdata)
    obj = _objective(S, N, m, lam, link, b)
    theta = np.zeros(obj.m) if theta0 is None else np.array(theta0, dtype=np.float64)
    if theta.shape != (obj.m,):
        raise ValueError(f"theta0 must have shape ({obj.m},), got {theta.shape}")
    fval = obj.value(theta)
    method = "newton"
    n_iter = 0
    indefinite = ran_away = False
    grad, H = obj.grad_hess(theta)
    while np.max(np.abs(grad)) > gtol and n_iter < max_iter:
        try:
            factor = cholesky_factor(H)
        except scipy.linalg.LinAlgError:
            indefinite = True
            break
        step = cholesky_solve(factor, -grad)
        theta, fval = _armijo(obj, theta, step, grad, fval)
        n_iter += 1
        grad, H = obj.grad_hess(theta)
        if np.max(np.abs(theta)) > theta_max:
            break

    if indefinite and np.max(np.abs(theta)) <= theta_max:
        # far from the data the TM terms may overflow: report, do not warn
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            theta, grad, H, fval, n_iter, method, ran_away = _fallback(
                obj, theta, theta0, gtol, fallback_max_iter, theta_max, n_iter, method
            )

    return _weighted_fit(theta, grad, H, fval, n_iter, method, ran_away, gtol, theta_max)


def _triu_statistics(sdata: SparseData) -> tuple[np.ndarray, np.ndarray]:
    """``(S, N)`` in ``triu_indices(m, 1)`` order from aggregated pairs."""
    m = sdata.n
    pos = sdata.a * (2 * m - sdata.a - 1) // 2 + (sdata.b - sdata.a - 1)
    S, N = np.zeros(m * (m - 1) // 2), np.zeros(m * (m - 1) // 2)
    S[pos], N[pos] = sdata.w, sdata.cnt
    return S, N


def _fit_weighted_sparse(sdata, lam, b, theta0, gtol, max_iter) -> WeightedFit | None:
    """Sparse Newton-CG (:mod:`dprank.fit.sparse`) with ``gamma = 2 lambda``; None if indefinite.

    ``gamma`` is :func:`dprank.objective.ridge_from_lambda` (the one ridge convention).
    """
    lam = float(lam)
    if not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lambda must be positive and finite, got {lam}")
    res = sparse_newton(
        sdata, ridge_from_lambda(lam), b, theta0=theta0, xtol=None, gtol=gtol, max_iter=max_iter
    )
    if res["indefinite"]:
        return None
    return WeightedFit(
        theta=res["theta"],
        converged=res["converged"],
        n_iter=res["n_iter"],
        method="newton-cg",
        grad_norm=res["grad_inf"],
        objective=float(res["fval"]),
        local_min=bool(sdata.btl or np.all(res["hess_weights"] >= 0)),
        diverged=False,
    )


def default_lambda(L: int, B: float, c: float = 1.0) -> float:
    """Ridge ``lambda = c / (L B(eps))`` (B2 Theorem 1; docs/papers/paper-b.md#a1: ``c = 1``).

    ``B`` is :func:`dprank.privacy.ldp.privacy_constant` (1 without privacy).
    """
    _checks.count(L, "L", 1)
    _checks.positive_finite(B, "B")
    _checks.positive_finite(c, "c")
    return float(c) / (float(L) * float(B))


# ---------------------------------------------------------------------------
# baselines (docs/papers/paper-b.md#s1-4)


def classic_rr_plugin_statistics(y_tilde, a, L: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(S, N)`` of the classic-RR plug-in: raw ``y~`` for ``z``, unweighted ``w_l = 1/L``.

    Inconsistent (shrunk toward 0; B2 Lemma 1). ``L`` is the total number of
    users (default: the rows of ``y_tilde``; pass it when given one chunk).
    Fit with the same ``lambda`` as ADRR.
    """
    return _plugin(y_tilde, a, L, "y_tilde")


def laplace_plugin_statistics(y_laplace, a, L: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(S, N)`` of the Laplace plug-in: ``y + Laplace(1/eps_l)`` for ``z``, ``w_l = 1/L``.

    Unweighted, as checked against B2 Table 10 (docs/papers/paper-b.md#s1-4, A11).
    """
    return _plugin(y_laplace, a, L, "y_laplace")


def _plugin(values, a, L, name):
    values = np.atleast_2d(_checks.array(values, name, ndim=(1, 2), min_size=1))
    if name == "y_tilde":
        binary(values, name)
    elif values.dtype.kind == "f" and not np.isfinite(values).all():
        raise ValueError(f"{name} must be finite (it holds NaN or inf)")
    if np.shape(a) != values.shape and np.shape(np.atleast_2d(a)) != values.shape:
        raise ValueError(
            f"{name} and a must have the same shape, got {values.shape} and {np.shape(a)}"
        )
    if L is not None:
        L = _checks.count(L, "L", 1)
        if L < values.shape[0]:
            raise ValueError(
                f"L = {L} is the number of all users: at least the {values.shape[0]} rows of {name}"
            )
    L = values.shape[0] if L is None else L
    S, N = np.zeros(values.shape[1]), np.zeros(values.shape[1])
    add_sufficient_statistics(S, N, values, a, 1.0 / L)
    return S, N


# ---------------------------------------------------------------------------
# NoisyObj (objective perturbation; central DP on the raw comparisons)


def noisy_obj_calibration(
    eps: float, delta: float = 1e-6, zeta: float = math.sqrt(2.0), beta: float = 0.5
) -> tuple[float, float]:
    """``(gamma, sigma)`` of the Gaussian objective perturbation (docs/papers/paper-b.md#a10).

    ASSUMPTION (not from B2): Kifer-Smith-Thakurta (2012)
    calibration for losses with rank-one Hessians, per-comparison gradient
    norm ``zeta = sqrt(2)`` and Hessian bound ``beta = 1/2``:
    ``gamma = 2 beta / eps = 1/eps`` and
    ``sigma^2 = zeta^2 (8 log(2/delta) + 4 eps) / eps^2``.
    """
    _checks.positive_finite(eps, "eps")
    _checks.probability(delta, "delta", low_open=True, high_open=True)
    _checks.positive_finite(zeta, "zeta")
    _checks.positive_finite(beta, "beta")
    gamma = 2.0 * beta / eps
    sigma = zeta * math.sqrt(8.0 * math.log(2.0 / delta) + 4.0 * eps) / eps
    return gamma, sigma


def noisy_obj_fit(
    wins,
    n_obs,
    m: int,
    eps,
    rng: np.random.Generator,
    delta: float = 1e-6,
    *,
    zeta: float = math.sqrt(2.0),
    beta: float = 0.5,
    gtol: float = 1e-8,
    max_iter: int = 100,
) -> WeightedFit:
    """NoisyObj baseline (Cai, Wang & Zhang 2023) with assumed constants.

    Estimator (docs/papers/paper-b.md#s1-4 [default]; BTL only, as in B2 Table 10)::

        theta~ = argmin sum_{l, i<j} a_ij l_BTL(theta; y_ij) + (gamma/2)||theta||^2 + w^T theta,
        w ~ N(0, sigma^2 I_m),                then  theta~ <- theta~ - mean(theta~).

    ASSUMPTION: B2 gives neither the noise scale, nor ``gamma``, nor the loss
    normalisation; the constants are the stated assumption of docs/papers/paper-b.md#a10
    (:func:`noisy_obj_calibration`: KST-2012 Gaussian objective perturbation,
    ``zeta = sqrt(2)``, ``beta = 1/2``, ``gamma = 1/eps``), with the loss an
    unnormalised sum over the raw comparisons. Centring is post-processing.

    Parameters
    ----------
    wins, n_obs : (P,) array_like
        Raw per-pair counts ``sum_l a y`` and ``sum_l a`` (``w_l = 1``; e.g.
        ``LDPStatistics.raw`` or :func:`dprank.privacy.ldp.sufficient_statistics` with
        weight 1).
    m : int
    eps : float or array_like
        Budget; an array of per-user budgets uses ``min(eps)`` (B2 section 5.1).
    rng : numpy.random.Generator
        Source of ``w``.
    delta : float
        ``1e-6`` in B2.

    Returns
    -------
    WeightedFit
        With ``theta`` centred (``objective`` is the perturbed objective at
        the uncentred minimiser).
    """
    _checks.rng(rng, noise_source=True)
    _checks.count(m, "m", 1)
    if not isinstance(wins, (Comparisons, PairStatistics)):  # an edge list is checked by its fit
        for name, x in (("wins", wins), ("n_obs", n_obs)):
            x = _checks.finite(x, name, ndim=1)
            if np.any(x < 0):
                raise ValueError(f"{name} must hold non-negative counts")
        if np.shape(wins) != np.shape(n_obs):
            raise ValueError(
                f"wins and n_obs must have the same shape, got {np.shape(wins)}, {np.shape(n_obs)}"
            )
        if np.any(np.asarray(wins) > np.asarray(n_obs)):
            raise ValueError(
                "wins must not exceed n_obs (the first item's wins among the observed)"
            )
    e = float(np.min(np.asarray(_checks.array(eps, "eps", min_size=0), dtype=np.float64)))
    gamma, sigma = noisy_obj_calibration(e, delta, zeta, beta)
    w = rng.normal(0.0, sigma, size=int(m))
    return noisy_obj_minimiser(wins, n_obs, m, gamma, w, gtol=gtol, max_iter=max_iter)


def noisy_obj_minimiser(
    wins, n_obs, m: int, gamma: float, b, *, gtol: float, max_iter: int
) -> WeightedFit:
    """NoisyObj's fit: the BTL objective with ridge ``gamma`` and linear term ``b``, centred.

    The minimiser of :func:`fit_weighted_mle` (``lambda`` from ``gamma``, no bound on
    ``theta``) with ``theta`` centred; ``objective`` is the perturbed objective at the
    uncentred minimiser. ``b`` is the objective perturbation (B2 Algorithm NoisyObj).
    """
    fit = fit_weighted_mle(
        wins,
        n_obs,
        m,
        lambda_from_ridge(gamma),
        BTL,
        b=b,
        gtol=gtol,
        max_iter=max_iter,
        theta_max=np.inf,
    )
    return dataclasses.replace(fit, theta=fit.theta - fit.theta.mean())


# ---------------------------------------------------------------------------
# curvature (B2 Lemma 4, Figure 3)


def hessian_min_nonzero_eigenvalue(S, N, theta, m: int | None = None, link: Link = BTL) -> float:
    """``Lambda_min,perp(grad^2 L_0(theta))``: smallest eigenvalue on ``1^perp``
    (docs/papers/paper-b.md#s1-5).

    ``grad^2 L_0 = sum_{i<j} h_ij (e_i - e_j)(e_i - e_j)^T`` with
    ``h_ij = S_ij l''(d_ij) + (N_ij - S_ij) l''(-d_ij)``, ``l = -log F``
    (BTL: ``h = N F (1 - F)``; TM: ``l''(d) = g(d)(d + g(d))``, ``g = phi/Phi``).
    The Hessian annihilates ``1``; the value is the smallest eigenvalue of
    ``U^T H U`` with ``U`` an orthonormal basis of ``1^perp``, and can be
    negative for TM. No ridge term (``L_0`` is the unpenalised loss).
    """
    theta = np.asarray(_checks.finite(theta, "theta", ndim=1), dtype=np.float64)
    m = theta.size if m is None else _checks.count(m, "m")
    if m < 2:
        raise ValueError(f"the Hessian on 1^perp needs m >= 2 items, got {m}")
    if m != theta.size:
        raise ValueError(f"theta has {theta.size} entries, m = {m}")
    if np.size(S) != m * (m - 1) // 2:
        raise ValueError(f"S has {np.size(S)} pairs, m = {m} needs {m * (m - 1) // 2}")
    obj = _objective(S, N, m, 1.0, link, None)
    _, h = obj.pair_derivatives(theta)
    H = obj.laplacian(h)
    # Helmert-type orthonormal basis of 1^perp: columns of the null space of 1^T
    U = scipy.linalg.null_space(np.ones((1, m)))
    return float(scipy.linalg.eigvalsh(U.T @ H @ U, subset_by_index=[0, 0])[0])
