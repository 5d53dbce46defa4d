"""Mixed-effects BTL model with a user random effect (B2 supplement S.1.2, Table 3).

Model (B2 supplement S.1.2)
---------------------------
Items ``i = 1..m`` have scores ``theta*_i`` (``sum_i theta*_i = 0``); users
``l = 1..L`` have a random effect ``gamma*_l ~ N(0, sigma^2)``. User ``l``
answers every pair ``i < j`` (pairs ``p`` in ``numpy.triu_indices(m, 1)``
order, ``P = m(m-1)/2`` of them), each observed with probability ``p``
(``a_lp ~ Bern(p)``), with

    y_lp ~ Bernoulli(F(gamma_l + theta_i - theta_j)),   F = logistic CDF (BTL),

``y_lp = 1`` meaning "``i`` preferred to ``j``".

Estimator (two-step, De la Cruz et al. 2011)
--------------------------------------------
Step 1 treats the ``gamma_l`` as fixed effects and minimises, jointly over
``(theta, gamma)``,

    Q(theta, gamma) = sum_l sum_p a_lp { log(1 + exp(eta_lp)) - y_lp eta_lp }
                      + lam ||theta||^2 + ridge ||gamma||^2,
    eta_lp = gamma_l + theta_i - theta_j.

``lam`` (default 1, on this unnormalised loss) is the ridge penalty of B2 on
the item scores; because the loss depends on ``theta`` only through
differences, the stationarity condition summed over items gives
``2 lam sum_i theta_i = 0``, so the minimiser has ``sum_i theta_i = 0``
(analogue of B2 Lemma 3), whatever ``ridge``. ``ridge`` (default ``1e-6``) is
a tiny penalty on the user effects: a user whose observed answers are all 1
(or all 0) has an unpenalised MLE ``gamma_l = +inf`` (``-inf``), and the
small ridge keeps it finite (about ``log(n_l / (2 ridge))``, i.e. 15 to 20,
``n_l`` the user's number of observed pairs) so that the fit converges. Such
users then inflate ``sigma_hat``. With ``ridge = 0`` their ``gamma_l`` climbs
until the gradient ``n_l e^{-gamma_l}`` drops below ``gtol`` (about
``log(n_l / gtol)``, an artefact of the tolerance). A user with no observed
pair gets ``gamma_l = 0``.

Step 2 estimates the random-effect scale by the sample standard deviation of
the fitted effects,

    sigma_hat = sqrt( sum_l (gamma_hat_l - mean(gamma_hat))^2 / (L - 1) ).

Solver
------
``Q`` is strictly convex (``lam > 0``; ``ridge > 0`` or every user observes at
least one pair). It is minimised by damped Newton (Armijo backtracking) from
``(theta, gamma) = 0``, stopping once ``max |grad Q| <= gtol`` (an *absolute*
tolerance on the unnormalised gradient, default ``1e-8``) or after
``max_iter`` iterations. With per-observation weights
``w_lp = a_lp F(eta_lp)(1 - F(eta_lp))`` the Hessian is

    [ H_tt   C^T ]     H_tt = sum_p (sum_l w_lp) (e_i - e_j)(e_i - e_j)^T + 2 lam I   (m x m)
    [ C      D   ],    D = diag(sum_p w_lp + 2 ridge)                               (L x L)
                       C_lk = sum_p w_lp (e_i - e_j)_k                               (L x m)

and each Newton step eliminates ``gamma`` (Schur complement
``H_tt - C^T D^{-1} C`` onto ``theta``, Cholesky), costing
``O(L P + L m^2 + m^3)`` per iteration instead of a dense ``(m + L)^2`` solve.
Everything is vectorised over users and pairs. The pairs' scatter onto the
items, the Laplacian of ``H_tt`` and the ridges (``lam ||theta||^2`` is
``(gamma / 2) ||theta||^2`` with ``gamma = 2 lam``) are those of
:mod:`dprank.objective`; the user effects make the loss itself this module's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..base._lapack import cholesky_factor, cholesky_solve
from ..base._lazy_scipy import scipy  # imported on first use (dprank rank never uses it)
from ..objective import UserEffectObjective, ridge_from_lambda, triu_laplacian

__all__ = [
    "MixedEffectsFit",
    "fit_mixed_effects_btl",
    "mixed_effects_objective",
    "simulate_mixed_effects_btl",
]


@dataclass(frozen=True, eq=False)
class MixedEffectsFit:
    """Result of :func:`fit_mixed_effects_btl` (B2 supplement S.1.2, Table 3).

    Attributes
    ----------
    theta : (m,) numpy.ndarray
        Fitted item scores (they sum to zero at the optimum).
    gamma : (L,) numpy.ndarray
        Fitted user effects (treated as fixed effects in step 1).
    sigma_hat : float
        Sample standard deviation (``ddof=1``) of ``gamma``: the step-2
        estimate of the random-effect scale ``sigma``.
    converged : bool
        ``max |grad Q| <= gtol`` at ``(theta, gamma)``.
    n_iter : int
        Newton iterations taken.
    grad_norm : float
        ``max |grad Q|`` at the returned point.
    objective : float
        ``Q(theta, gamma)``.
    """

    theta: np.ndarray
    gamma: np.ndarray
    sigma_hat: float
    converged: bool
    n_iter: int
    grad_norm: float
    objective: float


def _check_penalties(lam, ridge) -> tuple[float, float]:
    lam = _checks.real(lam, "lam")
    ridge = _checks.real(ridge, "ridge")
    if not (lam > 0 and math.isfinite(lam)):
        raise ValueError(f"lam must be positive and finite, got {lam}")
    if not (ridge >= 0 and math.isfinite(ridge)):
        raise ValueError(f"ridge must be non-negative and finite, got {ridge}")
    return lam, ridge


class _Problem:
    """Data, value, gradient and Newton step of ``Q`` (B2 supplement S.1.2).

    The value and derivatives are :class:`dprank.objective.UserEffectObjective`'s.
    """

    def __init__(self, y, a, m, lam, ridge):
        self.m = _checks.count(m, "m", 2)
        self.P = self.m * (self.m - 1) // 2
        y = _checks.array(y, "y")
        if y.ndim != 2:
            raise ValueError(f"y must be a 2-d (L, P) array, got shape {y.shape}")
        L, P = y.shape
        if P != self.P:
            raise ValueError(
                f"y has {P} columns but m = {self.m} items give P = m(m-1)/2 = {self.P} pairs"
            )
        if L < 2:
            raise ValueError(f"y needs L >= 2 rows (users) to estimate sigma, got L = {L}")
        if not np.all((y == 0) | (y == 1)):
            raise ValueError("y must contain only 0 and 1")
        self.L = L
        if a is None:
            af = None
        else:
            a = _checks.array(a, "a")
            if a.shape != y.shape:
                raise ValueError(f"a must have the shape of y {y.shape}, got {a.shape}")
            if not np.all((a == 0) | (a == 1)):
                raise ValueError("a must be boolean (or contain only 0 and 1)")
            # everything observed: masking multiplies by 1.0, which changes no bit; skip it
            af = None if np.all(a == 1) else a.astype(np.float64)
        self.lam, self.ridge = _check_penalties(lam, ridge)
        # the ridges in dprank.objective's convention (gamma / 2) ||x||^2
        self.gamma_theta, self.gamma_users = (
            ridge_from_lambda(self.lam),
            ridge_from_lambda(self.ridge),
        )
        self.objective = UserEffectObjective(
            y.astype(bool), af, self.m, self.gamma_theta, self.gamma_users
        )
        self.iu, self.ju = self.objective.iu, self.objective.ju
        rows = np.concatenate([self.iu, self.ju])
        cols = np.concatenate([np.arange(self.P), np.arange(self.P)])
        vals = np.concatenate([np.ones(self.P), -np.ones(self.P)])
        # E^T: (m, P) incidence, +1 at item i and -1 at item j of pair p.
        self.Et = scipy.sparse.csr_matrix((vals, (rows, cols)), shape=(self.m, self.P))

    def value(self, theta, gamma) -> float:
        return self.objective.value(theta, gamma)

    def derivatives(self, theta, gamma):
        """Gradient ``(dQ/dtheta, dQ/dgamma)`` and Hessian weights ``w = a F (1 - F)``."""
        return self.objective.derivatives(theta, gamma)

    def gradient(self, theta, gamma):
        return self.derivatives(theta, gamma)[:2]

    def newton_step(self, g_theta, g_gamma, w):
        """Solve ``H (dt, dg) = -(g_theta, g_gamma)`` by eliminating ``gamma``.

        ``w`` is the ``(L, P)`` array of Hessian weights from :meth:`derivatives`.
        """
        h = w.sum(axis=0)  # (P,) pair weights of the theta block
        H = triu_laplacian(self.iu, self.ju, h, self.m, self.gamma_theta)
        D = w.sum(axis=1) + self.gamma_users  # (L,)
        # a user with no observed pair and ridge = 0: D = 0, gradient 0, step 0
        Dinv = np.divide(1.0, D, out=np.zeros_like(D), where=D > 0)
        C = np.asarray(self.Et @ w.T).T  # (L, m), O(L P)
        S = H - C.T @ (C * Dinv[:, None])  # Schur complement, O(L m^2)
        rhs = -g_theta + C.T @ (g_gamma * Dinv)
        try:
            dt = cholesky_solve(cholesky_factor(S), rhs)
        except scipy.linalg.LinAlgError:
            dt = scipy.linalg.lstsq(S, rhs, check_finite=False)[0]
        dg = -(g_gamma + C @ dt) * Dinv
        return dt, dg


def _mixed_effects_gradient(theta, gamma, y, a=None, lam=1.0, ridge=1e-6):
    """Analytic gradient ``(dQ/dtheta, dQ/dgamma)`` (private; used by the tests)."""
    theta = np.asarray(theta, dtype=np.float64)
    gamma = np.asarray(gamma, dtype=np.float64)
    prob = _Problem(y, a, theta.size, lam, ridge)
    _check_params(prob, theta, gamma)
    return prob.gradient(theta, gamma)


def _theta_gamma(theta, gamma, y) -> tuple[np.ndarray, np.ndarray]:
    """``theta`` and ``gamma`` as float64 after checking them against ``y``'s shape."""
    theta = np.asarray(_checks.finite(theta, "theta", ndim=1), dtype=np.float64)
    gamma = np.asarray(_checks.finite(gamma, "gamma", ndim=1), dtype=np.float64)
    P = theta.size * (theta.size - 1) // 2
    if np.ndim(y) == 2 and np.shape(y)[1] != P:
        raise ValueError(
            f"theta has {theta.size} items, so y must have P = {P} columns, got shape {np.shape(y)}"
        )
    return theta, gamma


def _check_params(prob, theta, gamma):
    if theta.shape != (prob.m,):
        raise ValueError(f"theta must have shape ({prob.m},), got {theta.shape}")
    if gamma.shape != (prob.L,):
        raise ValueError(f"gamma must have shape ({prob.L},), got {gamma.shape}")


def mixed_effects_objective(
    theta, gamma, y, a=None, lam: float = 1.0, ridge: float = 1e-6
) -> float:
    """Step-1 objective ``Q(theta, gamma)`` of the mixed-effects BTL fit.

    B2 supplement S.1.2 (Table 3): the negative log-likelihood with the user
    effects as fixed effects, plus ``lam ||theta||^2 + ridge ||gamma||^2``.

    Parameters
    ----------
    theta : (m,) array_like
        Item scores.
    gamma : (L,) array_like
        User effects.
    y : (L, P) array_like of {0, 1}
        Answers, ``P = m(m-1)/2`` pairs in ``numpy.triu_indices(m, 1)`` order;
        ``y = 1`` means ``i`` preferred to ``j``.
    a : (L, P) array_like of bool, optional
        Observation mask (``None``: everything observed).
    lam : float
        Ridge coefficient on ``theta`` (``> 0``).
    ridge : float
        Ridge coefficient on ``gamma`` (``>= 0``).

    Returns
    -------
    float
        ``sum_l sum_p a_lp {log(1 + e^eta_lp) - y_lp eta_lp} + lam ||theta||^2
        + ridge ||gamma||^2`` with ``eta_lp = gamma_l + theta_i - theta_j``.
    """
    theta, gamma = _theta_gamma(theta, gamma, y)
    prob = _Problem(y, a, theta.size, lam, ridge)
    _check_params(prob, theta, gamma)
    return prob.value(theta, gamma)


def simulate_mixed_effects_btl(
    theta, L: int, sigma: float, p: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Simulate the mixed-effects BTL model of B2 supplement S.1.2 (Table 3).

    Parameters
    ----------
    theta : (m,) array_like
        True item scores ``theta*`` (Table 3 centres them; not enforced here).
    L : int
        Number of users (``>= 1``).
    sigma : float
        Random-effect standard deviation (``>= 0``).
    p : float
        Probability that a user answers a given pair (``0 <= p <= 1``).
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    gamma : (L,) numpy.ndarray
        User effects ``gamma*_l ~ N(0, sigma^2)``.
    y : (L, P) numpy.ndarray of uint8
        ``y_lp ~ Bernoulli(F(gamma_l + theta_i - theta_j))``, pairs in
        ``numpy.triu_indices(m, 1)`` order. Drawn for every pair, observed or
        not; the unobserved entries are ignored by the fit.
    a : (L, P) numpy.ndarray of bool
        Observation mask ``a_lp ~ Bern(p)``.

    Notes
    -----
    Draw order (a fixed stream): ``gamma = rng.normal(0, sigma, L)``, then
    ``a = rng.random((L, P)) < p``, then ``y = rng.random((L, P)) < expit(eta)``.
    ``p == 1`` still draws the mask uniforms.
    """
    theta = np.asarray(_checks.array(theta, "theta"), dtype=np.float64)
    if theta.ndim != 1 or theta.size < 2:
        raise ValueError(f"theta must be a 1-d array of >= 2 scores, got shape {theta.shape}")
    if not np.all(np.isfinite(theta)):
        raise ValueError("theta must be finite")
    L_int = _checks.count(L, "L", 1)
    sigma = _checks.non_negative(sigma, "sigma")
    p = _checks.probability(p, "p")
    _checks.rng(rng)
    m = theta.size
    P = m * (m - 1) // 2
    iu, ju = np.triu_indices(m, 1)
    gamma = rng.normal(0.0, sigma, L_int)
    a = rng.random((L_int, P)) < p
    eta = gamma[:, None] + (theta[iu] - theta[ju])[None, :]
    y = (rng.random((L_int, P)) < scipy.special.expit(eta)).astype(np.uint8)
    return gamma, y, a


def fit_mixed_effects_btl(
    y,
    a,
    m: int,
    lam: float = 1.0,
    ridge: float = 1e-6,
    gtol: float = 1e-8,
    max_iter: int = 100,
) -> MixedEffectsFit:
    """Two-step mixed-effects BTL estimator of B2 supplement S.1.2 (Table 3).

    Step 1 minimises ``Q(theta, gamma)`` (:func:`mixed_effects_objective`) by
    damped Newton with the user effects eliminated at every step (Schur
    complement onto ``theta``); step 2 sets ``sigma_hat`` to the sample
    standard deviation (``ddof=1``) of ``gamma_hat`` (De la Cruz et al. 2011).

    Parameters
    ----------
    y : (L, P) array_like of {0, 1}
        Answers, ``P = m(m-1)/2`` pairs in ``numpy.triu_indices(m, 1)`` order.
    a : (L, P) array_like of bool or None
        Observation mask; ``None`` means every pair is observed.
    m : int
        Number of items.
    lam : float
        Ridge coefficient on ``theta`` (``> 0``; on the unnormalised loss). It
        makes the minimiser satisfy ``sum_i theta_i = 0``.
    ridge : float
        Ridge coefficient on ``gamma`` (``>= 0``). The default ``1e-6`` keeps
        the effect of a user whose observed answers are all 0 or all 1 finite
        (its unpenalised MLE is infinite).
    gtol : float
        Convergence: ``max |grad Q| <= gtol`` (absolute, unnormalised).
    max_iter : int
        Maximum number of Newton iterations.

    Returns
    -------
    MixedEffectsFit
        Non-convergence is reported (``converged=False``), not raised.
    """
    prob = _Problem(y, a, m, lam, ridge)
    gtol = _checks.positive(gtol, "gtol")
    _checks.count(max_iter, "max_iter")
    theta = np.zeros(prob.m)
    gamma = np.zeros(prob.L)
    fval = prob.value(theta, gamma)
    g_theta, g_gamma, w = prob.derivatives(theta, gamma)
    grad_norm = max(np.max(np.abs(g_theta)), np.max(np.abs(g_gamma)))
    n_iter = 0
    while grad_norm > gtol and n_iter < max_iter:
        dt, dg = prob.newton_step(g_theta, g_gamma, w)
        slope = float(g_theta @ dt + g_gamma @ dg)
        t = 1.0
        while True:
            cand_t, cand_g = theta + t * dt, gamma + t * dg
            fnew = prob.value(cand_t, cand_g)
            if fnew <= fval + 1e-4 * t * slope:
                break
            if abs(fnew - fval) <= 1e-14 * max(1.0, abs(fval)) or t < 1e-12:
                break  # round-off level: accept (the gradient test decides)
            t *= 0.5
        theta, gamma, fval = cand_t, cand_g, fnew
        n_iter += 1
        g_theta, g_gamma, w = prob.derivatives(theta, gamma)
        grad_norm = max(np.max(np.abs(g_theta)), np.max(np.abs(g_gamma)))
    grad_norm = float(grad_norm)
    finite = bool(np.all(np.isfinite(theta)) and np.all(np.isfinite(gamma)))
    return MixedEffectsFit(
        theta=theta,
        gamma=gamma,
        sigma_hat=float(np.std(gamma, ddof=1)),
        converged=bool(finite and grad_norm <= gtol),
        n_iter=n_iter,
        grad_norm=grad_norm,
        objective=float(fval),
    )
