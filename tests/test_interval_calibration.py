"""Calibration of ``p_top_k`` and the coverage study's calibration metric."""

import numpy as np
import pytest

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
    f = ir.error_density(x, 2.0, share)
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
