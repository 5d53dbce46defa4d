"""Algorithm 1: the perturbed, penalised MLE (Paper A, eq. (2.2))."""

import numpy as np
import pytest
from scipy import optimize, stats

from dprank.data.models import BTL, THURSTONE
from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge
from dprank.fit.mle import PairwiseData, fit_penalized_mle, penalized_objective


def _data(n, p, seed):
    rng = np.random.default_rng(seed)
    theta = theta_paper_a_edge(n, rng)
    return theta, sample_er_comparisons(theta, p, rng)


def _reference_fit(wins, gamma, b, cdf, sum_zero=False):
    """Independent reference: L-BFGS on the comparison list, numerical-safe loss."""
    i, j = np.nonzero(wins)
    c = wins[i, j].astype(float)
    n = wins.shape[0]

    def f(theta):
        x = theta[i] - theta[j]
        if cdf == "logistic":
            loss = np.logaddexp(0, -x)
            d1 = -1 / (1 + np.exp(x))
        else:
            loss = -stats.norm.logcdf(x)
            d1 = -np.exp(stats.norm.logpdf(x) - stats.norm.logcdf(x))
        g = np.bincount(i, c * d1, n) - np.bincount(j, c * d1, n) + gamma * theta + b
        return float(c @ loss + 0.5 * gamma * theta @ theta + b @ theta), g

    x0 = np.zeros(n)
    cons = () if not sum_zero else None
    if sum_zero:
        # optimise over the first n-1 coordinates, theta_n = -sum(rest)
        def fz(z):
            theta = np.append(z, -z.sum())
            v, g = f(theta)
            return v, g[:-1] - g[-1]

        res = optimize.minimize(
            fz,
            x0[:-1],
            jac=True,
            method="L-BFGS-B",
            options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10_000},
        )
        return np.append(res.x, -res.x.sum())
    del cons
    res = optimize.minimize(
        f,
        x0,
        jac=True,
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-11, "maxiter": 10_000},
    )
    return res.x


@pytest.mark.parametrize(("n", "p"), [(20, 1.0), (30, 0.4), (100, 1.0), (120, 0.3)])
def test_btl_fit_matches_reference(n, p):
    _, wins = _data(n, p, seed=n)
    gamma = 2 * np.sqrt(n * p * np.log(n))
    b = (8 / 1.0) * np.random.default_rng(1).laplace(size=n)
    fit = fit_penalized_mle(wins, gamma, b)
    assert fit.converged and fit.n_iter < 20
    ref = _reference_fit(wins, gamma, b, "logistic")
    np.testing.assert_allclose(fit.theta, ref, atol=1e-6)
    assert (
        penalized_objective(fit.theta, wins, gamma, b)
        <= penalized_objective(ref, wins, gamma, b) + 1e-9
    )


def test_thurstone_fit_matches_reference():
    _, wins = _data(25, 0.6, seed=3)
    b = np.random.default_rng(2).laplace(size=25)
    fit = fit_penalized_mle(wins, 1.5, b, link=THURSTONE)
    assert fit.converged
    np.testing.assert_allclose(fit.theta, _reference_fit(wins, 1.5, b, "probit"), atol=1e-6)


def test_sum_zero_without_ridge():
    _, wins = _data(15, 1.0, seed=4)
    fit = fit_penalized_mle(wins, 0.0, sum_zero=True)
    assert fit.converged
    assert abs(fit.theta.sum()) < 1e-10
    np.testing.assert_allclose(
        fit.theta, _reference_fit(wins, 0.0, np.zeros(15), "logistic", True), atol=1e-6
    )
    with pytest.raises(ValueError, match="sum_zero"):
        fit_penalized_mle(wins, 0.0)


def test_warm_start_and_reused_statistics_give_the_same_solution():
    _, wins = _data(80, 0.5, seed=5)
    data = PairwiseData(wins)
    gamma = 2 * np.sqrt(80 * 0.5 * np.log(80))
    b = np.random.default_rng(0).laplace(size=80)
    cold = fit_penalized_mle(data, gamma, b)
    warm = fit_penalized_mle(data, gamma, b, theta0=cold.theta + 0.3)
    np.testing.assert_allclose(warm.theta, cold.theta, atol=1e-9)


def test_zero_perturbation_mle_is_consistent():
    # statistical check: with many comparisons the penalised MLE is close to theta
    rng = np.random.default_rng(11)
    n = 40
    theta = theta_paper_a_edge(n, rng)
    wins = sum(sample_er_comparisons(theta, 1.0, rng).astype(float) for _ in range(400))
    fit = fit_penalized_mle(wins, 1e-3)
    err = fit.theta - fit.theta.mean() - theta
    # sd of each coordinate ~ 1/sqrt(n * 400 * 0.22) = 0.017; 5 sd
    assert np.max(np.abs(err)) < 5 * 0.017


def test_non_convergence_is_reported_not_hidden():
    _, wins = _data(30, 1.0, seed=6)
    fit = fit_penalized_mle(
        wins, 1.0, np.full(30, 50.0) * np.sign(np.arange(30) - 14.5), max_iter=1
    )
    assert not fit.converged
    with pytest.raises(RuntimeError, match="did not converge"):
        fit_penalized_mle(wins, 1.0, max_iter=1, raise_on_failure=True)


@pytest.mark.parametrize(
    ("wins", "message"),
    [
        (np.ones((3, 4)), "square"),
        (-np.ones((3, 3)), "non-negative"),
        (np.full((3, 3), np.nan), "finite"),
    ],
)
def test_bad_input_is_rejected(wins, message):
    with pytest.raises(ValueError, match=message):
        fit_penalized_mle(wins, 1.0)


def test_bad_perturbation_and_gamma_are_rejected():
    wins = np.ones((4, 4)) - np.eye(4)
    with pytest.raises(ValueError, match="shape"):
        fit_penalized_mle(wins, 1.0, np.zeros(3))
    with pytest.raises(ValueError, match="gamma"):
        fit_penalized_mle(wins, -1.0)
    assert BTL.kappa1 == 1.0 and BTL.kappa2 == 0.25


def test_direct_lapack_cholesky_matches_scipy_bit_for_bit():
    """dprank.base._lapack makes scipy's cho_factor/cho_solve LAPACK calls without the wrappers."""
    import scipy.linalg

    from dprank.base._lapack import cholesky_factor, cholesky_solve

    rng = np.random.default_rng(11)
    for m in (1, 5, 40, 160):
        a = rng.normal(size=(m, m))
        h = a @ a.T + m * np.eye(m)
        b = rng.normal(size=m)
        ours = cholesky_solve(cholesky_factor(h), b)
        theirs = scipy.linalg.cho_solve(
            scipy.linalg.cho_factor(h, lower=True, check_finite=False), b, check_finite=False
        )
        np.testing.assert_array_equal(ours, theirs)
    with pytest.raises(scipy.linalg.LinAlgError, match="not positive definite"):
        cholesky_factor(-np.eye(3))
