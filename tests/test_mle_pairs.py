"""The pair-list path of the penalised MLE (objective.PairObjective) against the n x n Newton."""

import numpy as np
import pytest

from dprank.data.comparisons import Comparisons
from dprank.data.models import BTL, THURSTONE
from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge
from dprank.fit import mle
from dprank.fit.mle import PairwiseData, fit_penalized_mle, penalized_objective
from dprank.fit.sparse import DisconnectedGraphError, SparseData
from dprank.objective import DenseObjective, PairObjective, cells_of_wins, edge_ridge


def _design(n, p, seed, repeat=1):
    rng = np.random.default_rng(seed)
    theta = theta_paper_a_edge(n, rng)
    wins = sum(sample_er_comparisons(theta, p, rng).astype(float) for _ in range(repeat))
    return wins, rng


def _agree(wins, gamma, b, **kw):
    """Fit both ways; the solutions agree and the pairs' objective is at least as low."""
    dense = fit_penalized_mle(wins, gamma, b, solver="dense", **kw)
    pairs = fit_penalized_mle(wins, gamma, b, solver="pairs", **kw)
    assert dense.converged and pairs.converged
    np.testing.assert_allclose(pairs.theta, dense.theta, rtol=0, atol=1e-9)
    if not kw.get("sum_zero") or gamma > 0:
        f_dense = penalized_objective(dense.theta, wins, gamma, b)
        f_pairs = penalized_objective(pairs.theta, wins, gamma, b)
        assert f_pairs <= f_dense + 1e-12 * abs(f_dense)
    return dense, pairs


@pytest.mark.parametrize(
    ("n", "p", "repeat", "seed"),
    [(80, 0.2, 1, 1), (150, 0.25, 1, 2), (120, 0.45, 3, 3), (70, 1.0, 2, 4)],
)
def test_pairs_path_matches_the_dense_newton(n, p, repeat, seed):
    wins, rng = _design(n, p, seed, repeat)
    for gamma in (edge_ridge(n, p), 0.5):
        for b in (None, 8.0 * rng.laplace(size=n)):
            _agree(wins, gamma, b)


def test_pairs_path_with_sum_zero_warm_start_and_reused_data():
    wins, rng = _design(100, 0.3, 5, repeat=4)
    b = 3.0 * rng.laplace(size=100)
    dense, _ = _agree(wins, 0.0, None, sum_zero=True)
    assert abs(dense.theta.sum()) < 1e-9
    _agree(wins, 1.5, b, sum_zero=True)
    start = fit_penalized_mle(wins, 1.5, b, solver="dense").theta + 0.1
    _agree(wins, 1.5, b, theta0=start)
    data = PairwiseData(wins)
    first = fit_penalized_mle(data, 1.5, b, solver="pairs")
    again = fit_penalized_mle(data, 1.5, b, solver="pairs", theta0=first.theta)
    assert again.converged and again.n_iter <= 2
    np.testing.assert_allclose(again.theta, first.theta, rtol=0, atol=1e-12)


def test_items_without_comparisons_and_the_diagonal_are_handled():
    wins, rng = _design(90, 0.3, 6)
    wins[7, :] = 0
    wins[:, 7] = 0  # item 7 compared with nobody
    wins[3, 3] = 5  # the diagonal is ignored
    b = rng.laplace(size=90)
    _, pairs = _agree(wins, 2.0, b)
    # an item without comparisons sits at the minimiser of its own terms, -b / gamma
    assert pairs.theta[7] == pytest.approx(-b[7] / 2.0, abs=1e-12)


def test_auto_routes_by_size_density_and_link():
    sparse_wins, _ = _design(150, 0.25, 7)
    dense_wins, _ = _design(150, 1.0, 8)
    small_wins, _ = _design(40, 0.25, 9)
    for wins, path in ((dense_wins, "dense"), (small_wins, "dense")):
        auto = fit_penalized_mle(wins, 3.0)
        chosen = fit_penalized_mle(wins, 3.0, solver=path)
        np.testing.assert_array_equal(auto.theta, chosen.theta)
    prob, _ = mle._objective(sparse_wins, 3.0, None, THURSTONE, None, False, "auto")
    assert isinstance(prob, DenseObjective)
    # gamma = 0 keeps the pair list (its connectivity check and message)
    prob, _ = mle._objective(sparse_wins, 0.0, None, BTL, None, True, "auto")
    assert isinstance(prob, PairObjective)


def test_auto_takes_the_compiled_sparse_newton_on_a_sparse_matrix():
    wins, rng = _design(150, 0.25, 7)
    route = mle._objective(wins, 3.0, None, BTL, None, False, "auto")
    assert isinstance(route, SparseData)
    stats = Comparisons.from_wins(wins).pair_statistics()
    for name, field in (("a", "a"), ("b", "b"), ("cnt", "n"), ("w", "w")):
        np.testing.assert_array_equal(getattr(route, name), getattr(stats, field))
    auto = fit_penalized_mle(wins, 3.0)
    np.testing.assert_array_equal(auto.theta, fit_penalized_mle(route, 3.0, solver="sparse").theta)
    # the same minimiser as the n x n Newton, the objective at least as low
    b = 5.0 * rng.laplace(size=150)
    wins[9, :] = 0
    wins[:, 9] = 0  # an item compared with nobody
    for kw in ({}, {"sum_zero": True}, {"theta0": np.full(150, 0.3)}):
        dense = fit_penalized_mle(wins, 2.0, b, solver="dense", **kw)
        auto = fit_penalized_mle(PairwiseData(wins), 2.0, b, **kw)
        assert auto.converged
        np.testing.assert_allclose(auto.theta, dense.theta, rtol=0, atol=1e-9)
        f_dense = penalized_objective(dense.theta, wins, 2.0, b)
        assert penalized_objective(auto.theta, wins, 2.0, b) <= f_dense + 1e-12 * abs(f_dense)


def test_edge_lists_take_the_pairs_path_on_request():
    rng = np.random.default_rng(10)
    n, m = 120, 3000
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    outcome = rng.random(m) < 0.5
    winner, loser = np.where(outcome, a, b), np.where(outcome, b, a)
    comps = Comparisons.from_winner_loser(winner, loser, n_items=n)
    ref = fit_penalized_mle(comps.to_wins(), 2.0, solver="dense")
    for solver in ("pairs", "dense", "sparse", "auto"):
        fit = fit_penalized_mle(comps, 2.0, solver=solver)
        assert fit.converged
        np.testing.assert_allclose(fit.theta, ref.theta, rtol=0, atol=1e-8)


def test_objective_pieces_match_the_dense_objective():
    wins, rng = _design(100, 0.3, 11, repeat=2)
    b = rng.laplace(size=100)
    data = PairwiseData(wins)
    dense = DenseObjective(data, 2.0, b, False)
    pairs = PairObjective(cells_of_wins(wins), 2.0, b, False)
    for scale in (0.5, 400.0):  # 400: exp underflows, the stable fallback
        theta = scale * rng.normal(size=100)
        assert pairs.value(theta) == pytest.approx(dense.value(theta), rel=1e-12)
        g_dense, v_dense = dense.gradient_and_weights(theta)
        g_pairs, v_pairs = pairs.gradient_and_weights(theta)
        np.testing.assert_allclose(g_pairs, g_dense, rtol=1e-10, atol=1e-9)
        np.testing.assert_allclose(v_pairs.toarray(), v_dense, rtol=1e-10, atol=1e-12)


def test_pairs_path_errors():
    wins, _ = _design(100, 0.3, 12)
    with pytest.raises(ValueError, match="solver must be one of"):
        fit_penalized_mle(wins, 1.0, solver="newton")
    with pytest.raises(ValueError, match="logistic link"):
        fit_penalized_mle(wins, 1.0, link=THURSTONE, solver="pairs")
    with pytest.raises(ValueError, match="needs an edge list"):
        fit_penalized_mle(wins, 1.0, solver="sparse")
    with pytest.raises(ValueError, match="perturbation b must have shape"):
        fit_penalized_mle(wins, 1.0, np.zeros(3), solver="pairs")
    with pytest.raises(ValueError, match="gamma = 0 needs sum_zero=True"):
        fit_penalized_mle(wins, 0.0, solver="pairs")
    split = wins.copy()
    split[:50, 50:] = 0
    split[50:, :50] = 0
    with pytest.raises(DisconnectedGraphError):
        fit_penalized_mle(split, 0.0, sum_zero=True, solver="pairs")


def test_cold_start_lowers_the_objective_by_the_ridge_bound():
    # H(theta) <= H(0) <= 2 D - gamma I, so f(-g / D) <= f(0) - (gamma / 2) |g / D|^2
    for n, p, repeat, seed in ((80, 0.3, 1, 13), (120, 0.5, 4, 14)):
        wins, rng = _design(n, p, seed, repeat)
        for gamma, b in ((0.3, None), (2.0, 8.0 * rng.laplace(size=n)), (40.0, rng.normal(size=n))):
            prob = PairObjective(cells_of_wins(wins), gamma, b, False)
            start = prob.cold_start()
            f0 = prob.value(np.zeros(n))
            assert prob.value(start) <= f0 - 0.5 * gamma * (start @ start) + 1e-9 * abs(f0)
