"""B2 objective (5) on sufficient statistics, baselines and Hessian eigenvalues.

Reference solutions come from an independent L-BFGS fit of the objective
written from its definition (docs/papers/paper-b.md#s1-3); statistical checks
use fixed seeds and tolerances from the asymptotic (sandwich) covariance.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import optimize, special, stats

from dprank.data.models import BTL, THURSTONE
from dprank.fit.weighted_mle import (
    classic_rr_plugin_statistics,
    default_lambda,
    fit_weighted_mle,
    hessian_min_nonzero_eigenvalue,
    laplace_plugin_statistics,
    noisy_obj_calibration,
    noisy_obj_fit,
    weighted_objective,
    weighted_objective_gradient,
)
from dprank.privacy.ldp import (
    adrr_weights,
    debiased_variance,
    privacy_constant,
    randomized_response,
    sample_rr_statistics_equal_eps,
    sample_user_comparisons_b,
    simulate_ldp_statistics,
    sufficient_statistics,
)

LOGCDF = {"btl": lambda x: -np.logaddexp(0, -x), "tm": stats.norm.logcdf}


def _adrr_problem(m, L, p, link, seed, eps_range=(1.0, 5.0)):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-1, 1, m)
    theta -= theta.mean()
    eps = rng.uniform(*eps_range, L)
    S, N = simulate_ldp_statistics(theta, eps, p, rng, link=link).adrr
    return theta, S, N, default_lambda(L, privacy_constant(eps))


def _reference(S, N, m, lam, link, b=None):
    """L-BFGS on -sum[S log F(d) + (N - S) log(1 - F(d))] + lam |theta|^2 (+ b.theta)."""
    iu, ju = np.triu_indices(m, 1)
    logcdf = LOGCDF[link.name]
    b = np.zeros(m) if b is None else b

    def f(t):
        d = t[iu] - t[ju]
        return -(S @ logcdf(d) + (N - S) @ logcdf(-d)) + lam * t @ t + b @ t

    def g(t):
        d = t[iu] - t[ju]
        eps = 1e-6  # derivative of the pair term by central differences in d (independent)
        gd = (
            -(S * logcdf(d + eps) + (N - S) * logcdf(-d - eps))
            + (S * logcdf(d - eps) + (N - S) * logcdf(-d + eps))
        ) / (2 * eps)
        return np.bincount(iu, gd, m) - np.bincount(ju, gd, m) + 2 * lam * t + b

    res = optimize.minimize(
        f,
        np.zeros(m),
        jac=g,
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 10_000, "maxcor": 30},
    )
    return res.x


@pytest.mark.parametrize("link", [BTL, THURSTONE])
def test_matches_lbfgs_reference(link):
    _, S, N, lam = _adrr_problem(10, 100, 0.5, link, seed=1)
    fit = fit_weighted_mle(S, N, 10, lam, link)
    assert fit.converged and fit.method == "newton" and fit.local_min
    assert fit.grad_norm <= 1e-8
    np.testing.assert_allclose(fit.theta, _reference(S, N, 10, lam, link), atol=1e-6)
    assert fit.objective == pytest.approx(weighted_objective(fit.theta, S, N, lam, link))


def test_tm_matches_reference_on_convex_nonprivate_data():
    """S in [0, N] makes the TM objective convex (log-concave Phi)."""
    rng = np.random.default_rng(4)
    theta = rng.uniform(-1, 1, 12)
    c = sample_rr_statistics_equal_eps(theta, 60, 0.5, np.inf, rng, THURSTONE)
    S, N = c.nonprivate_statistics()
    fit = fit_weighted_mle(S, N, 12, 1 / 60, THURSTONE)
    assert fit.converged
    np.testing.assert_allclose(fit.theta, _reference(S, N, 12, 1 / 60, THURSTONE), atol=1e-6)


@pytest.mark.parametrize("link", [BTL, THURSTONE])
def test_gradient_formula(link):
    """Analytic gradient (docs/papers/paper-b.md#s1-3) against central differences, S outside
    [0, N] too."""
    rng = np.random.default_rng(9)
    m = 6
    S = rng.uniform(-0.5, 1.5, 15)
    N = rng.uniform(0.5, 1.0, 15)
    theta = rng.normal(0, 0.7, m)
    g = weighted_objective_gradient(theta, S, N, 0.1, link)
    h = 1e-6
    num = [
        (
            weighted_objective(theta + h * e, S, N, 0.1, link)
            - weighted_objective(theta - h * e, S, N, 0.1, link)
        )
        / (2 * h)
        for e in np.eye(m)
    ]
    np.testing.assert_allclose(g, num, atol=1e-6)
    # BTL pair gradient N F(d) - S (docs/papers/paper-b.md#s1-3)
    if link is BTL:
        iu, ju = np.triu_indices(m, 1)
        gd = N * special.expit(theta[iu] - theta[ju]) - S
        expected = np.bincount(iu, gd, m) - np.bincount(ju, gd, m) + 0.2 * theta
        np.testing.assert_allclose(g, expected, atol=1e-12)


@pytest.mark.parametrize("link", [BTL, THURSTONE])
def test_solution_sums_to_zero_lemma3(link):
    _, S, N, lam = _adrr_problem(15, 80, 0.5, link, seed=2)
    fit = fit_weighted_mle(S, N, 15, lam, link)
    assert fit.converged
    assert abs(fit.theta.sum()) <= 1e-10


def test_non_convergence_is_reported():
    _, S, N, lam = _adrr_problem(10, 100, 0.5, BTL, seed=3)
    fit = fit_weighted_mle(S, N, 10, lam, BTL, max_iter=1)
    assert not fit.converged and fit.n_iter == 1 and fit.grad_norm > 1e-8
    assert fit.method == "newton"


def test_unbounded_tm_objective_is_reported_as_diverged():
    """Item 0's debiased wins are negative: the TM objective is unbounded below.

    Moving theta_0 -> -inf costs S_01 l(d) + S_02 l(d) ~ (S_01 + S_02) d^2 / 2 < 0
    faster than the ridge grows; no minimiser exists and the fit must say so.
    """
    S = np.array([-2.0, -2.0, 0.5])
    N = np.ones(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings leak out
        fit = fit_weighted_mle(S, N, 3, 0.05, THURSTONE)
    assert not fit.converged
    assert fit.diverged
    assert "trust-exact" in fit.method


def test_tm_fallback_from_indefinite_start():
    """Newton meets an indefinite Hessian at theta0; the trust region finds the local min."""
    S = np.array([1.078, -0.281, 0.011, 1.26, 0.621, -0.089])
    N = np.ones(6)
    theta0 = np.array([4.38, -1.32, -10.36, 4.25])
    lam = 0.05
    from_zero = fit_weighted_mle(S, N, 4, lam, THURSTONE)
    assert from_zero.converged and from_zero.method == "newton" and from_zero.local_min
    fit = fit_weighted_mle(S, N, 4, lam, THURSTONE, theta0=theta0)
    assert fit.method.startswith("newton>trust-exact")
    assert fit.converged and fit.local_min and not fit.diverged
    np.testing.assert_allclose(fit.theta, from_zero.theta, atol=1e-6)
    assert hessian_min_nonzero_eigenvalue(S, N, theta0, 4, THURSTONE) < 0


def _sandwich_sd(theta, L, eps, link_is_btl=True):
    """Asymptotic sd of theta_hat_i: A^+ B A^+ with A = L F(1-F) Lap, B = L Var(z~) Lap."""
    m = theta.size
    iu, ju = np.triu_indices(m, 1)
    f = special.expit(theta[iu] - theta[ju])
    A = np.zeros((m, m))
    B = np.zeros((m, m))
    for k, (i, j) in enumerate(zip(iu, ju, strict=True)):
        x = np.zeros(m)
        x[i], x[j] = 1, -1
        A += L * f[k] * (1 - f[k]) * np.outer(x, x)
        var = f[k] * (1 - f[k]) if np.isinf(eps) else float(debiased_variance(f[k], eps))
        B += L * var * np.outer(x, x)
    Ap = np.linalg.pinv(A)
    return np.sqrt(np.diag(Ap @ B @ Ap))


@pytest.mark.parametrize(("eps", "L"), [(np.inf, 20_000), (1.0, 200_000)])
def test_consistency_many_users(eps, L):
    """With many users the estimate is within 5 asymptotic sds of theta* (BTL, p = 1)."""
    rng = np.random.default_rng(77)
    theta = np.linspace(0.8, -0.8, 8)
    c = sample_rr_statistics_equal_eps(theta, L, 1.0, eps, rng, BTL)
    S, N = c.adrr_statistics()
    lam = default_lambda(L, privacy_constant([eps]))
    fit = fit_weighted_mle(S, N, 8, lam, BTL)
    assert fit.converged
    sd = _sandwich_sd(theta, L, eps)
    # the ridge bias 2 lam theta / curvature is ~1e-5 here, far below sd
    assert np.all(np.abs(fit.theta - theta) <= 5 * sd)
    assert np.abs(fit.theta - theta).max() < 0.05


def test_default_lambda():
    assert default_lambda(200, 0.5) == pytest.approx(0.01)
    assert default_lambda(200, 0.5, c=3) == pytest.approx(0.03)
    with pytest.raises(ValueError):
        default_lambda(0, 0.5)


def test_plugin_statistics():
    rng = np.random.default_rng(8)
    theta = np.array([0.5, 0.0, -0.5])
    eps = np.array([1.0, 2.0, 0.5, 3.0])
    y, a = sample_user_comparisons_b(theta, 4, 0.7, rng)
    yt = randomized_response(y, eps, rng)
    S, N = classic_rr_plugin_statistics(yt, a)
    np.testing.assert_allclose(S, (a * yt).sum(axis=0) / 4)
    np.testing.assert_allclose(N, a.sum(axis=0) / 4)
    S2, _ = classic_rr_plugin_statistics(yt[:2], a[:2], L=4)  # one chunk of 4 users
    np.testing.assert_allclose(S2, (a[:2] * yt[:2]).sum(axis=0) / 4)
    yl = y + rng.laplace(0, 1 / eps[:, None], y.shape)
    Sl, Nl = laplace_plugin_statistics(yl, a)
    np.testing.assert_allclose(Sl, (a * yl).sum(axis=0) / 4)
    np.testing.assert_allclose(Nl, N)
    # ADRR with equal budgets is the plain (B1) debiased mean
    np.testing.assert_allclose(adrr_weights(np.full(4, 1.3)), 0.25)


def test_noisy_obj_calibration_and_fit():
    gamma, sigma = noisy_obj_calibration(1.0, 1e-6)
    assert gamma == pytest.approx(1.0)
    assert sigma**2 == pytest.approx(2 * (8 * math.log(2e6) + 4))
    gamma, sigma = noisy_obj_calibration(0.5, 1e-6)
    assert gamma == pytest.approx(2.0)
    assert sigma**2 == pytest.approx(2 * (8 * math.log(2e6) + 2) / 0.25)

    rng = np.random.default_rng(12)
    theta = np.linspace(1, -1, 10)
    y, a = sample_user_comparisons_b(theta, 300, 0.5, rng)
    wins, n_obs = sufficient_statistics(y, a, 1.0)
    eps = np.array([0.7, 1.5, 0.4])
    fit = noisy_obj_fit(wins, n_obs, 10, eps, np.random.default_rng(5))
    assert fit.converged
    assert abs(fit.theta.sum()) <= 1e-10  # centred output
    # by hand: min eps, gamma/2 ridge, w ~ N(0, sigma^2) from the same stream
    g, s = noisy_obj_calibration(0.4, 1e-6)
    w = np.random.default_rng(5).normal(0, s, 10)
    ref = fit_weighted_mle(wins, n_obs, 10, g / 2, BTL, b=w).theta
    np.testing.assert_allclose(fit.theta, ref - ref.mean(), atol=1e-9)
    # the linear term enters the objective as b^T theta
    np.testing.assert_allclose(
        _reference(wins, n_obs, 10, g / 2, BTL, b=w), ref, atol=1e-5 * np.abs(ref).max()
    )


def test_hessian_min_nonzero_eigenvalue():
    rng = np.random.default_rng(21)
    m = 7
    theta = np.linspace(0, 1, m)
    iu, ju = np.triu_indices(m, 1)
    N = rng.uniform(0.5, 1, iu.size)
    # BTL: the second-smallest eigenvalue of the weighted Laplacian (the smallest is 0 on 1)
    S = rng.uniform(0, 1, iu.size) * N
    f = special.expit(theta[iu] - theta[ju])
    H = np.zeros((m, m))
    for k, (i, j) in enumerate(zip(iu, ju, strict=True)):
        x = np.zeros(m)
        x[i], x[j] = 1, -1
        H += N[k] * f[k] * (1 - f[k]) * np.outer(x, x)
    ev = np.linalg.eigvalsh(H)
    assert ev[0] == pytest.approx(0, abs=1e-12)
    assert hessian_min_nonzero_eigenvalue(S, N, theta, m, BTL) == pytest.approx(ev[1], rel=1e-10)
    # TM with strongly negative S: an edge weight is negative and so can be the value
    S_neg = S.copy()
    S_neg[:] = -3.0
    val = hessian_min_nonzero_eigenvalue(S_neg, N, theta, m, THURSTONE)
    assert val < 0
    # brute force on 1^perp: minimise the Rayleigh quotient over centred vectors
    d = theta[iu] - theta[ju]
    g = lambda x: np.exp(stats.norm.logpdf(x) - stats.norm.logcdf(x))  # noqa: E731
    h = S_neg * g(d) * (d + g(d)) + (N - S_neg) * g(-d) * (g(-d) - d)
    Ht = np.zeros((m, m))
    for k, (i, j) in enumerate(zip(iu, ju, strict=True)):
        x = np.zeros(m)
        x[i], x[j] = 1, -1
        Ht += h[k] * np.outer(x, x)
    P = np.eye(m) - 1 / m
    evp = np.linalg.eigvalsh(P @ Ht @ P + 1e6 * np.ones((m, m)) / m)
    assert val == pytest.approx(evp[0], rel=1e-8)


def _scenario_i(link, m, L, R, seed):
    rng = np.random.default_rng(seed)
    errs = []
    for _ in range(R):
        theta = rng.uniform(-1, 1, m)
        theta -= theta.mean()
        eps = rng.uniform(1, 5, L)
        S, N = simulate_ldp_statistics(theta, eps, 0.5, rng, link=link).adrr
        fit = fit_weighted_mle(S, N, m, default_lambda(L, privacy_constant(eps)), link)
        assert fit.converged
        errs.append(np.sqrt(np.mean((fit.theta - theta) ** 2)))
    return np.array(errs)


@pytest.mark.parametrize(
    ("link", "paper_mean", "paper_sd"), [(BTL, 0.0551, 0.0091), (THURSTONE, 0.0376, 0.0064)]
)
def test_scenario_i_smoke(link, paper_mean, paper_sd):
    """B2 Table 5 cell (m, L) = (20, 200), eps_l ~ U(1, 5), p = 0.5, lambda = 1/(L B).

    Tolerance: 5 SE of a 40-replicate mean (paper SD) plus 10% for the known
    gap between an independent re-implementation and the paper (docs/papers/paper-b.md#checks:
    0.0545 vs 0.0551 BTL, 0.0360 vs 0.0376 TM).
    """
    errs = _scenario_i(link, 20, 200, 40, seed=2025)
    assert abs(errs.mean() - paper_mean) <= 5 * paper_sd / math.sqrt(40) + 0.1 * paper_mean


def test_scenario_v_smoke_btl():
    """B2 Scenario V (Table 10, BTL) with the checked values of docs/papers/paper-b.md#checks.

    L ~ U{150..400}, m ~ U{10..30}, eps_l ~ U(0.2, 2), p = 0.5; 40 replicates.
    Tolerance: 5 SE (SD = paper SE * sqrt(200)) plus 10% of the checked value.
    """
    rng = np.random.default_rng(31)
    R = 40
    out = {k: [] for k in ("adrr", "noisy", "laplace", "classic_rr")}
    for _ in range(R):
        L, m = int(rng.integers(150, 401)), int(rng.integers(10, 31))
        theta = rng.uniform(-1, 1, m)
        theta -= theta.mean()
        eps = rng.uniform(0.2, 2, L)
        st = simulate_ldp_statistics(
            theta, eps, 0.5, rng, releases=("adrr", "classic_rr", "laplace", "raw")
        )
        lam = default_lambda(L, privacy_constant(eps))
        for k in ("adrr", "laplace", "classic_rr"):
            fit = fit_weighted_mle(*getattr(st, k), m, lam, BTL)
            assert fit.converged
            out[k].append(np.sqrt(np.mean((fit.theta - theta) ** 2)))
        fit = noisy_obj_fit(*st.raw, m, eps, rng)
        assert fit.converged
        out["noisy"].append(np.sqrt(np.mean((fit.theta - theta) ** 2)))
    spec = {"adrr": 0.083, "noisy": 0.154, "laplace": 0.205, "classic_rr": 0.317}
    sd = {"adrr": 0.027, "noisy": 0.064, "laplace": 0.081, "classic_rr": 0.017}
    means = {k: float(np.mean(v)) for k, v in out.items()}
    for k, v in spec.items():
        assert abs(means[k] - v) <= 5 * sd[k] / math.sqrt(R) + 0.1 * v, (k, means[k])
    assert means["adrr"] < means["noisy"] < means["laplace"] < means["classic_rr"]
