"""The authors' R BFGS emulation and the tie rule of the ``authors`` protocol (issue 16)."""

import numpy as np
import pytest

from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge, top_k_size
from dprank.fit.mle import PairwiseData, fit_penalized_mle, penalized_objective
from dprank.fit.ranking import top_k
from dprank_papers.grid import NewtonSettings
from dprank_papers.rbfgs import vmmin
from dprank_papers.studies.paper_a_edge.estimate import (
    authors_tie_keys,
    boundary_tie,
    estimate_chunk,
)


def test_vmmin_minimises_a_quadratic_to_reltol():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(6, 6))
    h = a @ a.T + 6 * np.eye(6)
    c = rng.normal(size=6)
    x, n_iter = vmmin(np.zeros(6), lambda x: 0.5 * x @ h @ x - c @ x, lambda x: h @ x - c)
    np.testing.assert_allclose(x, np.linalg.solve(h, c), atol=1e-4)
    assert 1 < n_iter < 100


def test_vmmin_stops_early_like_r():
    """R's reltol stop leaves a residue: BFGS is close to, not at, the exact MLE."""
    rng = np.random.default_rng(3)
    n = 60
    theta = theta_paper_a_edge(n, rng)
    wins = sample_er_comparisons(theta, 1.0, rng).astype(float)
    gamma = 2 * np.sqrt(n * np.log(n))
    exact = fit_penalized_mle(wins, gamma).theta

    def fn(t):
        return penalized_objective(t, wins, gamma)

    from dprank.objective import DenseObjective

    prob = DenseObjective(PairwiseData(wins), gamma, None, sum_zero=False)
    x, _ = vmmin(theta, fn, lambda t: prob.gradient_and_weights(t)[0])
    gap = np.abs(x - exact).max()
    assert 1e-7 < gap < 1e-2


def test_vmmin_rejects_a_non_finite_start():
    with pytest.raises(ValueError, match="not finite"):
        vmmin(np.zeros(2), lambda x: np.inf, lambda x: x)


def test_boundary_tie():
    assert boundary_tie(np.array([3.0, 1.0, 1.0, 0.0]), 2)
    assert not boundary_tie(np.array([3.0, 1.0, 1.0, 0.0]), 3)
    assert not boundary_tie(np.array([3.0, 2.0, 1.0, 0.0]), 2)


def _complete_case(seed=11, n=40):
    rng = np.random.default_rng(seed)
    theta = theta_paper_a_edge(n, rng)
    for _ in range(50):
        wins = sample_er_comparisons(theta, 1.0, rng)
        gamma = 2 * np.sqrt(n * np.log(n))
        fit = fit_penalized_mle(wins.astype(float), gamma)
        if boundary_tie(fit.theta, top_k_size(n)):
            return theta, wins, gamma, fit.theta
    pytest.skip("no boundary tie drawn")


def test_authors_protocol_orders_exact_ties_like_r_bfgs():
    theta, wins, gamma, theta_hat = _complete_case()
    n, k = theta.size, top_k_size(theta.size)
    keys = authors_tie_keys(PairwiseData(wins), theta_hat, theta, gamma, np.zeros(n), k)
    assert keys is not None
    noise = {
        "epsilon": np.array([np.inf]),
        "mle_noise": np.zeros((1, 1, n)),
        "count_noise": np.zeros((1, 1, n)),
    }
    kwargs = dict(
        cell={"n": n, "p": 1.0},
        protocol="authors",
        methods=["edge_mle"],
        c0=2.0,
        kappa2=0.25,
        solver=NewtonSettings(xtol=1e-10, max_iter=100),
    )
    emulated = estimate_chunk(wins[None], noise, truth=theta[None], **kwargs)
    stable = estimate_chunk(wins[None], noise, **kwargs)
    np.testing.assert_array_equal(emulated["topk_edge_mle"][0, 0], top_k(theta_hat, k, keys))
    np.testing.assert_array_equal(stable["topk_edge_mle"][0, 0], top_k(theta_hat, k))
    # the estimates themselves are the exact minimiser either way
    np.testing.assert_array_equal(emulated["theta_hat"], stable["theta_hat"])


def test_no_boundary_tie_means_no_r_rerun():
    theta_hat = np.array([3.0, 2.0, 1.0, 0.0])
    assert authors_tie_keys(None, theta_hat, theta_hat, 1.0, np.zeros(4), 2) is None
