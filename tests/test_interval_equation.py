"""The intervals' score equation on the library's objective and shared Newton-CG (issue 45)."""

import numpy as np
import pytest
import scipy.optimize
import scipy.special

from dprank.data.comparisons import PairStatistics
from dprank.data.models import BTL, THURSTONE
from dprank.fit.sparse import SparseData
from dprank.intervals._interval_equation import Equation, dense_laplacian
from dprank.objective import SparseObjective, moment_link


def _pairs(n=30, p=0.4, seed=0):
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(n, 1)
    keep = rng.random(a.size) < p
    a, b = a[keep], b[keep]
    return a, b, rng.integers(1, 12, a.size).astype(float)


def test_moment_link_is_btl_itself_and_the_probit_potential():
    assert moment_link(BTL) is BTL
    link = moment_link(THURSTONE)
    x = np.linspace(-7.0, 7.0, 57)
    d1, d2 = link.loss_derivatives(x)
    np.testing.assert_allclose(d1, -scipy.special.ndtr(-x), atol=1e-15)
    np.testing.assert_allclose(d2, np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi), atol=1e-15)
    h = 1e-5  # the loss's derivative is its first derivative (central differences)
    fd = (link.loss(x + h) - link.loss(x - h)) / (2 * h)
    np.testing.assert_allclose(fd, d1, atol=1e-8)
    with pytest.raises(TypeError):
        moment_link("tm")


@pytest.mark.parametrize("link", [BTL, THURSTONE], ids=["btl", "tm"])
def test_the_objective_gradient_is_the_moment_equation(link):
    n = 30
    a, b, N = _pairs(n)
    rng = np.random.default_rng(1)
    t, target = rng.normal(0, 1.5, n), rng.uniform(5, 50, n)
    eq = Equation(n, a, b, N, link, 0.7)
    data = SparseData(PairStatistics(n, a, b, N, np.zeros(N.size)), moment_link(link))
    beta = np.bincount(b, N, n) - target
    grad, _, _ = SparseObjective(data, 0.7, beta, False).evaluate(t)
    np.testing.assert_allclose(grad, eq.expected_wins(t) + 0.7 * t - target, atol=1e-9)


@pytest.mark.parametrize("link", [BTL, THURSTONE], ids=["btl", "tm"])
def test_solve_matches_an_independent_root_finder(link):
    n = 25
    a, b, N = _pairs(n, p=0.5, seed=3)
    theta = np.random.default_rng(4).uniform(-2.0, 2.0, n)
    eq = Equation(n, a, b, N, link, 0.3)
    deg = np.bincount(a, N, n) + np.bincount(b, N, n)
    target = np.clip(eq.expected_wins(theta) + np.random.default_rng(5).normal(0, 2, n), 1, deg - 1)
    t = eq.solve(target)
    np.testing.assert_allclose(eq.expected_wins(t) + 0.3 * t, target, atol=1e-7)
    ref = scipy.optimize.root(lambda x: eq.expected_wins(x) + 0.3 * x - target, np.zeros(n))
    assert ref.success
    np.testing.assert_allclose(t, ref.x, atol=1e-7)


def test_solve_needs_a_ridge():
    a, b, N = _pairs(8, p=1.0)
    with pytest.raises(ValueError, match="ridge"):
        Equation(8, a, b, N, THURSTONE, 0.0).solve(np.full(8, 3.0))


def test_solve_hessian_from_a_start_solves_the_same_system():
    n = 2500  # above DENSE_MAX: the conjugate gradients
    rng = np.random.default_rng(7)
    a = rng.integers(0, n, 20_000)
    b = (a + rng.integers(1, n, a.size)) % n
    a, b = np.minimum(a, b), np.maximum(a, b)
    eq = Equation(n, a, b, np.ones(a.size), BTL, 0.05)
    v = rng.uniform(0.05, 0.25, a.size)
    rhs = rng.normal(0, 1, n)
    cold = eq.solve_hessian(v, rhs)
    warm = eq.solve_hessian(v, rhs, x0=cold + rng.normal(0, 1e-3, n))
    assert not np.array_equal(warm, cold)
    scale = float(np.max(np.abs(cold)))
    np.testing.assert_allclose(warm, cold, rtol=0, atol=1e-6 * scale)


@pytest.mark.parametrize("order", ["sorted", "unsorted"])
def test_solve_hessian_above_dense_max_is_the_dense_solution(order):
    """Above DENSE_MAX the conjugate gradients (compiled where the pairs come sorted by their
    first item, numpy otherwise) solve (L(v) + rho I) x = rhs as the dense solver does, from
    zero and from a start."""
    n = 2500
    rng = np.random.default_rng(11)
    a = rng.integers(0, n, 20_000)
    b = (a + rng.integers(1, n, a.size)) % n
    a, b = np.minimum(a, b), np.maximum(a, b)
    if order == "sorted":
        key = np.unique(a * n + b)
        a, b = key // n, key % n
    eq = Equation(n, a, b, rng.integers(1, 4, a.size).astype(np.float64), BTL, 0.05)
    assert (eq._rows is not None) == (order == "sorted")
    v = rng.uniform(0.0, 0.25, a.size)
    rhs = rng.normal(0, 1, n)
    exact = np.linalg.solve(dense_laplacian(n, a, b, v, 0.05), rhs)
    scale = float(np.max(np.abs(exact)))
    for x0 in (None, exact + rng.normal(0, 1e-2, n)):
        x = eq.solve_hessian(v, rhs, x0=x0)
        np.testing.assert_allclose(x, exact, rtol=0, atol=1e-6 * scale)
