"""Sparse Newton-CG (dprank.fit.sparse) against the dense solvers on random problems."""

import numpy as np
import pytest

from dprank.data.comparisons import Comparisons
from dprank.data.models import BTL, THURSTONE
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.ranking import copeland_counts, noisy_counts
from dprank.fit.sparse import DisconnectedGraphError, SparseData, sparse_newton
from dprank.fit.weighted_mle import fit_weighted_mle


def _wins(rng, n, p, spread=1.0, reps=1, blocks=1):
    theta = spread * rng.normal(size=n)
    mask = np.triu(rng.random((n, n)) < p, 1)
    if blocks > 1:
        lab = np.arange(n) * blocks // n
        mask &= lab[:, None] == lab[None, :]
    cnt = mask * reps
    prob = 1.0 / (1.0 + np.exp(-(theta[:, None] - theta[None, :])))
    w_up = rng.binomial(cnt, prob)
    return (w_up + (cnt - w_up).T).astype(float)


@pytest.mark.parametrize("link", [BTL, THURSTONE])
@pytest.mark.parametrize(("n", "p"), [(80, 0.05), (150, 0.1), (300, 0.2)])
def test_edge_dp_fit_matches_dense(link, n, p):
    rng = np.random.default_rng(n)
    wins = _wins(rng, n, p)
    gamma = 2 * np.sqrt(n * p * np.log(n))
    b = rng.laplace(scale=2.0, size=n)
    dense = fit_penalized_mle(wins, gamma, b, link=link)
    sp = fit_penalized_mle(Comparisons.from_wins(wins), gamma, b, link=link)
    assert dense.converged and sp.converged
    np.testing.assert_allclose(sp.theta, dense.theta, rtol=0, atol=1e-8)


def test_sum_zero_unpenalised_matches_dense():
    rng = np.random.default_rng(7)
    wins = _wins(rng, 120, 0.15, spread=0.3, reps=6)
    dense = fit_penalized_mle(wins, 0.0, sum_zero=True)
    sp = fit_penalized_mle(Comparisons.from_wins(wins), 0.0, sum_zero=True)
    assert dense.converged and sp.converged
    assert abs(sp.theta.sum()) < 1e-9
    np.testing.assert_allclose(sp.theta, dense.theta, rtol=0, atol=1e-8)


def test_disconnected_with_ridge_matches_dense():
    rng = np.random.default_rng(11)
    wins = _wins(rng, 150, 0.2, blocks=3)
    comp = Comparisons.from_wins(wins)
    assert comp.components()[0] >= 3
    b = rng.laplace(size=150)
    dense = fit_penalized_mle(wins, 0.5, b)
    sp = fit_penalized_mle(comp, 0.5, b)
    np.testing.assert_allclose(sp.theta, dense.theta, rtol=0, atol=1e-8)
    sz = fit_penalized_mle(comp, 0.5, b, sum_zero=True)
    sz_dense = fit_penalized_mle(wins, 0.5, b, sum_zero=True)
    np.testing.assert_allclose(sz.theta, sz_dense.theta, rtol=0, atol=1e-8)


def test_unpenalised_disconnected_names_component_sizes():
    comp = Comparisons.from_winner_loser([0, 1, 3, 4, 4], [1, 2, 4, 3, 5], n_items=7)
    with pytest.raises(DisconnectedGraphError, match=r"3 connected components \(sizes 3, 3, 1\)"):
        fit_penalized_mle(comp, 0.0, sum_zero=True)
    with pytest.raises(DisconnectedGraphError, match="sizes 3, 3, 1"):
        fit_penalized_mle(comp.to_wins(), 0.0, sum_zero=True)


@pytest.mark.parametrize("link", [BTL, THURSTONE])
@pytest.mark.parametrize("p", [0.08, 0.2])
def test_weighted_mle_matches_dense(link, p):
    rng = np.random.default_rng(int(100 * p))
    m = 60
    iu, ju = np.triu_indices(m, 1)
    obs = rng.random(iu.size) < p
    N = np.where(obs, rng.integers(1, 6, iu.size) / 9.0, 0.0)
    S = N * rng.uniform(-0.1, 1.1, iu.size)  # debiased plug-ins leave [0, N]
    kw = {"gtol": 1e-12}
    dense = fit_weighted_mle(S, N, m, 0.05, link, **kw)
    comp = Comparisons(
        n_items=m, i=iu[obs], j=ju[obs], y=S[obs] / N[obs], count=N[obs], weighted=True
    )
    sp = fit_weighted_mle(comp, None, m, 0.05, link, **kw)
    assert dense.converged and sp.converged
    assert sp.method == "newton-cg"
    np.testing.assert_allclose(sp.theta, dense.theta, rtol=0, atol=1e-8)
    assert sp.objective == pytest.approx(dense.objective, rel=1e-12)


def test_dense_fast_path_above_threshold_is_the_dense_solver():
    rng = np.random.default_rng(5)
    wins = _wins(rng, 90, 0.9)
    a = fit_penalized_mle(wins, 3.0)
    b = fit_penalized_mle(Comparisons.from_wins(wins), 3.0)
    np.testing.assert_array_equal(a.theta, b.theta)


def test_counts_on_edge_list():
    rng = np.random.default_rng(2)
    wins = _wins(rng, 50, 0.3, reps=2)
    comp = Comparisons.from_wins(wins)
    np.testing.assert_array_equal(copeland_counts(comp), copeland_counts(wins))
    noise = rng.normal(size=50)
    np.testing.assert_array_equal(noisy_counts(comp, noise), noisy_counts(wins, noise))


def test_warm_start_and_cg_report():
    rng = np.random.default_rng(9)
    wins = _wins(rng, 200, 0.05)
    sd = SparseData(Comparisons.from_wins(wins))
    cold = sparse_newton(sd, 1.0)
    warm = sparse_newton(sd, 1.0, theta0=cold["theta"])
    assert warm["n_iter"] <= 2 < cold["n_iter"] + 1
    np.testing.assert_allclose(warm["theta"], cold["theta"], atol=1e-9)


def test_pair_from_index_matches_triu():
    from dprank.data.simulate import pair_from_index

    for n in (2, 3, 8, 257):
        iu, ju = np.triu_indices(n, 1)
        i, j = pair_from_index(np.arange(iu.size), n)
        np.testing.assert_array_equal(i, iu)
        np.testing.assert_array_equal(j, ju)


def test_sparse_er_simulator_has_the_dense_law():
    from dprank.data.simulate import sample_er_comparisons, sample_er_comparisons_sparse

    n, p, reps = 6, 0.3, 4000
    theta = np.linspace(-1.0, 1.0, n)
    rng = np.random.default_rng(123)
    incl_s, wins_s = np.zeros((n, n)), np.zeros((n, n))
    incl_d, wins_d = np.zeros((n, n)), np.zeros((n, n))
    for _ in range(reps):
        c = sample_er_comparisons_sparse(theta, p, rng)
        w = c.to_wins()
        incl_s += w + w.T
        wins_s += w
        wd = sample_er_comparisons(theta, p, rng).astype(float)
        incl_d += wd + wd.T
        wins_d += wd
    iu = np.triu_indices(n, 1)
    se = np.sqrt(p * (1 - p) / reps)
    assert np.all(np.abs(incl_s[iu] / reps - p) < 5 * se)
    # outcome frequencies agree between the two simulators
    fs, fd = wins_s[iu] / incl_s[iu], wins_d[iu] / incl_d[iu]
    assert np.all(np.abs(fs - fd) < 5 * np.sqrt(0.25 * 2 / (p * reps)))


@pytest.mark.parametrize("n", [50, 64, 65, 2**31 + 5])
@pytest.mark.parametrize("raw", [False, True])
def test_aggregation_by_packed_sort_equals_unique_bincount(raw, n):
    """Pairs and sums equal np.unique + bincount's bit for bit (records summed in input order).

    ``raw``: counts 1 and outcomes 0/1, aggregated by the compiled radix sort of the
    packed records. ``n``: pair keys ``a << s | b`` (``s`` = 6 at n = 50 and 64, 7 at
    65); at n > 2^31 they no longer fit and ``a n + b`` with ``np.unique`` is used.
    """
    from dprank.data.comparisons import _aggregate, _whole_binary

    rng = np.random.default_rng(5)
    m = 4000  # about 1,000 distinct pairs among 50 items: many repeated, both orders
    items = np.sort(rng.choice(n - 1, 49, replace=False)) if n > 50 else np.arange(49)
    items = np.append(items, n - 1)  # the largest index, so every key bit is used
    k = rng.integers(0, 50, m)
    i = items[k]
    j = items[(k + rng.integers(1, 50, m)) % 50]
    if raw:
        y, count = (rng.random(m) < 0.3).astype(float), np.ones(m)
    else:  # real-valued outcomes, as released local-DP data, and weights
        y, count = rng.random(m), rng.choice([1.0, 0.5, 2.25, 1e-17], m)
    assert _whole_binary(y, count) == raw
    got = _aggregate(n, i, j, y, count)
    a, b = np.minimum(i, j), np.maximum(i, j)
    ya = np.where(i == a, y, 1.0 - y) * count
    uniq, inv = np.unique(a * np.int64(n) + b, return_inverse=True)
    assert 0 < got.n_pairs < m // 2
    np.testing.assert_array_equal(got.a, uniq // n)
    np.testing.assert_array_equal(got.b, uniq % n)
    np.testing.assert_array_equal(got.n, np.bincount(inv, weights=count))
    np.testing.assert_array_equal(got.w, np.bincount(inv, weights=ya))
    for field in ("a", "b", "n", "w"):
        assert getattr(got, field).dtype == (np.int64 if field in "ab" else np.float64)
    empty = _aggregate(n, i[:0], j[:0], y[:0], count[:0])
    assert empty.n_pairs == 0


def test_compiled_hessian_product_is_the_laplacian():
    """One compiled loop computes (D - U - U^T) x, U[a, b] = h over the pairs (in CSR rows)."""
    from dprank.base import _compiled as kern

    rng = np.random.default_rng(6)
    n = 40
    a, b = np.triu_indices(n, 1)
    keep = rng.random(a.size) < 0.3
    a, b = a[keep].astype(np.int32), b[keep].astype(np.int32)
    h = rng.random(a.size)
    diag = rng.random(n) + 5.0
    x = rng.normal(size=n)
    upper = np.zeros((n, n))
    upper[a, b] = h
    out = np.empty(n)
    ptr = np.concatenate([[0], np.cumsum(np.bincount(a, minlength=n))])
    kern.laplacian_mv(x, ptr, b, h, diag, out)
    np.testing.assert_allclose(out, diag * x - upper @ x - upper.T @ x, rtol=0, atol=1e-12)


def _random_pair_data(rng, n, m, counts):
    """Pair statistics of m random records (outcomes in [0, 1), multiplicities from counts)."""
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    comp = Comparisons(n_items=n, i=i, j=j, y=rng.random(m), count=rng.choice(counts, m))
    return SparseData(comp)


def test_first_pass_at_zero_equals_the_general_pass():
    """From theta = 0 the pass without exponentials gives the general pass's numbers."""
    n = 30
    sd = _random_pair_data(np.random.default_rng(7), n, 400, counts=[1.0, 3.0])
    g0, d0 = np.zeros(n), np.zeros(n)
    h0, value0 = sd.accumulate_at_zero(g0, d0)
    g1, d1 = np.zeros(n), np.zeros(n)
    h1 = sd.accumulate(np.zeros(n), g1, d1)
    np.testing.assert_array_equal(h0, h1)
    np.testing.assert_allclose(g0, g1, rtol=0, atol=1e-12)
    np.testing.assert_allclose(d0, d1, rtol=0, atol=1e-12)
    assert value0 == pytest.approx(sd.pair_value(np.zeros(n)), rel=1e-13)


@pytest.mark.parametrize("spread", [8.0, 650.0])
def test_compiled_pass_matches_the_logistic_formulas(spread):
    """Gradient and Hessian weights of one pass against scipy's expit, pair by pair.

    Spread 8: exponentials taken once per item (``F = u_a / (u_a + u_b)``);
    spread 650 > ``NODE_EXP_SPREAD``: one ``exp(-|d|)`` per pair, finite at
    ``|d|`` near 650.
    """
    from scipy.special import expit

    from dprank.base import _compiled as kern

    rng = np.random.default_rng(8)
    n, m = 40, 600
    sd = _random_pair_data(rng, n, m, counts=[1.0, 2.0])
    theta = rng.uniform(-spread / 2, spread / 2, n)
    theta[:2] = -spread / 2, spread / 2
    assert (np.ptp(theta) <= kern.NODE_EXP_SPREAD) == (spread < 600)
    grad, diag = np.zeros(n), np.zeros(n)
    h = sd.accumulate(theta, grad, diag)
    a, b = sd.indices()
    f = expit(theta[a] - theta[b])
    want_h = sd.cnt * f * expit(theta[b] - theta[a])  # not 1 - f: exact where f ~ 1
    g = sd.cnt * f - sd.w
    want_grad = np.bincount(a, g, n) - np.bincount(b, g, n)
    want_diag = np.bincount(a, want_h, n) + np.bincount(b, want_h, n)
    assert np.all(np.isfinite(h)) and np.any(want_h < 1e-100) == (spread > 600)
    np.testing.assert_allclose(h, want_h, rtol=1e-12, atol=0)
    np.testing.assert_allclose(grad, want_grad, rtol=0, atol=1e-12 * m)
    np.testing.assert_allclose(diag, want_diag, rtol=1e-12, atol=0)
