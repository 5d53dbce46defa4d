"""The release samplers of dprank.privacy.noise: exact laws, checked against theory and OpenDP."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dprank.data.comparisons import Comparisons
from dprank.privacy.noise import (
    NoiseSource,
    as_noise_source,
    grid_exponent,
    laplace_scale,
    rr_effective_epsilon,
    rr_flip_threshold,
)
from dprank.privacy.release import bound_user_contributions, local_release

dp = pytest.importorskip("opendp.prelude")
dp.enable_features("contrib")


def _pmf_discrete_laplace(z, scale):
    q = math.exp(-1.0 / scale)
    return (1 - q) / (1 + q) * q ** np.abs(z)


def _chi2_two_sample(a, b, lo, hi):
    """Two-sample chi-square test of integer samples on bins lo..hi (tails pooled)."""
    bins = np.arange(lo, hi + 2) - 0.5
    bins = np.concatenate([[-np.inf], bins, [np.inf]])
    ca, _ = np.histogram(a, bins)
    cb, _ = np.histogram(b, bins)
    table = np.vstack([ca, cb])
    table = table[:, table.sum(axis=0) > 0]
    return stats.chi2_contingency(table)[1]


@pytest.mark.parametrize("scale", [Fraction(1, 2), Fraction(2), Fraction(5, 2), Fraction(7)])
def test_discrete_laplace_matches_its_law_and_opendp(scale):
    n = 20_000
    ours = NoiseSource.from_seed(int(scale * 10)).discrete_laplace(scale, n)
    meas = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int), scale=float(scale)
    )
    theirs = np.asarray(meas([0] * n))
    lim = int(4 * scale) + 1
    assert _chi2_two_sample(ours, theirs, -lim, lim) > 1e-3
    # and against the pmf itself
    z = np.arange(-lim, lim + 1)
    expected = _pmf_discrete_laplace(z, float(scale)) * n
    observed = np.array([(ours == k).sum() for k in z])
    keep = expected > 5
    chi2 = ((observed[keep] - expected[keep]) ** 2 / expected[keep]).sum()
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-3


def test_grid_laplace_matches_opendp_float_laplace():
    n = 8000
    ours = NoiseSource.from_seed(3).laplace(1.7, n)
    meas = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.7
    )
    theirs = np.asarray(meas([0.0] * n))
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-3
    assert stats.kstest(ours, stats.laplace(scale=1.7).cdf).pvalue > 1e-3
    # every value on the grid 2^k, k = floor(log2 1.7) - 30
    k = grid_exponent(1.7)
    assert k == -30
    z = np.ldexp(ours, -k)
    assert np.array_equal(z, np.round(z))


def test_laplace_mechanism_is_exact_on_the_grid():
    noise = NoiseSource.from_seed(5)
    counts = np.arange(50, dtype=np.float64) * 1000
    out = noise.laplace_mechanism(counts, 2.0, 0.5)
    k = grid_exponent(laplace_scale(2.0, 0.5))
    z = np.ldexp(out - counts, -k)
    assert np.array_equal(z, np.round(z))
    with pytest.raises(ValueError, match="grid"):
        noise.laplace_mechanism(np.array([0.1]), 2.0, 0.5)


def test_scale_rounds_up_so_the_guarantee_holds():
    for sens, eps in [(2, 0.3), (1, 0.7), (6, 1.1), (2, 1e-3)]:
        b = laplace_scale(sens, eps)
        assert Fraction(b) >= Fraction(sens) / Fraction(eps)
        assert Fraction(sens) / Fraction(b) <= Fraction(eps)


def test_randomized_response_threshold_and_rate():
    from decimal import Decimal, localcontext

    for eps in (0.1, 0.5, 1.0, 3.0, 20.0):
        t = rr_flip_threshold(eps)
        with localcontext() as ctx:
            ctx.prec = 80
            p = Decimal(1) / (Decimal(eps).exp() + 1)
            flip = Decimal(t) / Decimal(2**64)
            assert flip >= p and flip - p <= Decimal(2) ** -64
        assert rr_effective_epsilon(eps) <= eps
        assert eps - rr_effective_epsilon(eps) < 1e-9 * max(1, eps)
    # tiny budgets: the flip probability never passes 1/2
    assert rr_flip_threshold(1e-300) == 2**63 and rr_effective_epsilon(1e-300) == 0.0
    n = 100_000
    y = NoiseSource.from_seed(1).randomized_response(np.ones(n, dtype=np.uint8), 1.0)
    rate = 1 - y.mean()
    p = 1 / (math.e + 1)
    assert abs(rate - p) < 5 * math.sqrt(p * (1 - p) / n)
    # OpenDP's randomized response keeps the truth with probability e^eps / (1 + e^eps)
    rr = dp.m.make_randomized_response_bool(prob=math.e / (1 + math.e))
    theirs = np.array([rr(True) for _ in range(4000)])
    assert stats.fisher_exact([[y[:4000].sum(), 4000 - y[:4000].sum()],
                               [theirs.sum(), 4000 - theirs.sum()]]).pvalue > 1e-3  # fmt: skip


def test_uniform_below_is_uniform_and_in_range():
    noise = NoiseSource.from_seed(9)
    u = noise.uniform_below(7, 70_000)
    assert u.max() < 7
    counts = np.bincount(u.astype(np.int64), minlength=7)
    assert stats.chisquare(counts).pvalue > 1e-3
    big = noise.uniform_below(np.uint64(3 * 2**62), 1000)
    assert big.max() < 3 * 2**62


def test_secure_source_is_fresh_and_seeded_source_reproducible():
    a, b = NoiseSource.system().words(4), NoiseSource.system().words(4)
    assert not np.array_equal(a, b)
    assert NoiseSource.system().secure and not NoiseSource.from_seed(1).secure
    np.testing.assert_array_equal(
        NoiseSource.from_seed(4).laplace(2.0, 10), NoiseSource.from_seed(4).laplace(2.0, 10)
    )
    assert as_noise_source(None).secure
    with pytest.raises(TypeError, match="rng"):
        as_noise_source("abc")
    with pytest.raises(TypeError, match="seed"):
        NoiseSource.from_seed(1.5)


def test_secure_gaussian_comes_from_opendp():
    x = NoiseSource.system().normal(0.0, 2.0, size=3000)
    assert stats.kstest(x, stats.norm(scale=2.0).cdf).pvalue > 1e-3


def test_bounding_keeps_a_uniform_subset_of_each_heavy_user():
    pairs = [(a, b) for a in range(6) for b in range(a + 1, 6)]
    light = [(0, 1, 0), (1, 2, 0), (2, 3, 0), (3, 4, 2), (4, 5, 2)]
    heavy = [(a, b, 1) for a, b in pairs[:10]]
    i, j, user = np.array(light + heavy).T
    c = Comparisons(n_items=6, i=i, j=j, y=np.ones(i.size), count=np.ones(i.size), user=user)
    kept = dict.fromkeys(pairs[:10], 0)
    trials = 400
    for s in range(trials):
        bounded, dropped = bound_user_contributions(c, 4, NoiseSource.from_seed(s))
        assert bounded.per_user_counts().tolist() == [3, 4, 2] and dropped == 6
        for a, b, u in zip(bounded.i, bounded.j, bounded.user, strict=True):
            if u == 1:
                kept[(int(a), int(b))] += 1
    # each of the heavy user's 10 comparisons is kept about 4 times in 10
    assert all(abs(k / trials - 0.4) < 0.12 for k in kept.values())
    same, none = bound_user_contributions(c, 10, NoiseSource.from_seed(0))
    assert same is c and none == 0


def test_local_release_orients_orders_and_aggregates():
    c = Comparisons(
        n_items=3,
        i=np.array([2, 0, 1]),
        j=np.array([0, 1, 2]),
        y=np.array([1.0, 1.0, 0.0]),
        count=np.array([50.0, 30.0, 20.0]),
        user=np.array([1, 0, 0]),
    )
    rel = local_release(c, np.array([0.5, 0.5]), NoiseSource.from_seed(2), aggregate=True)
    assert np.all(rel.i < rel.j)
    assert rel.count.sum() == 100
    keys = list(zip(rel.user, rel.i, rel.j, rel.y, strict=True))
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    with pytest.raises(ValueError, match="0/1"):
        local_release(
            Comparisons(n_items=2, i=[0], j=[1], y=[0.3], count=[1], user=[0]),
            [1.0],
            NoiseSource.from_seed(0),
        )
