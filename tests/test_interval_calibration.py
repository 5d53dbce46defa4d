"""Calibration of ``p_top_k`` and the coverage study's calibration metric."""

import numpy as np
import pytest

from dprank import _interval_ranks as ir
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
