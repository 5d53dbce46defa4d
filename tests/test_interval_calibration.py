"""Calibration of ``p_top_k`` and the coverage study's calibration metric."""

import numpy as np
import pytest
import scipy.special

from dprank.intervals import _interval_likelihood as il
from dprank.intervals import _interval_ranks as ir
from dprank_papers.studies.intervals import _calibration, true_ranks


def test_ece_floor_is_what_a_calibrated_forecaster_shows():
    """Outcomes drawn from the forecasts: the plug-in ECE averages its floor, the debiased
    ECE is near 0; forecasts 0.05 too low: the debiased ECE finds the 0.05."""
    rng = np.random.default_rng(1)
    p = rng.beta(0.5, 2.0, 3000)
    calibrated = [_calibration(p, (rng.random(p.size) < p).astype(float)) for _ in range(200)]
    floor = calibrated[0]["ece_floor"]
    assert all(c["ece_floor"] == floor for c in calibrated)  # a function of p alone
    assert np.mean([c["ece"] for c in calibrated]) == pytest.approx(floor, rel=0.15)
    assert np.mean([c["ece_debiased"] for c in calibrated]) < 0.5 * floor  # most bias removed
    q = np.clip(p + 0.05, 0.0, 1.0)
    off = [_calibration(p, (rng.random(p.size) < q).astype(float)) for _ in range(50)]
    assert np.mean([c["ece_debiased"] for c in off]) == pytest.approx(np.mean(q - p), abs=0.01)
    assert np.mean([c["ece"] for c in off]) > np.mean(q - p)  # the plug-in is biased up


def test_posterior_p_top_k_is_calibrated_on_a_small_simulated_design():
    """Step 5's ``p_top_k`` (the empirical-Bayes posterior of the estimates) on worlds whose
    truth is drawn from a prior, as calibration means: the debiased ECE is within 0.02 and
    the plug-in ECE within its floor plus 0.02, the Brier score below predicting k/n."""
    rng = np.random.default_rng(7)
    n, k, worlds = 30, 3, 60
    v = np.full(n, 0.4**2)
    finite, none = np.ones(n, dtype=bool), np.full(n, np.inf)
    p, y = [], []
    for _ in range(worlds):
        theta = rng.normal(0.0, 1.0, n)
        t = theta + np.sqrt(v) * rng.standard_normal(n)
        nodes, weights = ir.npmle_prior(t, v, finite, -none, none, rng)
        ranks = ir.npmle_ranks(t, v, finite, -none, none, nodes, weights, 400, rng)
        p.append(np.mean(ranks <= k, axis=0))
        y.append((true_ranks(theta)[0] <= k).astype(float))
    p, y = np.concatenate(p), np.concatenate(y)
    cal = _calibration(p, y)
    assert cal["ece_debiased"] <= 0.02
    assert cal["ece"] <= cal["ece_floor"] + 0.02
    assert np.mean((p - y) ** 2) < np.mean((k / n - y) ** 2)


@pytest.mark.parametrize("share", [0.0, 0.3, 0.8, 1.0])
def test_error_density_is_a_density_of_the_stated_variance(share):
    x = np.linspace(-40.0, 40.0, 80001)
    f = il.error_density(x, 2.0, share)
    dx = x[1] - x[0]
    assert np.sum(f) * dx == pytest.approx(1.0, abs=1e-6)
    assert np.sum(x * x * f) * dx == pytest.approx(2.0, rel=1e-4)
    if share == 1.0:  # the Laplace law itself: scale 1 for variance 2
        assert f[40000] == pytest.approx(0.5)


def _top_k_forecasts(share, rng, worlds=80, n=40, k=4, sd=0.33):
    """Forecasts and outcomes on worlds with uniform truths and Laplace-normal errors."""
    v = np.full(n, sd * sd)
    finite, none = np.ones(n, dtype=bool), np.full(n, np.inf)
    lap, nrm = np.sqrt(0.5 * 0.8 * v), np.sqrt(0.2 * v)
    p, y = [], []
    for _ in range(worlds):
        theta = rng.uniform(-1.5, 1.5, n)
        t = theta + rng.laplace(0.0, lap) + nrm * rng.standard_normal(n)
        sh = None if share is None else np.full(n, share)
        p.append(ir.top_k_probability(t, v, finite, -none, none, sh, k, 400, rng))
        y.append((true_ranks(theta)[0] <= k).astype(float))
    return np.concatenate(p), np.concatenate(y)


def test_p_top_k_under_laplace_noise_needs_the_noise_law():
    """Errors mostly Laplace (80% of the variance): the posterior with their law is
    calibrated (debiased ECE within 0.01, the plug-in within its floor plus 0.01); the
    normal likelihood of the same variance is worse on the same worlds."""
    own = _calibration(*_top_k_forecasts(0.8, np.random.default_rng(3)))
    normal = _calibration(*_top_k_forecasts(None, np.random.default_rng(3)))
    assert own["ece_debiased"] <= 0.01
    assert own["ece"] <= own["ece_floor"] + 0.01
    assert normal["ece_debiased"] > own["ece_debiased"]


def _correlated_worlds(rng, coupled, worlds, n, sd, rho):
    """Worlds whose errors are correlated among neighbours (the correlation
    ``rho ** |r_i - r_j|`` of the true places, as on a wide score scale): for each, the true
    places, the estimates, their variances and the coupling of the draws (None: independent)."""
    v = np.full(n, sd * sd)
    for _ in range(worlds):
        theta = rng.uniform(-2.0, 2.0, n)
        place = true_ranks(theta)[0]
        cov = v[0] * rho ** np.abs(place[:, None] - place[None, :]).astype(float)
        t = theta + np.linalg.cholesky(cov) @ rng.standard_normal(n)
        finite = np.ones(n, dtype=bool)
        dep = ir.posterior_dependence(cov, v, finite, float(np.var(t) - v[0])) if coupled else None
        yield place, t, v, dep


def _correlated_forecasts(rng, coupled, worlds=60, n=40, k=4, sd=0.35, rho=0.6):
    """Forecasts and outcomes on :func:`_correlated_worlds`."""
    finite, none = np.ones(n, dtype=bool), np.full(n, np.inf)
    p, y = [], []
    for place, t, v, dep in _correlated_worlds(rng, coupled, worlds, n, sd, rho):
        p.append(ir.top_k_probability(t, v, finite, -none, none, None, k, 400, rng, dep))
        y.append((place <= k).astype(float))
    return np.concatenate(p), np.concatenate(y)


def test_p_top_k_with_correlated_errors_needs_their_dependence():
    """Neighbours' errors correlated (0.6 between adjacent places): the draws coupled by
    :func:`posterior_dependence` are calibrated (debiased ECE within 0.02) and sharper than
    independent draws, which spread the neighbours' order too much: a lower Brier score
    on the same worlds, by at least 5%."""
    own = _correlated_forecasts(np.random.default_rng(5), True)
    flat = _correlated_forecasts(np.random.default_rng(5), False)
    assert _calibration(*own)["ece_debiased"] <= 0.02
    brier_own = np.mean((own[0] - own[1]) ** 2)
    brier_flat = np.mean((flat[0] - flat[1]) ** 2)
    assert brier_own < 0.95 * brier_flat


def _correlated_rank_intervals(rng, coupled, worlds=40, n=40, sd=0.35, rho=0.9, alpha=0.05):
    """Coverage and mean width of step 4's rank intervals (posterior quantiles extended to
    the ends) on :func:`_correlated_worlds`."""
    finite, none, no = np.ones(n, dtype=bool), np.full(n, np.inf), np.zeros(n, dtype=bool)
    cover, width = [], []
    for place, t, v, dep in _correlated_worlds(rng, coupled, worlds, n, sd, rho):
        nodes, weights = ir.npmle_prior(t, v, finite, -none, none, rng)
        ranks = ir.npmle_ranks(t, v, finite, -none, none, nodes, weights, 400, rng, dependence=dep)
        lo, hi = ir.quantile_ranks(ranks, alpha)
        lo, hi = ir.extend_to_ends(t, v, finite, alpha, lo, hi, no, no)
        cover.append((lo <= place) & (place <= hi))
        width.append(hi - lo + 1)
    return float(np.mean(cover)), float(np.mean(width))


def test_rank_intervals_with_correlated_errors_are_narrower_when_coupled():
    """Neighbours' errors correlated (0.9 between adjacent places): the rank intervals from
    draws coupled by :func:`posterior_dependence` keep their coverage and are narrower than
    from independent draws, which order the neighbours less surely than the estimates do
    (on three seeds 5 to 6% narrower: the bound asks for 3%)."""
    cover_own, width_own = _correlated_rank_intervals(np.random.default_rng(5), True)
    cover_flat, width_flat = _correlated_rank_intervals(np.random.default_rng(5), False)
    assert cover_own >= 0.95 and cover_flat >= 0.95
    assert width_own < 0.97 * width_flat


def test_posterior_dependence_follows_the_errors_where_the_data_dominate():
    """The copula's correlation: the errors' where the prior is wide, none where it is narrow."""
    n = 5
    cov = 0.04 * (0.5 + 0.5 * np.eye(n))
    v, finite = np.full(n, 0.04), np.ones(n, dtype=bool)
    wide = ir.posterior_dependence(cov, v, finite, 1e4)
    narrow = ir.posterior_dependence(cov, v, finite, 1e-6)
    R = wide.posterior @ wide.posterior.T
    assert R[0, 1] == pytest.approx(0.5, abs=1e-3)
    assert (wide.errors @ wide.errors.T)[0, 1] == pytest.approx(0.5, abs=1e-6)
    assert abs((narrow.posterior @ narrow.posterior.T)[0, 1]) < 1e-3
    assert ir.posterior_dependence(None, v, finite, 1.0) is None


def test_a_censored_items_likelihood_is_its_noisy_totals():
    """An item whose noisy total lies beyond what it can win: its likelihood is the noise's
    density of the total it would win at each score (rising to a plateau), not the indicator
    of its score bound, which calls the bound certain."""
    n = 6
    a, b = np.triu_indices(n, 1)
    N = np.full(a.size, 5.0)
    at = np.linspace(-1.0, 1.0, n)
    W = np.array([27.0, 10.0, 12.0, 13.0, 14.0, 15.0])  # item 0 played 25: beyond its end
    like = il.TotalLikelihood(W, at, a, b, N, scipy.special.expit, 2.0 * 4.0**2, np.full(n, 2.0))
    nodes = np.linspace(-3.0, 6.0, 91)
    got = like(np.array([0]), nodes)[0]
    mine = (a == 0) | (b == 0)
    other = np.where(a[mine] == 0, b[mine], a[mine])
    mu = scipy.special.expit(nodes[:, None] - at[other][None, :]) @ N[mine]
    direct = il.error_density(W[0] - mu, 32.0 + 2.0, 32.0 / 34.0)
    assert got == pytest.approx(direct / direct.max())
    assert np.all(np.diff(got) >= -1e-12)  # never less likely higher up
    graded = (got > 0.05) & (got < 0.95)
    assert np.sum(graded) >= 10  # over a unit of score at least: no step at one bound


def _smoothing_widths(law, seeds, n=200, sd=0.4):
    """The smoothing :func:`ir.smoothing_width` chooses for ``p_top_k``'s prior (in multiples
    of the standard error) on one world per seed: scores ``law``, normal errors of sd ``sd``."""
    out = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        theta = law(rng, n)
        v, finite, none = np.full(n, sd * sd), np.ones(n, dtype=bool), np.full(n, np.inf)
        t = theta + sd * rng.standard_normal(n)
        nodes, L = ir._prior_grid(t, v, finite, -none, none, rng, None, None)
        out.append(ir.smoothing_width(nodes, L, sd, ir.TOP_K_PRIOR_ITERATIONS) / sd)
    return np.array(out)


def test_p_top_k_prior_is_smoothed_where_scores_spread_and_not_where_they_tie():
    """Scores in five tied levels: the held-out likelihood keeps the unsmoothed prior on
    every world; scores spread evenly over a scale twenty standard errors wide: it smooths
    on most worlds (a prior fitted to noisy items clumps there)."""
    ties = _smoothing_widths(lambda rng, n: np.repeat(np.linspace(0.0, 3.0, 5), n // 5), range(8))
    even = _smoothing_widths(lambda rng, n: rng.uniform(0.0, 8.0, n), range(8))
    assert np.all(ties == 0.0)
    assert np.sum(even > 0.0) >= 6
    assert set(np.round(even / ir.SMOOTHING_WIDTHS[1])) <= {
        round(f / ir.SMOOTHING_WIDTHS[1]) for f in ir.SMOOTHING_WIDTHS
    }


def test_smoothing_keeps_the_mass_and_width_zero_keeps_the_weights():
    nodes = np.linspace(-3.0, 3.0, 61)
    w = np.zeros(61)
    w[[10, 30, 45]] = [0.2, 0.5, 0.3]
    assert ir.smoothed(nodes, w, 0.0) is w
    s = ir.smoothed(nodes, w, 0.5)
    assert s.sum() == pytest.approx(1.0)
    assert np.all(s >= 0.0) and s[30] < 0.5 and s[29] > 0.0
    assert nodes @ s == pytest.approx(nodes @ w, abs=0.01)  # spread about each node
    s = ir.smoothed(nodes, np.eye(61)[0], 0.5)  # a node at an end: its mass stays on the grid
    assert s.sum() == pytest.approx(1.0) and s[0] > s[5] > 0.0
