"""Paper B metrics (docs/papers/paper-b.md#s1-5): brute-force references, invariances,
random tie-breaking, the prediction band and the paired t-test of B2 Table 2."""

import itertools
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from dprank.fit.metrics_b import (
    kendall_distance,
    max_error,
    paired_t_test,
    prediction_band,
    ranks,
    rms_error,
    spearman_footrule,
    top_k_hamming,
)

ROOT = Path(__file__).resolve().parents[1]
# the published Paper B tables: a copy in the repository if one is added, else ../shared
_CANDIDATES = [
    ROOT / "resources" / "published" / "paper_b",
    ROOT.parent / "shared" / "reference" / "paper-b",
]
REFERENCE = next((d for d in _CANDIDATES if any(d.glob("*.csv"))), _CANDIDATES[-1])
TABLE2 = REFERENCE / "B2-Table2_car_full_ranking_error_ttests.csv"


# ---------------------------------------------------------------- brute-force references


def _bf_ranks(x):
    """Decreasing order, 1 = best, for distinct scores."""
    order = sorted(range(len(x)), key=lambda i: -x[i])
    r = [0] * len(x)
    for pos, i in enumerate(order):
        r[i] = pos + 1
    return r


def _bf_kendall(a, b):
    m = len(a)
    bad = sum((a[i] - a[j]) * (b[i] - b[j]) < 0 for i, j in itertools.combinations(range(m), 2))
    return bad / (m * (m - 1) / 2)


def _bf_top_k(a, b, k):
    top_a = set(sorted(range(len(a)), key=lambda i: -a[i])[:k])
    top_b = set(sorted(range(len(b)), key=lambda i: -b[i])[:k])
    return len(top_b - top_a) / k


def _bf_footrule(a, b):
    ra, rb = _bf_ranks(a), _bf_ranks(b)
    return 2 * sum(abs(x - y) for x, y in zip(ra, rb, strict=True)) / len(a) ** 2


def _random_pairs(seed, n_cases=60):
    rng = np.random.default_rng(seed)
    for _ in range(n_cases):
        m = int(rng.integers(2, 25))
        yield m, rng.normal(size=m), rng.normal(size=m)


# ---------------------------------------------------------------- estimation errors


def test_estimation_errors_match_loops_and_broadcast():
    rng = np.random.default_rng(1)
    theta_hat = rng.normal(size=(3, 4, 7))
    theta = rng.normal(size=7)
    rms, mx = rms_error(theta_hat, theta), max_error(theta_hat, theta)
    assert rms.shape == mx.shape == (3, 4)
    for a, b in itertools.product(range(3), range(4)):
        d = [theta_hat[a, b, i] - theta[i] for i in range(7)]
        assert rms[a, b] == pytest.approx((sum(x * x for x in d) / 7) ** 0.5, rel=1e-12)
        assert mx[a, b] == pytest.approx(max(abs(x) for x in d), rel=1e-12)
    assert rms_error(theta, theta) == 0.0 and max_error(theta, theta) == 0.0
    # m^{-1/2}||.||_2 <= ||.||_inf <= ||.||_2
    assert np.all(rms <= mx + 1e-15) and np.all(mx <= rms * np.sqrt(7) + 1e-15)


# ---------------------------------------------------------------- ranks and tie-breaking


def test_ranks_decreasing_and_stable_ties():
    np.testing.assert_array_equal(ranks([0.5, 2.0, -1.0]), [2, 1, 3])
    np.testing.assert_array_equal(ranks([1, 3, 3, 2]), [4, 1, 2, 3])  # lower index wins
    np.testing.assert_array_equal(ranks(np.zeros(4)), [1, 2, 3, 4])
    x = np.random.default_rng(2).normal(size=(5, 3, 9))
    r = ranks(x)
    assert r.shape == x.shape and r.dtype == np.int64
    np.testing.assert_array_equal(np.sort(r, axis=-1), np.broadcast_to(np.arange(1, 10), x.shape))
    for idx in np.ndindex(5, 3):
        assert list(r[idx]) == _bf_ranks(list(x[idx]))
    with pytest.raises(ValueError, match="NaN"):
        ranks([1.0, np.nan])


def test_random_ties_reproducible_and_only_among_ties():
    scores = np.array([[2, 1, 1, 1, 0, 1]] * 50)
    a = ranks(scores, np.random.default_rng(7))
    b = ranks(scores, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, ranks(scores, np.random.default_rng(8)))
    assert np.all(a[:, 0] == 1) and np.all(a[:, 4] == 6)
    np.testing.assert_array_equal(np.sort(a[:, [1, 2, 3, 5]], axis=1), [[2, 3, 4, 5]] * 50)
    # continuous scores: rng changes nothing
    x = np.random.default_rng(3).normal(size=(4, 8))
    np.testing.assert_array_equal(ranks(x, np.random.default_rng(0)), ranks(x))


def test_random_ties_unbiased():
    """All 3! orders of a tied block equally likely: counts within 5 binomial sd."""
    n = 30_000
    r = ranks(np.tile([1.0, 1.0, 1.0, 0.0], (n, 1)), np.random.default_rng(11))
    assert np.all(r[:, 3] == 4)
    codes = r[:, 0] * 100 + r[:, 1] * 10 + r[:, 2]
    values, counts = np.unique(codes, return_counts=True)
    assert len(values) == 6
    p = 1 / 6
    assert np.all(np.abs(counts - n * p) < 5 * np.sqrt(n * p * (1 - p)))


def test_metrics_random_ties_unbiased():
    """theta_hat = (2, 1, 1, 0), truth (3, 2, 1, 0), K = 2: H_2 is 0 or 1/2 with
    probability 1/2 each; K is 0 or 1/6. Means within 5 sd of 1/4 and 1/12."""
    n = 20_000
    rng = np.random.default_rng(5)
    theta_hat = np.tile([2.0, 1.0, 1.0, 0.0], (n, 1))
    truth = np.array([3.0, 2.0, 1.0, 0.0])
    h = top_k_hamming(theta_hat, truth, 2, rng)
    assert set(np.unique(h)) == {0.0, 0.5}
    assert abs(h.mean() - 0.25) < 5 * 0.25 / np.sqrt(n)
    k = kendall_distance(theta_hat, truth, rng)
    assert set(np.unique(k)) == {0.0, 1 / 6}
    assert abs(k.mean() - 1 / 12) < 5 * (1 / 12) / np.sqrt(n)
    # the stable rule always picks the lower index: the right order here
    assert top_k_hamming(theta_hat[0], truth, 2) == 0.0
    np.testing.assert_array_equal(
        top_k_hamming(theta_hat[:50], truth, 2, np.random.default_rng(9)),
        top_k_hamming(theta_hat[:50], truth, 2, np.random.default_rng(9)),
    )


# ---------------------------------------------------------------- ranking errors


def test_ranking_errors_match_brute_force():
    for m, a, b in _random_pairs(12):
        assert kendall_distance(a, b) == pytest.approx(_bf_kendall(a, b), abs=1e-15)
        assert spearman_footrule(a, b) == pytest.approx(_bf_footrule(a, b), abs=1e-15)
        for k in range(1, m + 1):
            assert top_k_hamming(a, b, k) == pytest.approx(_bf_top_k(a, b, k), abs=1e-15)
        tau = stats.kendalltau(a, b).statistic
        assert kendall_distance(a, b) == pytest.approx((1 - tau) / 2, abs=1e-12)


def test_ranking_errors_batch_equals_loop():
    rng = np.random.default_rng(4)
    theta_hat = rng.normal(size=(6, 5, 12))
    theta = rng.normal(size=12)
    for f in (kendall_distance, spearman_footrule, lambda a, b: top_k_hamming(a, b, 6)):
        out = f(theta_hat, theta)
        assert out.shape == (6, 5)
        for idx in np.ndindex(6, 5):
            assert out[idx] == f(theta_hat[idx], theta)
    # a batch of truths too
    both = kendall_distance(theta_hat, rng.normal(size=(6, 5, 12)))
    assert both.shape == (6, 5)


def test_kendall_all_pairs_and_item_loop_agree(monkeypatch):
    """The all-pairs branch (small batches) and the item loop (large ones) count alike."""
    import dprank.fit.metrics_b as mb

    rng = np.random.default_rng(8)
    cases = [(rng.normal(size=(4, 30)), np.round(rng.normal(size=30), 1))]  # ties in truth
    cases.append((rng.integers(0, 3, size=(2, 3, 9)).astype(float), rng.normal(size=9)))
    small = [kendall_distance(a, b) for a, b in cases]
    monkeypatch.setattr(mb, "_KENDALL_ALL_PAIRS_MAX", 0)
    for (a, b), expected in zip(cases, small, strict=True):
        np.testing.assert_array_equal(kendall_distance(a, b), expected)


def test_ranking_error_invariances():
    rng = np.random.default_rng(6)
    for m in (2, 3, 10, 31, 160):
        theta = rng.normal(size=m)
        rev = -theta
        assert kendall_distance(theta, theta) == 0.0
        assert kendall_distance(rev, theta) == 1.0
        assert spearman_footrule(theta, theta) == 0.0
        assert spearman_footrule(rev, theta) == pytest.approx(2 * (m * m // 2) / m**2)
        # monotone transformations change nothing
        assert kendall_distance(np.exp(theta) + 3, theta) == 0.0
        for k in range(1, m + 1):
            assert top_k_hamming(theta, theta, k) == 0.0
            if k <= m // 2:
                assert top_k_hamming(rev, theta, k) == 1.0
        assert top_k_hamming(rev, theta, m) == 0.0


def test_hamming_grid_and_diaconis_graham():
    rng = np.random.default_rng(8)
    for m in (4, 9, 20):
        theta_hat = rng.normal(size=(400, m)) + np.linspace(0, 2, m) * rng.uniform(0, 3)
        theta = np.linspace(0, 2, m)
        for k in (1, m // 2, m):
            h = top_k_hamming(theta_hat, theta, k)
            np.testing.assert_allclose(h * k, np.round(h * k), atol=1e-12)
            assert np.all((h >= 0) & (h <= 1))
        kd = kendall_distance(theta_hat, theta)
        s = spearman_footrule(theta_hat, theta)
        assert np.all((kd >= 0) & (kd <= 1))
        assert np.all(s <= 2 * kd + 1e-12)
        assert np.all(kd * (m - 1) / m <= s + 1e-12)


def test_argument_checks():
    x = np.arange(5.0)
    for bad in (0, 6, 2.5, True):
        with pytest.raises(ValueError, match="K must be"):
            top_k_hamming(x, x, bad)
    with pytest.raises(ValueError, match="items"):
        kendall_distance(x, np.arange(4.0))
    with pytest.raises(ValueError, match="two items"):
        kendall_distance([1.0], [1.0])


# ---------------------------------------------------------------- prediction band


def _band_by_hand(x, y, x0, level):
    n = len(x)
    xb, yb = sum(x) / n, sum(y) / n
    sxx = sum((a - xb) ** 2 for a in x)
    syy = sum((b - yb) ** 2 for b in y)
    sxy = sum((a - xb) * (b - yb) for a, b in zip(x, y, strict=True))
    slope = sxy / sxx
    intercept = yb - slope * xb
    rss = sum((b - intercept - slope * a) ** 2 for a, b in zip(x, y, strict=True))
    s = (rss / (n - 2)) ** 0.5
    q = stats.t.ppf(0.5 + level / 2, n - 2)
    fit = [intercept + slope * v for v in x0]
    half = [q * s * (1 + 1 / n + (v - xb) ** 2 / sxx) ** 0.5 for v in x0]
    return intercept, slope, sxy / (sxx * syy) ** 0.5, s, fit, half


def test_prediction_band_matches_direct_computation():
    rng = np.random.default_rng(10)
    x = rng.uniform(1, 3, size=40)
    y = 0.1 + 0.05 * x + rng.normal(scale=0.02, size=40)
    x0 = np.linspace(0.5, 3.5, 7)
    for level in (0.95, 0.8):
        band = prediction_band(x, y, x0, level)
        intercept, slope, r, s, fit, half = _band_by_hand(list(x), list(y), list(x0), level)
        assert band.intercept == pytest.approx(intercept, rel=1e-10)
        assert band.slope == pytest.approx(slope, rel=1e-10)
        assert band.r == pytest.approx(r, rel=1e-10)
        assert band.r == pytest.approx(stats.pearsonr(x, y).statistic, rel=1e-10)
        assert band.s == pytest.approx(s, rel=1e-10)
        assert band.n == 40
        np.testing.assert_allclose(band.fit, fit, rtol=1e-10)
        np.testing.assert_allclose(band.upper - band.fit, half, rtol=1e-10)
        np.testing.assert_allclose(band.fit - band.lower, half, rtol=1e-10)
    np.testing.assert_allclose(
        [prediction_band(x, y, x0).slope, prediction_band(x, y, x0).intercept],
        np.polyfit(x, y, 1),
        rtol=1e-10,
    )
    assert prediction_band(x, y, 2.0).fit.shape == ()


def test_prediction_band_coverage():
    """A new observation falls inside the 95% band with probability 0.95 (5 sd check)."""
    rng = np.random.default_rng(13)
    reps, n = 3000, 12
    x = np.linspace(0, 1, n)
    hits = 0
    for _ in range(reps):
        y = 1 + 2 * x + rng.normal(size=n)
        band = prediction_band(x, y, 1.3)
        y_new = 1 + 2 * 1.3 + rng.normal()
        hits += band.lower <= y_new <= band.upper
    assert abs(hits / reps - 0.95) < 5 * np.sqrt(0.95 * 0.05 / reps)


def test_prediction_band_checks():
    with pytest.raises(ValueError, match="at least 3"):
        prediction_band([1, 2], [1, 2], 0)
    with pytest.raises(ValueError, match="constant"):
        prediction_band([1, 1, 1], [1, 2, 3], 0)
    with pytest.raises(ValueError, match="equal length"):
        prediction_band([1, 2, 3], [1, 2], 0)


# ---------------------------------------------------------------- paired t-test


def test_paired_t_test_matches_scipy():
    rng = np.random.default_rng(14)
    ref = rng.uniform(0, 0.2, size=200)
    other = ref + rng.normal(0.01, 0.03, size=200)
    res = paired_t_test(other, ref)
    sp = stats.ttest_rel(other, ref)
    assert res.t == pytest.approx(sp.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(sp.pvalue, rel=1e-10)
    assert res.df == 199 == sp.df
    # batched, along either axis
    a, b = rng.normal(size=(30, 4)), rng.normal(size=(30, 4))
    res = paired_t_test(a, b)
    np.testing.assert_allclose(res.t, stats.ttest_rel(a, b).statistic, rtol=1e-12)
    np.testing.assert_allclose(res.pvalue, stats.ttest_rel(a, b).pvalue, rtol=1e-10)
    np.testing.assert_allclose(paired_t_test(a.T, b.T, axis=1).t, res.t, rtol=1e-12)
    assert paired_t_test(b, a).t == pytest.approx(-res.t)


def test_t_distribution_values_are_scipy_stats_bit_for_bit():
    """prediction_band and paired_t_test evaluate scipy.special's t functions, which give
    scipy.stats.t's values exactly (the jobs do not import scipy.stats)."""
    rng = np.random.default_rng(16)
    a, b = rng.normal(size=(2, 12, 50)) * rng.uniform(0.1, 10, size=50)
    res = paired_t_test(a, b)
    assert res.pvalue.tobytes() == (2.0 * stats.t.sf(np.abs(res.t), res.df)).tobytes()
    # prediction_band's quantile, and the band built on it, as scipy.stats.t.ppf gives them
    q = np.r_[rng.uniform(0.5, 1, size=200), 0.75, 0.95, 0.975]
    for df in (1, 3, 28, 998):
        assert special.stdtrit(df, q).tobytes() == stats.t.ppf(q, df).tobytes()
    x = rng.uniform(0, 5, size=30)
    y = 2 * x + rng.normal(size=30)
    x0 = np.linspace(0, 5, 7)
    sxx = np.sum((x - x.mean()) ** 2)
    for level in (0.5, 0.9, 0.95):
        band = prediction_band(x, y, x0, level)
        half = stats.t.ppf(0.5 + level / 2.0, 28) * band.s
        half = half * np.sqrt(1 + 1 / 30 + (x0 - x.mean()) ** 2 / sxx)
        assert band.lower.tobytes() == (band.fit - half).tobytes()
        assert band.upper.tobytes() == (band.fit + half).tobytes()


def test_paired_t_test_null_calibration():
    """Under H0 the p-values are uniform: P(p < 0.05) = 0.05 within 5 sd."""
    rng = np.random.default_rng(15)
    reps = 4000
    a, b = rng.normal(size=(2, 25, reps))
    p = paired_t_test(a, b).pvalue
    assert abs(np.mean(p < 0.05) - 0.05) < 5 * np.sqrt(0.05 * 0.95 / reps)


# Spec section 1.5 / B2 Table 2 (BTL): t statistics and the printed p-values, R = 200.
PUBLISHED_T = {
    "Count": (4.1219, 5.5e-5),
    "ClassicRR": (3.4277, 7.4e-4),
    "Laplace": (9.4314, 1.1e-17),
}


def _p_from_t(t, df=199):
    """Two-sided p (docs/papers/paper-b.md#s1-5), 2 * t_df.sf(t), from paired_t_test itself."""
    # a paired sample whose t statistic is exactly t: d = (c + e) with mean c, sd 1
    e = np.array([1.0, -1.0] * ((df + 1) // 2))
    e = e / e.std(ddof=1)
    d = t / np.sqrt(df + 1) + e
    res = paired_t_test(d, np.zeros_like(d))
    assert res.t == pytest.approx(t, rel=1e-12) and res.df == df
    return res.pvalue


@pytest.mark.parametrize("method", sorted(PUBLISHED_T))
def test_published_p_values_from_spec(method):
    t, p_printed = PUBLISHED_T[method]
    p = _p_from_t(t)
    assert p == pytest.approx(2 * stats.t.sf(t, 199), rel=1e-10)
    assert float(f"{p:.1e}") == p_printed  # two significant digits, as printed


def test_published_table2_consistent():
    """From the reference CSV: p reproduces from t (df = 199), and each t agrees with the
    means and SEs: the implied SE of the paired difference, (mean_other - mean_ADRR)/t,
    lies within |se_o - se_A| .. se_o + se_A (correlation of the pair in [-1, 1])."""
    if not TABLE2.exists():
        pytest.skip(f"reference table absent: {TABLE2}")
    tab = pd.read_csv(TABLE2, comment="#")
    btl = tab[tab["model"] == "BTL"]
    err = btl[btl["metric"].str.startswith("kendall")].set_index("method")
    tstat = btl[btl["metric"] == "paired_t_statistic_vs_ADRR"].set_index("method")["mean"]
    pval = btl[btl["metric"] == "paired_t_pvalue_vs_ADRR"].set_index("method")["mean"]
    assert sorted(tstat.index) == sorted(PUBLISHED_T)
    for method, t in tstat.items():
        assert (t, pval[method]) == PUBLISHED_T[method]
        p = _p_from_t(t)
        assert float(f"{p:.1e}") == pval[method]
        diff = err.loc[method, "mean"] - err.loc["ADRR", "mean"]
        se_o, se_a = err.loc[method, "se"], err.loc["ADRR", "se"]
        assert diff > 0
        se_diff = diff / t
        slack = 1e-4 / t + 1e-4  # rounding of the printed 4-decimal numbers
        assert abs(se_o - se_a) - slack <= se_diff <= se_o + se_a + slack
