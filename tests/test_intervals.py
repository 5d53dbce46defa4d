"""Intervals for scores and ranks of a private ranking (dprank.intervals, issue 36)."""

import numpy as np
import pandas as pd
import pytest

from dprank.comparisons import Comparisons
from dprank.intervals import (
    NO_INTERVALS,
    TIES_METHODS,
    EdgeDesign,
    IntervalError,
    UserDesign,
    _eb_ridge,
    _Equation,
    _win_totals,
    intervals,
    public_design,
    supports,
)
from dprank.mechanisms import edge_mle_noise_scale, standard_laplace
from dprank.methods import all_methods, get_method, release_local
from dprank.metrics_b import ranks as rank_scores
from dprank.models import BTL
from dprank.studies.intervals import check_section, simulate_design, summarise


def _design(n=12, p=1.0, per_pair=20, seed=0):
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(n, 1)
    keep = rng.random(a.size) < p
    return EdgeDesign(n, a[keep], b[keep], np.full(int(keep.sum()), float(per_pair)))


def _theta(n, seed=1):
    t = np.random.default_rng(seed).uniform(-1.5, 1.5, n)
    return t - t.mean()


def _wins(c: Comparisons) -> np.ndarray:
    ps = c.pair_statistics()
    return np.bincount(ps.a, ps.w, c.n_items) + np.bincount(ps.b, ps.n - ps.w, c.n_items)


def test_inversion_recovers_the_noisy_win_totals_of_algorithm_1():
    # The released scores of Algorithm 1 solve sum_j N_ij F(s_i - s_j) + gamma s_i = W - b:
    # the inversion must give back W - b (shifted to the total), here rebuilt from the seed.
    des = _design(n=15, p=0.6, per_pair=3)
    data = des.simulate(_theta(15), BTL, np.random.default_rng(5))
    fit = get_method("edge_mle").fit(data, 1.0, np.random.default_rng(9), xtol=1e-13)
    b = edge_mle_noise_scale(1.0) * standard_laplace(np.random.default_rng(9), 15)
    expected = _wins(data) - b
    expected += (des.count.sum() - expected.sum()) / 15
    eq = _Equation(15, des.a, des.b, des.count, BTL, 0.0)
    got = _win_totals("edge_mle", fit.scores, fit.details, eq, 1.0, des.count.sum())
    np.testing.assert_allclose(got, expected, atol=1e-6)


def test_counts_invert_to_themselves_and_the_fit_undoes_the_ridge():
    des = _design()
    theta = _theta(12)
    eq = _Equation(12, des.a, des.b, des.count, BTL, 0.0)
    exact = eq.expected_wins(theta)
    # noiseless expected counts: the debiased estimate is theta up to the tiny ridge
    frame = intervals(exact, "nonprivate_counts", None, des, n_boot=20, rng=0, ridge=1e-9)
    np.testing.assert_allclose(frame["estimate"], theta, atol=1e-6)


def test_coverage_on_a_small_design_within_sampling_tolerance():
    des = _design(n=12, p=1.0, per_pair=20)
    meth = get_method("edge_counts")
    rng = np.random.default_rng(11)
    rows = []
    for r in range(20):
        theta = _theta(12, seed=100 + r)
        fit = meth.fit(des.simulate(theta, BTL, rng), 2.0, rng)
        f = intervals(fit.scores, meth, 2.0, des, n_boot=100, rng=r)
        rows.append(f.assign(design="d", replicate=r, theta=theta, true_rank=rank_scores(theta)))
    spec = {"d": {"method": "edge_counts", "epsilon": 2.0, "graph": "dense"}}
    s = summarise(pd.concat(rows), spec, 0.93).iloc[0]
    # 240 pairs: nominal 0.95 within about four standard errors, and not trivially wide
    assert 0.88 <= s.score_cover <= 0.995
    assert 0.88 <= s.rank_cover
    assert s.rank_width < 6  # of 12 ranks: informative
    # intervals that ignore the privacy noise and half the sampling noise cover far less
    narrow = pd.concat(rows)
    mid = (narrow.score_lo + narrow.score_hi) / 2
    half = (narrow.score_hi - narrow.score_lo) / 4
    assert np.mean((mid - half <= narrow.theta) & (narrow.theta <= mid + half)) < 0.8


@pytest.mark.parametrize("interval", ["eb", "basic", "percentile"])
def test_intervals_contain_the_point_estimate(interval):
    des = _design(n=10, p=1.0, per_pair=30)
    rng = np.random.default_rng(2)
    fit = get_method("edge_mle").fit(des.simulate(_theta(10), BTL, rng), 4.0, rng)
    f = intervals(fit.scores, "edge_mle", 4.0, des, n_boot=200, rng=3, interval=interval, top_k=3)
    assert list(f.columns) == [
        "item", "estimate", "score_lo", "score_hi", "rank_lo", "rank_hi", "p_top_k",
    ]  # fmt: skip
    assert np.all((f.score_lo <= f.estimate) & (f.estimate <= f.score_hi))
    est_rank = rank_scores(f.estimate.to_numpy())
    assert np.all((f.rank_lo <= est_rank) & (est_rank <= f.rank_hi))
    assert np.all((f.rank_lo >= 1) & (f.rank_hi <= 10) & (f.rank_lo <= f.rank_hi))
    assert f.p_top_k.between(0, 1).all()
    assert f.p_top_k.sum() == pytest.approx(3.0)


def test_only_public_inputs_one_outcome_changes_nothing():
    des = _design(n=10, p=0.7, per_pair=1)
    data = des.simulate(_theta(10), BTL, np.random.default_rng(4))
    y = data.y.copy()
    y[0] = 1.0 - y[0]
    other = Comparisons(n_items=10, i=data.i, j=data.j, y=y, count=data.count)
    scores = get_method("edge_mle").fit(data, 1.0, np.random.default_rng(1)).scores
    one = intervals(scores, "edge_mle", 1.0, data, n_boot=30, rng=7)
    two = intervals(scores, "edge_mle", 1.0, other, n_boot=30, rng=7)
    pd.testing.assert_frame_equal(one, two)
    assert isinstance(public_design(data, "edge_mle"), EdgeDesign)
    # the scores do matter
    three = intervals(scores + np.linspace(0, 1, 10), "edge_mle", 1.0, data, n_boot=30, rng=7)
    assert not one.equals(three)


def test_individual_design_holds_only_n_m_and_L():
    rng = np.random.default_rng(3)
    spec = {"method": "individual_mle", "epsilon": 2.0, "users": 300, "per_user": 5}
    raw = simulate_design(spec, _theta(8), rng)
    des = public_design(raw, "individual_mle", max_per_user=6)
    assert des == UserDesign(8, 300, 6)
    fit = get_method("individual_mle").fit(raw, 2.0, rng)
    f = intervals(fit.scores, "individual_mle", 2.0, des, n_boot=30, rng=1)
    assert np.all(f.score_lo <= f.score_hi)
    with pytest.raises(IntervalError, match="individual_mle protects users"):
        intervals(fit.scores, "individual_mle", 2.0, EdgeDesign.from_comparisons(raw))


def test_local_intervals_use_the_release():
    rng = np.random.default_rng(6)
    spec = {"method": "local_adrr", "epsilon": 2.0, "users": 300, "per_user": 5}
    raw = simulate_design(spec, _theta(8), rng)
    release = release_local(raw, np.full(raw.n_users, 2.0), rng)
    fit = get_method("local_adrr").fit(release, 2.0, rng)
    f = intervals(fit.scores, "local_adrr", None, release, n_boot=30, rng=1)
    assert np.all(f.score_lo <= f.score_hi)
    with pytest.raises(IntervalError, match="local_adrr is local"):
        intervals(fit.scores, "local_adrr", None, EdgeDesign.from_comparisons(release))


@pytest.mark.parametrize("name", sorted(NO_INTERVALS))
def test_methods_without_scores_are_rejected_by_name(name):
    des = _design(n=6)
    with pytest.raises(IntervalError, match=f"method {name} has no intervals"):
        intervals(np.arange(6.0), name, 1.0, des)


def test_every_registered_method_is_covered_or_rejected():
    for m in all_methods():
        assert supports(m) != (m.name in NO_INTERVALS), m.name


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"level": 1.5}, "level must be in"),
        ({"top_k": 0}, "top_k must be between 1 and 6"),
        ({"n_boot": 5}, "n_boot must be at least 20"),
        ({"kind": "exact"}, "kind must be"),
        ({"interval": "bca"}, "interval must be"),
        ({"ridge": "auto"}, "ridge must be 'eb' or a positive number"),
        ({"ridge": -1.0}, "ridge must be 'eb' or a positive number"),
        ({"model": "probit"}, "unknown comparison model name 'probit'"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(IntervalError, match=match):
        intervals(np.arange(6.0), "edge_counts", 1.0, _design(n=6), **kwargs)


def test_edge_method_needs_epsilon_and_matching_design():
    with pytest.raises(IntervalError, match="edge_mle needs its positive, finite epsilon"):
        intervals(np.zeros(6), "edge_mle", None, _design(n=6))
    with pytest.raises(IntervalError, match="edge_mle supports the model"):
        intervals(np.zeros(6), "edge_mle", 1.0, _design(n=6), model="tm")
    with pytest.raises(IntervalError, match="design has 6 items but 7 scores"):
        intervals(np.zeros(7), "edge_mle", 1.0, _design(n=6))


def test_asymptotic_form_agrees_with_the_bootstrap():
    des = _design(n=30, p=0.5, per_pair=20)
    rng = np.random.default_rng(8)
    fit = get_method("edge_mle").fit(des.simulate(_theta(30), BTL, rng), 2.0, rng)
    boot = intervals(fit.scores, "edge_mle", 2.0, des, n_boot=300, rng=1)
    asym = intervals(fit.scores, "edge_mle", 2.0, des, n_boot=300, rng=1, kind="asymptotic")
    np.testing.assert_allclose(asym.estimate, boot.estimate)
    w_boot = (boot.score_hi - boot.score_lo).mean()
    w_asym = (asym.score_hi - asym.score_lo).mean()
    assert w_asym == pytest.approx(w_boot, rel=0.15)
    with pytest.raises(IntervalError, match="kind='asymptotic' covers edge DP"):
        intervals(fit.scores[:8], "individual_mle", 1.0, UserDesign(8, 50, 4), kind="asymptotic")


def test_study_config_checks():
    section = {
        "selected": ["a", "zz"],
        "designs": {
            "a": {"method": "edge_mle", "epsilon": 1.0, "graph": "dense", "p": 1.0, "per_pair": 1},
            "b": {"method": "edge_one_shot", "epsilon": 1.0, "graph": "dense", "p": 1.0,
                  "per_pair": 1},
            "c": {"method": "individual_mle", "epsilon": 1.0, "graph": "dense", "p": 1.0,
                  "per_pair": 1},
        },
    }  # fmt: skip
    problems = "\n".join(check_section(section))
    assert "'zz' is not a design" in problems
    assert "edge_one_shot has no intervals" in problems
    assert "individual_mle protects users" in problems


@pytest.mark.parametrize(
    "name", [m.name for m in all_methods() if supports(m) and m.name not in TIES_METHODS]
)
def test_every_scoring_method_gets_intervals_from_its_release(name):
    # (the ties methods' intervals bootstrap their release: tests/test_ties.py)
    # what Ranking.intervals does: the release's scores, its calibration and the public design
    meth = get_method(name)
    rng = np.random.default_rng(21)
    theta = _theta(8, seed=3)
    if meth.privacy_unit == "user":
        spec = {"method": name, "epsilon": 2.0, "users": 400, "per_user": 6}
        data = simulate_design(spec, theta, rng)
    else:
        data = _design(n=8, per_pair=30).simulate(theta, BTL, rng)
    eps = 2.0 if meth.private and meth.trust_model != "local" else None
    if meth.trust_model == "local":
        data = release_local(data, np.full(data.n_users, 2.0), rng, meth.release or "rr")
    fit = meth.fit(data, np.inf if eps is None else eps, rng)
    design = public_design(data, meth)
    labels = np.array(list("abcdefgh"))
    f = intervals(
        fit.scores, meth, eps, design, n_boot=40, rng=2, calibration=fit.details, items=labels
    )
    assert f["item"].tolist() == labels.tolist()
    assert np.all(np.isfinite(f[["score_lo", "score_hi"]].to_numpy()))
    assert np.all(f.score_lo <= f.score_hi) and np.all(f.rank_lo <= f.rank_hi)
    # the truth's order is not contradicted wholesale: most true ranks are covered
    covered = (f.rank_lo <= rank_scores(theta)) & (rank_scores(theta) <= f.rank_hi)
    assert covered.mean() >= 0.5


def _noisy_totals(des, theta, scale, rng):
    """Win totals of BTL data on ``des`` plus Laplace(scale) noise per item."""
    eq = _Equation(des.n_items, des.a, des.b, des.count, BTL, 0.0)
    return _wins(des.simulate(theta, BTL, rng)) + scale * rng.laplace(size=des.n_items), eq


def test_eb_ridge_estimates_the_spread_of_the_scores():
    des = _design(n=40, p=1.0, per_pair=5)
    rng = np.random.default_rng(31)
    taus = []
    for tau in (0.4, 1.2):
        got = []
        for _ in range(15):
            theta = tau * rng.standard_normal(40)
            w, _ = _noisy_totals(des, theta - theta.mean(), 4.0, rng)
            got.append(_eb_ridge(w, 2 * 4.0**2, des.a, des.b, des.count, BTL)[1])
        taus.append(np.mean(got))
        # matched one standard error above the observed spread: not understated on average
        assert tau < np.mean(got) < 1.5 * tau
    assert taus[0] < taus[1]


def test_eb_ridge_grows_with_the_noise_and_keeps_a_floor():
    des = _design(n=30, p=1.0, per_pair=4)
    rng = np.random.default_rng(32)
    w, _ = _noisy_totals(des, _theta(30), 3.0, rng)
    rho_low, tau_low = _eb_ridge(w, 2 * 3.0**2, des.a, des.b, des.count, BTL)
    rho_high, tau_high = _eb_ridge(w, 2 * 10.0**2, des.a, des.b, des.count, BTL)
    # the same totals read as noisier: less signal, a larger ridge
    assert tau_high < tau_low and rho_high > rho_low
    # totals that are pure noise: the prior spread stays above 0 (one standard error)
    flat = np.full(30, w.mean()) + 10.0 * rng.laplace(size=30)
    rho, tau = _eb_ridge(flat, 2 * 10.0**2, des.a, des.b, des.count, BTL)
    assert tau > 0 and np.isfinite(rho)


def test_eb_estimate_stays_moderate_where_the_noise_dominates():
    # Algorithm 3 with Laplace(8 L / eps) on win totals of about 30 comparisons per item:
    # a small fixed ridge gives extreme estimates, the noise-adapted one does not
    rng = np.random.default_rng(33)
    spec = {"method": "individual_mle", "epsilon": 2.0, "users": 100, "per_user": 4}
    theta = _theta(15)
    raw = simulate_design(spec, theta, rng)
    fit = get_method("individual_mle").fit(raw, 2.0, rng)
    des = public_design(raw, "individual_mle", max_per_user=4)
    common = {"n_boot": 40, "rng": 4, "calibration": fit.details}
    eb = intervals(fit.scores, "individual_mle", 2.0, des, **common)
    fixed = intervals(fit.scores, "individual_mle", 2.0, des, ridge=0.02, **common)
    assert 2 * np.abs(eb.estimate).max() < np.abs(fixed.estimate).max()
    # and its intervals hold most true scores (40 bootstrap draws, 15 items)
    covered = (eb.score_lo <= theta) & (theta <= eb.score_hi)
    assert covered.mean() >= 0.8
