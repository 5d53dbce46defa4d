"""Local DP releases of Paper B2 (section 3, docs/papers/paper-b.md#s1-1 to #s1-4).

Statistical checks use fixed seeds and 5-sd tolerances computed from the
exact variance of the statistic under test.
"""

import math

import numpy as np
import pytest
from scipy import special

from dprank.data.models import BTL, THURSTONE
from dprank.privacy.ldp import (
    add_rr_statistics,
    add_sufficient_statistics,
    adrr_weights,
    count_ranking,
    count_scores,
    count_scores_from_pair_counts,
    debias,
    debiased_variance,
    iter_user_comparisons_b,
    laplace_release,
    n_items_from_pairs,
    privacy_constant,
    randomized_response,
    rr_flip_probability,
    sample_rr_statistics_equal_eps,
    sample_user_comparisons_b,
    simulate_ldp_statistics,
    sufficient_statistics,
)

Z = 5.0  # tolerance in standard deviations


def _centred_theta(m, rng):
    theta = rng.uniform(-1, 1, m)
    return theta - theta.mean()


def test_flip_probability_values():
    assert rr_flip_probability(1.0) == pytest.approx(1 / (math.e + 1), rel=1e-15)
    assert rr_flip_probability(np.inf) == 0.0
    np.testing.assert_allclose(rr_flip_probability([0.5, 2.0]), 1 / (np.exp([0.5, 2.0]) + 1))
    with pytest.raises(ValueError):
        rr_flip_probability(0.0)


def test_rr_flip_rate_per_user():
    """Row l of an (L, P) array is flipped w.p. 1/(e^eps_l + 1) (binomial tolerance)."""
    rng = np.random.default_rng(101)
    eps = np.array([0.3, 1.0, 2.0, 4.0])
    n = 100_000
    y = (rng.random((eps.size, n)) < 0.4).astype(np.uint8)
    yt = randomized_response(y, eps, rng)
    assert yt.dtype == np.uint8 and yt.shape == y.shape
    rate = (yt != y).mean(axis=1)
    p = 1 / (np.exp(eps) + 1)
    assert np.all(np.abs(rate - p) <= Z * np.sqrt(p * (1 - p) / n))
    # scalar budget; eps = inf never flips
    assert np.array_equal(randomized_response(y, np.inf, rng), y)


def test_debias_values_and_identity_at_inf():
    e = math.e
    np.testing.assert_allclose(debias(np.array([1, 0]), 1.0), [e / (e - 1), -1 / (e - 1)])
    y = np.array([[0, 1, 1], [1, 0, 1]], dtype=np.uint8)
    np.testing.assert_array_equal(debias(y, np.inf), y)
    # per-user budgets apply to rows
    z = debias(y, np.array([1.0, 2.0]))
    e2 = math.exp(2.0)
    np.testing.assert_allclose(z[1], ((e2 + 1) * y[1] - 1) / (e2 - 1))


@pytest.mark.parametrize(("f", "eps"), [(0.7, 1.0), (0.2, 0.5), (0.55, 3.0)])
def test_debiased_mean_and_variance_lemma2(f, eps):
    """E z~ = F and Var z~ = Lemma 2 (5-sd tolerances from the exact two-point law)."""
    rng = np.random.default_rng(int(1000 * f + 10 * eps))
    n = 400_000
    y = (rng.random(n) < f).astype(np.uint8)
    z = debias(randomized_response(y, eps, rng), eps)
    var = float(debiased_variance(f, eps))
    # the exact law of z~: two values, P(y~ = 1) = q
    pe = 1 / (math.exp(eps) + 1)
    q = f * (1 - pe) + (1 - f) * pe
    hi, lo = math.exp(eps) / (math.exp(eps) - 1), -1 / (math.exp(eps) - 1)
    assert q * (1 - q) * (hi - lo) ** 2 == pytest.approx(var, rel=1e-12)
    assert abs(z.mean() - f) <= Z * math.sqrt(var / n)
    mu4 = q * (hi - f) ** 4 + (1 - q) * (lo - f) ** 4
    assert abs(z.var(ddof=1) - var) <= Z * math.sqrt((mu4 - var**2) / n)


def test_adrr_weights_and_privacy_constant():
    eps = np.array([0.2, 1.0, 1.0, 3.0, 5.0])
    w = adrr_weights(eps)
    b = ((np.exp(eps) - 1) / (np.exp(eps) + 1)) ** 2  # B2 eq. (4)
    np.testing.assert_allclose(w, b / b.sum(), rtol=1e-14)
    assert w.sum() == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(w[1:] / w[0], np.tanh(eps[1:] / 2) ** 2 / np.tanh(0.1) ** 2)
    assert privacy_constant(eps) == pytest.approx(b.mean(), rel=1e-14)
    np.testing.assert_allclose(adrr_weights(np.full(7, 2.0)), np.full(7, 1 / 7))
    assert privacy_constant([np.inf]) == 1.0


def test_laplace_release_variance():
    """y + Laplace(1/eps_l): mean y, variance 2/eps_l^2 (Var of s^2 from mu4 = 24 b^4)."""
    rng = np.random.default_rng(7)
    eps = np.array([0.5, 2.0])
    n = 200_000
    y = np.ones((2, n), dtype=np.uint8)
    out = laplace_release(y, eps, rng)
    noise = out - 1.0
    var = 2 / eps**2
    b = 1 / eps
    assert np.all(np.abs(noise.mean(axis=1)) <= Z * np.sqrt(var / n))
    assert np.all(np.abs(noise.var(axis=1, ddof=1) - var) <= Z * np.sqrt((24 - 4) * b**4 / n))
    np.testing.assert_array_equal(laplace_release(y, np.inf, rng), y)


@pytest.mark.parametrize("link", [BTL, THURSTONE])
def test_user_sampler_shapes_and_marginals(link):
    rng = np.random.default_rng(11)
    theta = _centred_theta(6, rng)
    L, p = 4000, 0.3
    y, a = sample_user_comparisons_b(theta, L, p, rng, link)
    iu, ju = np.triu_indices(6, 1)
    assert y.shape == a.shape == (L, iu.size)
    assert y.dtype == np.uint8 and a.dtype == bool
    assert abs(a.mean() - p) <= Z * math.sqrt(p * (1 - p) / a.size)
    f = link.cdf(theta[iu] - theta[ju])
    assert np.all(np.abs(y.mean(axis=0) - f) <= Z * np.sqrt(f * (1 - f) / L))
    _, a1 = sample_user_comparisons_b(theta, 5, 1.0, rng, link)
    assert a1.all()


def test_user_chunks_cover_all_users():
    rng = np.random.default_rng(3)
    chunks = list(iter_user_comparisons_b(np.zeros(5), 1000, 0.5, rng, chunk_size=256))
    assert [c[0] for c in chunks] == [
        slice(0, 256),
        slice(256, 512),
        slice(512, 768),
        slice(768, 1000),
    ]
    assert sum(c[1].shape[0] for c in chunks) == 1000
    assert all(c[1].shape[1] == 10 for c in chunks)


def test_fused_rr_statistics_and_chunking():
    """add_rr_statistics == debias + add_sufficient_statistics; chunks add up."""
    rng = np.random.default_rng(5)
    theta = _centred_theta(7, rng)
    L = 90
    eps = rng.uniform(0.3, 3, L)
    w = adrr_weights(eps)
    y, a = sample_user_comparisons_b(theta, L, 0.6, rng)
    yt = randomized_response(y, eps, rng)
    S_ref, N_ref = sufficient_statistics(debias(yt, eps), a, w)
    # explicit formula of docs/papers/paper-b.md#s1-3
    np.testing.assert_allclose(S_ref, (a * w[:, None] * debias(yt, eps)).sum(axis=0), atol=1e-14)
    np.testing.assert_allclose(N_ref, (a * w[:, None]).sum(axis=0), atol=1e-14)
    S, N = np.zeros(21), np.zeros(21)
    for start in range(0, L, 32):
        sl = slice(start, min(L, start + 32))
        add_rr_statistics(S, N, yt[sl], a[sl], eps[sl], w[sl])
    np.testing.assert_allclose(S, S_ref, atol=1e-13)
    np.testing.assert_allclose(N, N_ref, atol=1e-13)
    # 0/1 fast path equals the float path
    S2, N2 = np.zeros(21), np.zeros(21)
    add_sufficient_statistics(S2, N2, yt.astype(float), a, 1 / L)
    S3, N3 = sufficient_statistics(yt, a, 1 / L)
    np.testing.assert_allclose(S2, S3, atol=1e-14)
    np.testing.assert_allclose(N2, N3, atol=1e-14)


def test_simulate_ldp_statistics_matches_manual_loop():
    theta = _centred_theta(8, np.random.default_rng(0))
    eps = np.random.default_rng(1).uniform(1, 5, 300)
    rels = ("adrr", "classic_rr", "raw", "count")
    st = simulate_ldp_statistics(theta, eps, 0.5, np.random.default_rng(2), releases=rels)
    rng = np.random.default_rng(2)
    w = adrr_weights(eps)
    P = 28
    S, N, Sc, Sr, Nr = (np.zeros(P) for _ in range(5))
    ones, nobs = np.zeros(P), np.zeros(P)
    for users, y, a in iter_user_comparisons_b(theta, eps.size, 0.5, rng):
        yt = randomized_response(y, eps[users], rng)
        add_sufficient_statistics(S, N, debias(yt, eps[users]), a, w[users])
        add_sufficient_statistics(Sc, np.zeros(P), yt, a, 1 / eps.size)
        add_sufficient_statistics(Sr, Nr, y, a, 1.0)
        add_sufficient_statistics(ones, nobs, yt, a, 1.0)
    np.testing.assert_allclose(st.adrr[0], S, atol=1e-13)
    np.testing.assert_allclose(st.adrr[1], N, atol=1e-13)
    np.testing.assert_allclose(st.classic_rr[0], Sc, atol=1e-13)
    np.testing.assert_array_equal(st.raw[0], Sr)
    np.testing.assert_array_equal(st.count_scores, count_scores_from_pair_counts(ones, nobs))
    assert st.laplace is None
    assert st.count_scores.sum() == st.raw[1].sum()  # every observed comparison has one winner


def _per_comparison_counts(theta, L, p, eps, R, rng, link):
    """(n_obs, wins, released wins) of R data sets, from per-comparison draws."""
    y, a = sample_user_comparisons_b(theta, L * R, p, rng, link)
    yt = randomized_response(y, eps, rng)
    P = y.shape[1]
    y, a, yt = (x.reshape(R, L, P) for x in (y, a, yt))
    return a.sum(axis=1), (a & (y == 1)).sum(axis=1), (a & (yt == 1)).sum(axis=1)


@pytest.mark.parametrize(("link", "p", "eps"), [(BTL, 0.6, 0.8), (THURSTONE, 1.0, 2.0)])
def test_equal_eps_direct_sampler_has_same_law(link, p, eps):
    """Means, variances and the raw/released covariance agree (two-sample 5-sd tests)."""
    rng = np.random.default_rng(2024)
    theta = np.array([0.8, 0.1, -0.3, -0.6])
    L, R = 25, 4000
    n1, k1, r1 = _per_comparison_counts(theta, L, p, eps, R, rng, link)
    direct = [sample_rr_statistics_equal_eps(theta, L, p, eps, rng, link) for _ in range(R)]
    n2 = np.array([d.n_obs for d in direct])
    k2 = np.array([d.wins for d in direct])
    r2 = np.array([d.released_wins for d in direct])
    pe = 1 / (math.exp(eps) + 1)
    s1 = ((math.exp(eps) + 1) * r1 - n1) / ((math.exp(eps) - 1) * L)  # ADRR S, w = 1/L
    s2 = np.array([d.adrr_statistics()[0] for d in direct])
    for x1, x2 in [(n1, n2), (k1, k2), (r1, r2), (s1, s2), (k1 * r1, k2 * r2)]:
        x1, x2 = x1.astype(float), x2.astype(float)
        v1, v2 = x1.var(axis=0), x2.var(axis=0)
        assert np.all(np.abs(x1.mean(axis=0) - x2.mean(axis=0)) <= Z * np.sqrt((v1 + v2) / R))
        m4a = ((x1 - x1.mean(axis=0)) ** 4).mean(axis=0)
        m4b = ((x2 - x2.mean(axis=0)) ** 4).mean(axis=0)
        se_v = np.sqrt((m4a - v1**2) / R + (m4b - v2**2) / R)
        assert np.all(np.abs(v1 - v2) <= Z * se_v + 1e-12)
    # and both match the exact means
    iu, ju = np.triu_indices(4, 1)
    f = link.cdf(theta[iu] - theta[ju])
    q = f * (1 - pe) + (1 - f) * pe
    var_r = L * p * q * (1 - p * q)  # sum_l a y~ ~ Bin(L, p q)
    assert np.all(np.abs(r2.mean(axis=0) - L * p * q) <= Z * np.sqrt(var_r / R))
    # E S = p F (the debiased statistic is unbiased for p F)
    assert np.all(np.abs(s2.mean(axis=0) - p * f) <= Z * s2.std(axis=0) / math.sqrt(R))


def test_equal_eps_statistics_helpers():
    c = sample_rr_statistics_equal_eps(np.zeros(4), 50, 0.5, 1.5, np.random.default_rng(0))
    S, N = c.adrr_statistics()
    e = math.exp(1.5)
    np.testing.assert_allclose(S, ((e + 1) * c.released_wins - c.n_obs) / ((e - 1) * 50))
    np.testing.assert_allclose(N, c.n_obs / 50)
    np.testing.assert_allclose(c.classic_rr_statistics()[0], c.released_wins / 50)
    np.testing.assert_allclose(c.nonprivate_statistics()[0], c.wins / 50)
    assert c.count_scores().sum() == c.n_obs.sum()
    assert np.all((c.wins <= c.n_obs) & (c.released_wins <= c.n_obs))


def test_count_scores_convention():
    # pairs (0,1), (0,2), (1,2); y~ = 1 means the first item won
    yt = np.array([[1, 0, 1], [0, 0, 1]], dtype=np.uint8)
    a = np.array([[True, True, True], [True, False, True]])
    # user 1: 0>1, 2>0, 1>2 ; user 2: 1>0, (0,2) missing, 1>2
    np.testing.assert_array_equal(count_scores(yt, a), [1, 3, 1])
    np.testing.assert_array_equal(count_scores_from_pair_counts([1, 0, 2], [2, 1, 2]), [1, 3, 1])
    assert n_items_from_pairs(3) == 3 and n_items_from_pairs(12720) == 160
    with pytest.raises(ValueError):
        n_items_from_pairs(4)


def test_count_ranking_breaks_ties_uniformly():
    scores = np.array([3.0, 1.0, 3.0, 0.0])
    firsts = []
    for seed in range(400):
        r = count_ranking(scores, np.random.default_rng(seed))
        assert sorted(r.tolist()) == [1, 2, 3, 4]
        assert r[1] == 3 and r[3] == 4
        firsts.append(r[0] == 1)
    # Bin(400, 1/2): sd 10
    assert abs(sum(firsts) - 200) <= Z * 10
    np.testing.assert_array_equal(
        count_ranking([0.5, 2.0, 1.0], np.random.default_rng(0)), [3, 1, 2]
    )


def test_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError):
        sample_user_comparisons_b(np.zeros(3), 2, 0.0, rng)
    with pytest.raises(ValueError):
        simulate_ldp_statistics(np.zeros(3), [1.0], 0.5, rng, releases=("nope",))
    with pytest.raises(ValueError):
        sample_rr_statistics_equal_eps(np.zeros(3), 5, 0.5, [1.0, 2.0], rng)
    with pytest.raises(ValueError):
        add_sufficient_statistics(np.zeros(3), np.zeros(3), np.zeros((2, 4)), np.ones((2, 4)), 1.0)
    assert special.expit(-1.0) == pytest.approx(rr_flip_probability(1.0))
