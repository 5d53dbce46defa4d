"""Audits of objective-perturbed MLEs and their output log densities.

Paper A's Algorithm 1 (edge DP) and Proposition 3.1 (individual DP), and Paper B2's
NoisyObj baseline. Re-exported by :mod:`dprank.audit`.
"""

from __future__ import annotations

import math

import numpy as np
import scipy  # submodules load on first use; scipy.stats (about 0.35 s) is not needed

from ..base import _checks
from ..data.models import BTL
from ..fit.mle import ConvergenceError, fit_penalized_mle, fit_penalized_mle_batch
from ..objective import batch_derivatives, batch_hessian, edge_ridge
from ..privacy.mechanisms import (
    edge_mle_noise_scale,
    individual_gamma,
    individual_mle_noise_scale,
    standard_laplace,
)
from ._core import AuditResult, checked_audit, complete_wins, round_llr

# ---------------------------------------------------------------------------
# objective-perturbed MLE (Paper A, Algorithm 1)


def coded_edge_gamma(n: int, p: float = 1.0) -> float:
    """The authors' edge-DP ridge ``gamma = 2 sqrt(n p log n)`` (docs/papers/paper-a.md#s1-1)."""
    n = _checks.count(n, "n", 1)
    _checks.probability(p, "p", low_open=True)
    return edge_ridge(n, p, 2.0)


def private_edge_gamma(eps: float, kappa2: float = BTL.kappa2) -> float:
    """Proposition 2.1's privacy condition at equality: ``gamma = 4 kappa2 / eps``.

    With the logistic link's curvature bound ``kappa2 = 1/4`` (the only
    property of ``kappa2`` the privacy proof uses) this is ``1/eps``; the
    printed condition (A2) would also ask ``min_{|x|<=4} sigma'(x) > 1/kappa2``,
    i.e. ``kappa2 >= 57`` (docs/papers/paper-a.md#a11).
    """
    _checks.positive(eps, "eps")
    _checks.positive_finite(kappa2, "kappa2")
    return 4.0 * kappa2 / eps


def grad_hess_btl(theta: np.ndarray, wins: np.ndarray, gamma: float):
    """Gradient and Hessian of ``R(theta; y) = sum wins l(d) + gamma/2 |theta|^2`` (batched).

    :func:`dprank.objective.batch_derivatives` and :func:`dprank.objective.batch_hessian`.
    """
    pair_grad, v = batch_derivatives(BTL, wins, theta)
    return pair_grad + gamma * theta, batch_hessian(v, gamma)


def _log_density_rows(theta, wins, gamma, lam, log_density):
    """Both densities' common frame: check the arguments by name, then one value per row.

    ``log_density(grad, hess, lam)`` maps the gradients ``(R, n)`` and Hessians
    ``(R, n, n)`` of ``R(theta; y)`` at the rows of ``theta`` to their ``(R,)`` log
    densities; a single output ``(n,)`` gives a scalar array.
    """
    theta = _checks.finite(theta, "theta", ndim=(1, 2))
    wins = _checks.win_matrix(wins, "wins")
    _checks.same_last_axis(theta, wins, "theta and wins")
    _checks.positive_finite(gamma, "gamma")
    _checks.positive_finite(lam, "lam")
    theta, wins = np.asarray(theta, dtype=np.float64), np.asarray(wins, dtype=np.float64)
    grad, hess = grad_hess_btl(np.atleast_2d(theta), wins, float(gamma))
    out = log_density(grad, hess, lam)
    return out[0] if theta.ndim == 1 else out


def perturbed_mle_log_density(theta, wins, gamma: float, lam: float) -> np.ndarray:
    """Log density of Algorithm 1's output ``theta`` (BTL), up to the constant ``-n log(2 lam)``.

    The map ``w -> theta`` solves ``grad R(theta; y) + w = 0`` and is a
    bijection (strong convexity), so by change of variables (Paper A,
    appendix A.1, whose ``det^-1`` should read ``det``)
    ``log f(theta) = -||grad R(theta; y)||_1 / lam + log det hess R(theta; y)``.

    Parameters
    ----------
    theta : (R, n) or (n,) array_like
        Outputs.
    wins : (n, n) array_like
        The data (``wins[i, j]`` = times ``i`` beat ``j``).
    gamma : float
        Ridge coefficient.
    lam : float
        Laplace scale of the perturbation ``b``
        (:func:`dprank.privacy.mechanisms.edge_mle_noise_scale`).

    Returns
    -------
    numpy.ndarray
        ``(R,)`` (or scalar array) log densities.
    """

    def log_density(grad, hess, lam):
        _, logdet = np.linalg.slogdet(hess)
        return -np.abs(grad).sum(axis=1) / lam + logdet

    return _log_density_rows(theta, wins, gamma, lam, log_density)


def fit_perturbed(wins, gamma, b, sum_zero=False):
    """Perturbed MLE fits for a batch of perturbations ``b`` (R, n), exact to ~1e-10.

    ``sum_zero=False``: Algorithm 1 (edge DP); ``True``: the individual-DP
    estimator of Proposition 3.1, constrained to ``sum(theta) = 0``. Rows the
    batched Newton leaves unconverged are refitted one by one from
    ``-b / gamma``; :class:`ConvergenceError` if that fails too.
    """
    fit = fit_penalized_mle_batch(wins, gamma, b, sum_zero=sum_zero, max_iter=200)
    theta = fit.theta
    for r in np.flatnonzero(~fit.converged):
        # the data terms move theta by at most (degree) / gamma from -b / gamma
        start = -b[r] / gamma
        one = fit_penalized_mle(wins, gamma, b[r], theta0=start, sum_zero=sum_zero, max_iter=1000)
        # with a tiny gamma theta is huge and Newton stalls at round-off level
        if not (one.converged or one.step_norm <= 1e-12 * max(1.0, np.abs(one.theta).max())):
            raise ConvergenceError(f"perturbed MLE fit did not converge (step {one.step_norm:.3g})")
        theta[r] = one.theta
    return theta


def perturbed_mle_neighbours(n: int, adjacency: str = "flip") -> tuple[np.ndarray, np.ndarray]:
    """Worst-case edge-adjacent win matrices ``(wins0, wins1)`` for Algorithm 1.

    ``"flip"``: a complete tournament on ``n`` items, one comparison per pair,
    with the outcome of ``(0, 1)`` flipped. ``"replace"``: items ``0..n-2``
    form a complete tournament and item ``n-1`` has one comparison, with item
    0; in ``D1`` that comparison is replaced by a second comparison of items 0
    and 1, leaving item ``n-1`` isolated (Proposition 2.1's case
    ``(k, l) != (i, j)``, where the Hessian, hence ``gamma``, matters).
    """
    _checks.count(n, "n", 3)
    if adjacency == "flip":
        wins0 = complete_wins(n)
        wins1 = wins0.copy()
        wins1[0, 1], wins1[1, 0] = 0.0, 1.0
    elif adjacency == "replace":
        wins0 = np.zeros((n, n))
        wins0[: n - 1, : n - 1] = complete_wins(n - 1)
        wins1 = wins0.copy()
        wins0[n - 1, 0] = 1.0
        wins1[1, 0] += 1.0
    else:
        raise ValueError(f"unknown adjacency {adjacency!r}")
    return wins0, wins1


def _statistic_pair(statistic: str, adjacency: str, n: int) -> tuple[int, int] | None:
    """The items whose difference is the ``"difference"`` statistic (``None`` for ``"llr"``).

    ``theta~_0 - theta~_1`` under ``"flip"``, ``theta~_{n-1} - theta~_0`` under
    ``"replace"`` (the items the neighbours change).
    """
    if statistic == "llr":
        return None
    if statistic == "difference":
        return (0, 1) if adjacency == "flip" else (n - 1, 0)
    raise ValueError(f"unknown statistic {statistic!r}")


def _perturbed_mle_sampler(wins0, wins1, gamma, lam, statistic, pair, log_density, sum_zero):
    """``wins -> draw(g, size)``: fit the perturbed MLE on ``wins`` with fresh noise.

    ``draw`` returns the statistic of each fit: the rounded log-likelihood
    ratio ``log_density(theta | wins1) - log_density(theta | wins0)`` for
    ``statistic == "llr"``, else the score difference of ``pair``. Shared by the
    edge-DP and the individual-DP (``sum_zero``) audits.
    """
    n = wins0.shape[0]

    def sampler(wins):
        def draw(g, size):
            b = lam * standard_laplace(g, (size, n))
            theta = np.empty((size, n))
            for s in range(0, size, 4096):
                theta[s : s + 4096] = fit_perturbed(wins, gamma, b[s : s + 4096], sum_zero=sum_zero)
            if statistic == "llr":
                return round_llr(
                    log_density(theta, wins1, gamma, lam) - log_density(theta, wins0, gamma, lam)
                )
            return theta[:, pair[0]] - theta[:, pair[1]]

        return draw

    return sampler


def audit_perturbed_mle_edge(
    eps: float,
    n: int,
    trials: int,
    rng: np.random.Generator,
    gamma: float | None = None,
    adjacency: str = "flip",
    statistic: str = "llr",
    alpha: float = 0.05,
) -> AuditResult:
    """Audit Algorithm 1 (Paper A): objective-perturbed MLE under edge DP.

    ``theta~ = argmin sum wins l(theta_i - theta_j) + gamma/2 |theta|^2 + b^T theta``
    with ``b ~ Laplace(8 kappa1/eps)`` iid (:func:`dprank.privacy.mechanisms.edge_mle_noise_scale`),
    solved by :func:`dprank.fit.mle.fit_penalized_mle_batch` (exact Newton).

    Parameters
    ----------
    eps : float
        Claimed budget.
    n : int
        Items (small, e.g. 5).
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    gamma : float, optional
        Ridge; default :func:`private_edge_gamma` (``1/eps``, Proposition 2.1
        with ``kappa2 = 1/4``). Pass :func:`coded_edge_gamma` for the authors'.
    adjacency : {"flip", "replace"}
        Neighbours, see :func:`perturbed_mle_neighbours`.
    statistic : {"llr", "difference"}
        ``"llr"``: the exact log-likelihood ratio
        ``log f1(theta~) - log f0(theta~)`` (:func:`perturbed_mle_log_density`),
        the most powerful statistic; ``"difference"``: ``theta~_0 - theta~_1``
        (flip) or ``theta~_{n-1} - theta~_0`` (replace).
    alpha : float

    Notes
    -----
    For the logistic link ``l''`` is the same for either outcome, so under
    ``"flip"`` the Hessian does not depend on the data and the privacy loss is
    ``||grad R(t; y1)||_1 - ||grad R(t; y0)||_1`` over ``lambda``, at most
    ``2 / lambda = eps / 4`` whatever ``gamma``; ``exact_eps`` reports it.
    """
    audit_pair = checked_audit(eps, trials, rng, alpha, n=n, min_n=3)
    lam = edge_mle_noise_scale(eps, BTL.kappa1)
    gamma = private_edge_gamma(eps) if gamma is None else float(gamma)
    if not gamma > 0:
        raise ValueError("gamma must be positive")
    wins0, wins1 = perturbed_mle_neighbours(n, adjacency)
    exact = 2.0 / lam if adjacency == "flip" else None
    pair = _statistic_pair(statistic, adjacency, n)

    sampler = _perturbed_mle_sampler(
        wins0, wins1, gamma, lam, statistic, pair, perturbed_mle_log_density, sum_zero=False
    )
    return audit_pair(
        f"perturbed_mle_edge[{adjacency}, gamma={gamma:.4g}]",
        sampler(wins0),
        sampler(wins1),
        exact_eps=exact,
    )


# ---------------------------------------------------------------------------
# sum-to-zero perturbed MLE (Paper A, Proposition 3.1: individual DP)


def sum_zero_basis(n: int) -> np.ndarray:
    """An ``n x (n-1)`` orthonormal basis ``B`` of ``S = {x : sum(x) = 0}``."""
    return scipy.linalg.null_space(np.ones((1, n)))


def log_line_integral(g: np.ndarray, lam: float) -> np.ndarray:
    """``log I(g)``, ``I(g) = int exp(-sum_i |g_i + nu| / lam) dnu`` over the real line, exactly.

    With ``a = sort(-g)`` and ``h(nu) = sum_i |nu - a_i|`` (convex, piecewise
    linear), ``h`` has slope ``s_k = 2k - n`` on ``(a_(k), a_(k+1))`` and
    slopes ``-n`` / ``n`` on the two tails. Each piece integrates in closed
    form: a tail gives ``exp(-h(a_end)/lam) lam / n``; an inner piece of
    length ``c`` gives ``c exp(-h(a_(k))/lam)`` if ``s_k = 0`` and otherwise
    ``exp(-h_min/lam) lam (1 - exp(-|s_k| c/lam)) / |s_k|`` with ``h_min``
    the smaller of the end values (the left one if ``s_k > 0``, the right one
    if ``s_k < 0``, since ``h(a_(k+1)) = h(a_(k)) + s_k c``), which never
    forms a large exponential. The pieces are added by ``logsumexp``.

    Parameters
    ----------
    g : (..., n) array_like
    lam : float
        Positive scale.

    Returns
    -------
    (...) numpy.ndarray
    """
    a = np.sort(-np.asarray(g, dtype=np.float64), axis=-1)
    n = a.shape[-1]
    h = np.abs(a[..., :, None] - a[..., None, :]).sum(axis=-1)  # h(a_(k))
    gap = np.diff(a, axis=-1)
    slope = 2.0 * np.arange(1, n) - n
    h_min = np.where(slope > 0, h[..., :-1], h[..., 1:])
    with np.errstate(divide="ignore"):  # zero-length pieces give log 0 = -inf
        flat = np.log(gap) - h[..., :-1] / lam
        abs_s = np.where(slope == 0, 1.0, np.abs(slope))
        sloped = (
            -h_min / lam + math.log(lam) + np.log(-np.expm1(-abs_s * gap / lam)) - np.log(abs_s)
        )
    inner = np.where(slope == 0, flat, sloped)
    tails = math.log(lam / n) - h[..., [0, -1]] / lam
    return scipy.special.logsumexp(np.concatenate([inner, tails], axis=-1), axis=-1)


def constrained_perturbed_mle_log_density(theta, wins, gamma: float, lam: float) -> np.ndarray:
    """Log density of the sum-to-zero perturbed MLE's output (BTL) on ``S = {sum(theta) = 0}``.

    The estimator of Proposition 3.1 (individual DP) is
    ``theta~ = argmin_{theta in S} R(theta; y) + b^T theta`` with
    ``R(theta; y) = sum wins l(theta_i - theta_j) + gamma/2 |theta|^2`` and
    ``b`` iid ``Laplace(lam)``. This returns, up to the constant
    ``log sqrt(n) - n log(2 lam)`` (the same for every data set),

        log f(theta | y) = log det(B^T H B) + log I(g),
        I(g) = int exp(-sum_i |g_i + nu| / lam) dnu,

    with ``g = grad R(theta; y)``, ``H = hess R(theta; y)`` and ``B`` an
    ``n x (n-1)`` orthonormal basis of ``S``; the density is with respect to
    the ``(n-1)``-dimensional Lebesgue measure on ``S``.

    Derivation. The KKT conditions of the constrained problem say that
    ``theta in S`` is the output iff ``grad R(theta; y) + b + nu 1 = 0`` for
    some scalar ``nu``, so the perturbations leading to ``theta`` form the
    line ``b = -g - nu 1``. Writing ``theta = B u``, the map
    ``(u, nu) -> b = -grad R(B u; y) - nu 1`` is a bijection of
    ``R^(n-1) x R`` onto ``R^n`` (strong convexity on ``S``) with Jacobian
    ``[-H B, -1]``; with the orthogonal ``Q = [B, 1/sqrt(n)]``,
    ``|det [H B, 1]| = |det Q^T [H B, 1]| = sqrt(n) det(B^T H B)`` (the
    block ``B^T 1`` vanishes). Hence the joint density of ``(u, nu)`` is
    ``sqrt(n) det(B^T H B) (2 lam)^-n exp(-||g + nu 1||_1 / lam)`` and
    integrating out ``nu`` gives the formula. ``I(g)`` is computed exactly
    (the integrand is the exponential of a piecewise linear function; see
    :func:`log_line_integral`).

    Parameters
    ----------
    theta : (R, n) or (n,) array_like
        Outputs, each summing to zero (not checked).
    wins : (n, n) array_like
        The data (``wins[i, j]`` = times ``i`` beat ``j``).
    gamma : float
        Ridge coefficient (:func:`dprank.privacy.mechanisms.individual_gamma`).
    lam : float
        Laplace scale of ``b`` (:func:`dprank.privacy.mechanisms.individual_mle_noise_scale`).

    Returns
    -------
    numpy.ndarray
        ``(R,)`` (or scalar array) log densities on ``S``, up to the constant above.
    """

    def log_density(grad, hess, lam):
        basis = sum_zero_basis(grad.shape[1])
        _, logdet = np.linalg.slogdet(basis.T @ hess @ basis)
        return logdet + log_line_integral(grad, float(lam))

    return _log_density_rows(theta, wins, gamma, lam, log_density)


def individual_mle_neighbours(
    n: int, L: int, adjacency: str = "flip"
) -> tuple[np.ndarray, np.ndarray]:
    """Individual-adjacent win matrices ``(wins0, wins1)``: one user's ``L`` comparisons replaced.

    The other users give a complete tournament on ``n`` items (one comparison
    per pair, the lower index winning). ``"flip"``: the user compares items
    0 and 1 ``L`` times; item 0 wins all ``L`` in ``D0``, item 1 in ``D1``
    (the Hessian is unchanged). ``"replace"``: the user's ``L`` comparisons
    are "``n-1`` beats 0" in ``D0`` and "1 beats 0" in ``D1``, which moves
    curvature from pair ``(0, n-1)`` to pair ``(0, 1)`` (the Hessian changes).
    """
    _checks.count(n, "n", 3)
    _checks.count(L, "L", 1)
    wins0 = complete_wins(n)
    wins1 = wins0.copy()
    if adjacency == "flip":
        wins0[0, 1] += L
        wins1[1, 0] += L
    elif adjacency == "replace":
        wins0[n - 1, 0] += L
        wins1[1, 0] += L
    else:
        raise ValueError(f"unknown adjacency {adjacency!r}")
    return wins0, wins1


def audit_perturbed_mle_individual(
    eps: float,
    n: int,
    L: int,
    trials: int,
    rng: np.random.Generator,
    adjacency: str = "flip",
    statistic: str = "llr",
    alpha: float = 0.05,
) -> AuditResult:
    """Audit the individual-DP perturbed MLE (Paper A, Proposition 3.1; Algorithm 3's MLE step).

    ``theta~ = argmin_{sum theta = 0} sum wins l(theta_i - theta_j) + gamma/2 |theta|^2
    + b^T theta`` with ``gamma = 2L/eps`` (:func:`dprank.privacy.mechanisms.individual_gamma`) and
    ``b ~ Laplace(8L/eps)`` iid (:func:`dprank.privacy.mechanisms.individual_mle_noise_scale`),
    solved by :func:`dprank.fit.mle.fit_penalized_mle_batch` with ``sum_zero=True``
    (exact Newton), as the library fits it.

    Parameters
    ----------
    eps : float
        Claimed budget (finite).
    n : int
        Items (small, e.g. 5; ``>= 3``).
    L : int
        Comparisons per individual.
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    adjacency : {"flip", "replace"}
        Neighbours, see :func:`individual_mle_neighbours`.
    statistic : {"llr", "difference"}
        ``"llr"``: the exact log-likelihood ratio of the constrained output
        (:func:`constrained_perturbed_mle_log_density`), rounded as in
        :func:`audit_perturbed_mle_edge`; ``"difference"``:
        ``theta~_0 - theta~_1`` (flip) or ``theta~_{n-1} - theta~_0`` (replace).
    alpha : float

    Notes
    -----
    Under ``"flip"`` the logistic ``l''`` is the same for either outcome, so
    ``B^T H B`` does not depend on the data, and since ``l'(d) + l'(-d) = -1``
    the gradient moves by the constant ``g1 - g0 = L (e_0 - e_1)``. The loss
    is then ``log I(g0 + L (e_0 - e_1)) - log I(g0)``, at most
    ``||L (e_0 - e_1)||_1 / lam = 2L / lam = eps / 4`` in absolute value
    (pointwise in ``nu``). The bound is the exact loss on this pair: as ``b``
    ranges over ``R^n``, ``g0`` ranges over all of ``R^n`` modulo ``1`` (and
    ``I`` is invariant under ``g -> g + c 1``); at ``g0 = (-M, M, 0, ..., 0)``
    the two norms differ by exactly ``2L`` for ``|nu| < M - L``, which carries
    all but ``O(exp(-(n-2)(M-L)/lam))`` of the mass, so the ratio tends to
    ``2L / lam`` as ``M`` grows; it is continuous in ``theta`` and the densities
    are positive, so ``{llr > 2L/lam - eta}`` has positive probability for every
    ``eta > 0`` and the pure-DP loss (the essential supremum of ``|llr|``) is
    ``2L / lam``, which ``exact_eps`` reports. Under ``"replace"`` the Hessian
    changes as well and no closed form is known (``exact_eps`` is ``None``).
    """
    audit_pair = checked_audit(eps, trials, rng, alpha, n=n, min_n=3, L=L)
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError("eps must be positive and finite")
    lam = individual_mle_noise_scale(eps, L)
    gamma = individual_gamma(eps, L)
    wins0, wins1 = individual_mle_neighbours(n, L, adjacency)
    exact = 2.0 * L / lam if adjacency == "flip" else None
    pair = _statistic_pair(statistic, adjacency, n)

    sampler = _perturbed_mle_sampler(
        wins0,
        wins1,
        gamma,
        lam,
        statistic,
        pair,
        constrained_perturbed_mle_log_density,
        sum_zero=True,
    )
    return audit_pair(
        f"perturbed_mle_individual[{adjacency}, L={L}]",
        sampler(wins0),
        sampler(wins1),
        exact_eps=exact,
    )


# ---------------------------------------------------------------------------
# NoisyObj (Paper B2 baseline, docs/papers/paper-b.md#s1-4)


def audit_noisy_obj(
    eps: float,
    delta: float,
    trials: int,
    rng: np.random.Generator,
    m: int = 3,
    alpha: float = 0.05,
) -> AuditResult:
    """Audit B2's NoisyObj (:func:`dprank.fit.weighted_mle.noisy_obj_fit`), calibrated per
    docs/papers/paper-b.md#a10.

    Data: one comparison of every pair of ``m`` items (lower index wins); the
    neighbour flips the outcome of ``(0, 1)``. Statistic ``theta~_0 - theta~_1``
    of the centred output. The claim is ``(eps, delta)``.
    """
    from ..fit.weighted_mle import noisy_obj_fit

    audit_pair = checked_audit(eps, trials, rng, alpha)
    _checks.probability(delta, "delta", low_open=True, high_open=True)
    iu, _ = np.triu_indices(m, k=1)
    n_obs = np.ones(iu.size)
    wins0 = np.ones(iu.size)
    wins1 = wins0.copy()
    wins1[0] = 0.0  # pair (0, 1) is first in triu order

    def sampler(wins):
        def draw(g, size):
            out = np.empty(size)
            for r in range(size):
                th = noisy_obj_fit(wins, n_obs, m, eps, g, delta).theta
                out[r] = th[0] - th[1]
            return out

        return draw

    return audit_pair("noisy_obj", sampler(wins0), sampler(wins1), claimed_delta=delta)
