"""Mixed-effects BTL fit of B2 supplement S.1.2 (Table 3).

The reference solution is an independent L-BFGS-B fit of the objective written
from its definition; the statistical check uses a fixed seed and the error
sizes of B2 Table 3 with generous margins.
"""

import numpy as np
import pytest
from scipy import optimize

from dprank.fit.mixed_effects import (
    MixedEffectsFit,
    _mixed_effects_gradient,
    _Problem,
    fit_mixed_effects_btl,
    mixed_effects_objective,
    simulate_mixed_effects_btl,
)


def _problem(m, L, sigma, p, seed):
    rng = np.random.default_rng(seed)
    theta = rng.uniform(-1, 1, m)
    theta -= theta.mean()
    gamma, y, a = simulate_mixed_effects_btl(theta, L, sigma, p, rng)
    return theta, gamma, y, a


def _reference_objective(x, y, a, m, lam, ridge):
    """Q written from its definition, with explicit loops over users and pairs."""
    L = y.shape[0]
    theta, gamma = x[:m], x[m:]
    pairs = list(zip(*np.triu_indices(m, 1), strict=True))
    total = lam * theta @ theta + ridge * gamma @ gamma
    for u in range(L):
        for p, (i, j) in enumerate(pairs):
            if a[u, p]:
                eta = gamma[u] + theta[i] - theta[j]
                prob = 1.0 / (1.0 + np.exp(-eta))
                total -= y[u, p] * np.log(prob) + (1 - y[u, p]) * np.log1p(-prob)
    return total


def test_simulation_shapes_and_draw_order():
    m, L, sigma, p = 6, 7, 0.8, 0.6
    theta = np.linspace(-1, 1, m)
    gamma, y, a = simulate_mixed_effects_btl(theta, L, sigma, p, np.random.default_rng(3))
    P = m * (m - 1) // 2
    assert gamma.shape == (L,) and y.shape == (L, P) and a.shape == (L, P)
    assert y.dtype == np.uint8 and a.dtype == np.bool_
    # the documented stream: gamma, then mask uniforms, then answer uniforms
    rng = np.random.default_rng(3)
    g = rng.normal(0, sigma, L)
    u_a = rng.random((L, P))
    u_y = rng.random((L, P))
    iu, ju = np.triu_indices(m, 1)
    eta = g[:, None] + theta[iu] - theta[ju]
    np.testing.assert_array_equal(gamma, g)
    np.testing.assert_array_equal(a, u_a < p)
    np.testing.assert_array_equal(y, (u_y < 1 / (1 + np.exp(-eta))).astype(np.uint8))
    # p == 1 still consumes the mask uniforms
    _, y1, a1 = simulate_mixed_effects_btl(theta, L, sigma, 1.0, np.random.default_rng(3))
    assert a1.all()
    np.testing.assert_array_equal(y1, y)


def test_objective_matches_definition():
    m, L = 5, 4
    _, _, y, a = _problem(m, L, 1.0, 0.7, seed=11)
    rng = np.random.default_rng(12)
    x = rng.normal(size=m + L)
    lam, ridge = 0.7, 0.3
    got = mixed_effects_objective(x[:m], x[m:], y, a, lam=lam, ridge=ridge)
    assert got == pytest.approx(_reference_objective(x, y, a, m, lam, ridge), rel=1e-12)
    full = np.ones_like(a)
    assert mixed_effects_objective(x[:m], x[m:], y, None, lam, ridge) == pytest.approx(
        _reference_objective(x, y, full, m, lam, ridge), rel=1e-12
    )


def test_gradient_matches_finite_differences():
    m, L = 5, 6
    _, _, y, a = _problem(m, L, 1.0, 0.8, seed=5)
    rng = np.random.default_rng(6)
    theta, gamma = rng.normal(size=m), rng.normal(size=L)
    lam, ridge = 1.3, 0.4
    g_theta, g_gamma = _mixed_effects_gradient(theta, gamma, y, a, lam, ridge)
    x0 = np.concatenate([theta, gamma])

    def f(x):
        return mixed_effects_objective(x[:m], x[m:], y, a, lam, ridge)

    h = 1e-6
    fd = np.array([(f(x0 + h * e) - f(x0 - h * e)) / (2 * h) for e in np.eye(m + L)])
    np.testing.assert_allclose(np.concatenate([g_theta, g_gamma]), fd, rtol=1e-6, atol=1e-6)


def test_schur_newton_step_matches_dense_solve():
    m, L = 5, 7
    _, _, y, a = _problem(m, L, 1.0, 0.8, seed=15)
    a = a.copy()
    a[3] = False  # a user with no observation: its gamma block is 2 * ridge only
    lam, ridge = 0.9, 0.25
    prob = _Problem(y, a, m, lam, ridge)
    rng = np.random.default_rng(16)
    theta, gamma = rng.normal(size=m), rng.normal(size=L)
    g_theta, g_gamma, w = prob.derivatives(theta, gamma)
    dt, dg = prob.newton_step(g_theta, g_gamma, w)

    def grad(x):
        return np.concatenate(prob.gradient(x[:m], x[m:]))

    x0 = np.concatenate([theta, gamma])
    h = 1e-6
    H = np.array([(grad(x0 + h * e) - grad(x0 - h * e)) / (2 * h) for e in np.eye(m + L)])
    H = (H + H.T) / 2
    dense = np.linalg.solve(H, -np.concatenate([g_theta, g_gamma]))
    np.testing.assert_allclose(np.concatenate([dt, dg]), dense, rtol=1e-5, atol=1e-7)


def test_fit_is_stationary_and_converged():
    m, L = 8, 30
    _, _, y, a = _problem(m, L, 1.0, 0.7, seed=21)
    fit = fit_mixed_effects_btl(y, a, m)
    assert isinstance(fit, MixedEffectsFit)
    assert fit.converged
    assert fit.n_iter <= 12  # Newton: quadratic convergence from 0
    assert fit.grad_norm < 1e-6
    g_theta, g_gamma = _mixed_effects_gradient(fit.theta, fit.gamma, y, a)
    assert max(np.abs(g_theta).max(), np.abs(g_gamma).max()) < 1e-6
    assert fit.objective == pytest.approx(mixed_effects_objective(fit.theta, fit.gamma, y, a))
    assert fit.sigma_hat == pytest.approx(np.std(fit.gamma, ddof=1))


def test_newton_matches_lbfgs():
    m, L = 5, 8
    lam, ridge = 1.0, 1e-2
    _, _, y, a = _problem(m, L, 1.0, 0.8, seed=2)
    fit = fit_mixed_effects_btl(y, a, m, lam=lam, ridge=ridge)

    def fun(x):
        g_theta, g_gamma = _mixed_effects_gradient(x[:m], x[m:], y, a, lam, ridge)
        return _reference_objective(x, y, a, m, lam, ridge), np.concatenate([g_theta, g_gamma])

    res = optimize.minimize(
        fun,
        np.zeros(m + L),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-12, "ftol": 1e-16, "maxiter": 10_000},
    )
    np.testing.assert_allclose(fit.theta, res.x[:m], atol=1e-5)
    np.testing.assert_allclose(fit.gamma, res.x[m:], atol=1e-5)
    assert fit.objective <= res.fun + 1e-9


def test_consistency_table3_setting():
    # B2 Table 3 at (m, L) = (20, 200) reports errors about 0.038 (theta) and 0.045 (sigma)
    m, L = 20, 200
    theta, _, y, a = _problem(m, L, 1.0, 1.0, seed=2024)
    fit = fit_mixed_effects_btl(y, a, m)
    assert fit.converged
    assert np.sqrt(np.mean((fit.theta - theta) ** 2)) < 0.08
    assert abs(fit.sigma_hat - 1.0) < 0.2


def test_theta_sums_to_zero():
    m, L = 7, 12
    _, _, y, a = _problem(m, L, 1.5, 0.5, seed=8)
    fit = fit_mixed_effects_btl(y, a, m)
    assert fit.converged
    assert abs(fit.theta.sum()) < 1e-9
    # it is the theta penalty that pins the mean, whatever the ridge on gamma
    fit0 = fit_mixed_effects_btl(y, a, m, lam=0.2, ridge=0.0)
    assert abs(fit0.theta.sum()) < 1e-9


def test_degenerate_users_stay_finite():
    m, L = 6, 10
    _, _, y, a = _problem(m, L, 1.0, 1.0, seed=4)
    y = y.copy()
    y[0] = 1  # a user who prefers the first item of every pair
    y[1] = 0  # and one who never does
    fit = fit_mixed_effects_btl(y, a, m)
    assert np.all(np.isfinite(fit.theta)) and np.all(np.isfinite(fit.gamma))
    assert np.isfinite(fit.sigma_hat) and np.isfinite(fit.objective)
    assert fit.converged
    assert fit.gamma[0] > 5 and fit.gamma[1] < -5
    assert np.all(np.abs(fit.gamma[2:]) < 5)
    # the ridge is what holds them: without it they climb further (until gtol stops them)
    fit0 = fit_mixed_effects_btl(y, a, m, ridge=0.0)
    assert fit0.gamma[0] > fit.gamma[0] + 3 and fit0.gamma[1] < fit.gamma[1] - 3


def test_user_without_observations():
    m, L = 5, 6
    _, _, y, a = _problem(m, L, 1.0, 0.9, seed=9)
    a = a.copy()
    a[2] = False
    for ridge in (1e-6, 0.0):
        fit = fit_mixed_effects_btl(y, a, m, ridge=ridge)
        assert fit.converged
        assert fit.gamma[2] == 0.0


def test_reproducible():
    m, L = 10, 40
    t1, g1, y1, a1 = _problem(m, L, 1.0, 0.6, seed=77)
    t2, g2, y2, a2 = _problem(m, L, 1.0, 0.6, seed=77)
    for u, v in [(t1, t2), (g1, g2), (y1, y2), (a1, a2)]:
        np.testing.assert_array_equal(u, v)
    f1 = fit_mixed_effects_btl(y1, a1, m)
    f2 = fit_mixed_effects_btl(y2, a2, m)
    np.testing.assert_array_equal(f1.theta, f2.theta)
    np.testing.assert_array_equal(f1.gamma, f2.gamma)
    assert f1.sigma_hat == f2.sigma_hat
    _, g3, _, _ = _problem(m, L, 1.0, 0.6, seed=78)
    assert not np.array_equal(g1, g3)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"m": 5}, "columns"),
        ({"lam": 0.0}, "lam"),
        ({"ridge": -1.0}, "ridge"),
        ({"a": np.ones((4, 3), dtype=bool)}, "shape of y"),
        ({"y": np.ones((1, 6), dtype=np.uint8), "a": None}, "L >= 2"),
        ({"y": np.full((4, 6), 2), "a": None}, "0 and 1"),
        ({"y": np.ones(6)}, "2-d"),
        ({"gtol": 0.0}, "gtol"),
    ],
)
def test_validation(kwargs, match):
    args = {"y": np.ones((4, 6), dtype=np.uint8), "a": np.ones((4, 6), dtype=bool), "m": 4}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        fit_mixed_effects_btl(**args)


def test_objective_validation():
    y = np.ones((3, 3), dtype=np.uint8)
    with pytest.raises(ValueError, match="gamma"):
        mixed_effects_objective(np.zeros(3), np.zeros(2), y, None)
    with pytest.raises(ValueError, match="p must"):
        simulate_mixed_effects_btl(np.zeros(3), 5, 1.0, 1.5, np.random.default_rng(0))
