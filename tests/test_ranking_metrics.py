"""Top-k selection, Copeland counts (Algorithm 2), one-shot method and metrics."""

import itertools

import numpy as np
import pytest

from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge, top_k_size
from dprank.fit.metrics import log_rel_l2, log_rel_linf, rel_hamming, true_top_k
from dprank.fit.ranking import copeland_counts, noisy_counts, top_k, top_k_batch
from dprank.privacy.mechanisms import edge_count_noise_scale, edge_mle_noise_scale, standard_laplace
from dprank.privacy.oneshot import (
    dobrushin_coefficient,
    one_shot_noise_scale,
    rank_centrality_matrix,
    stationary_distribution,
)


def test_top_k_ties_stable_and_keyed():
    s = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    np.testing.assert_array_equal(top_k(s, 2), [1, 2])  # ties go to the lower index
    np.testing.assert_array_equal(top_k(s, 2, tie_keys=[0, 5, 1, 0, 0]), [2, 4])
    np.testing.assert_array_equal(top_k_batch(np.stack([s, -s]), 2), [[1, 2], [0, 3]])
    with pytest.raises(ValueError, match="k must be"):
        top_k(s, 0)


def test_counts_and_noise():
    wins = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])
    np.testing.assert_array_equal(copeland_counts(wins), [2, 1, 0])
    np.testing.assert_array_equal(noisy_counts(wins, [0.5, 0, -1]), [2.5, 1, -1])


def test_noise_scales():
    assert edge_mle_noise_scale(0.5) == 16.0
    assert edge_count_noise_scale(0.5) == 4.0
    assert edge_mle_noise_scale(np.inf) == 0.0 and edge_count_noise_scale(np.inf) == 0.0
    # standard Laplace: mean 0, variance 2 (statistical check, 5 sd tolerances)
    x = standard_laplace(np.random.default_rng(0), 200_000)
    assert abs(x.mean()) < 5 * np.sqrt(2 / x.size)
    assert abs(x.var() - 2) < 5 * np.sqrt(20 / x.size)  # var of x^2 = E x^4 - 4 = 20


def test_top_k_size_rounds_half_even():
    assert [top_k_size(n) for n in (10, 14, 18, 100, 350)] == [2, 4, 4, 25, 88]


def test_theta_and_comparisons():
    rng = np.random.default_rng(3)
    theta = theta_paper_a_edge(40, rng)
    assert abs(theta.sum()) < 1e-12
    np.testing.assert_array_equal(true_top_k(theta, 10), np.arange(30, 40))
    wins = sample_er_comparisons(theta, 0.5, rng)
    assert wins.dtype == np.uint8 and np.all(np.diag(wins) == 0)
    assert np.all(wins + wins.T <= 1)
    # statistical: edge density p = 0.5 over 780 pairs, sd 0.018
    density = (wins + wins.T)[np.triu_indices(40, 1)].mean()
    assert abs(density - 0.5) < 5 * 0.018
    # outcomes follow F: 2000 replicates of one pair
    t = np.array([0.0, 1.0])
    w = np.stack([sample_er_comparisons(t, 1.0, rng) for _ in range(2000)])
    frac = w[:, 1, 0].mean()
    expected = 1 / (1 + np.exp(-1))
    assert abs(frac - expected) < 5 * np.sqrt(expected * (1 - expected) / 2000)


def test_dobrushin_coefficient_brute_force():
    rng = np.random.default_rng(5)
    theta = theta_paper_a_edge(12, rng)
    wins = sample_er_comparisons(theta, 0.6, rng)
    d = 12 * 0.6
    p = rank_centrality_matrix(wins, d)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    brute = max(0.5 * np.abs(p[i] - p[j]).sum() for i, j in itertools.combinations(range(12), 2))
    assert dobrushin_coefficient(p, 1 / d) == pytest.approx(brute, abs=1e-12)


def test_stationary_distribution_is_the_unit_eigenvector():
    rng = np.random.default_rng(6)
    wins = sample_er_comparisons(theta_paper_a_edge(15, rng), 1.0, rng)
    p = rank_centrality_matrix(wins, 15.0)
    pi = stationary_distribution(p)
    np.testing.assert_allclose(pi @ p, pi, atol=1e-12)
    vals, vecs = np.linalg.eig(p.T)
    v = np.real(vecs[:, np.argmin(np.abs(vals - 1))])
    np.testing.assert_allclose(pi, v / v.sum(), atol=1e-10)
    assert one_shot_noise_scale(15, 4, 15.0, 0.5, np.inf) == 0.0
    expected = 8 * (2 / (15 * 0.5)) * np.sqrt(4 * np.log(15**3)) / 2.0
    assert one_shot_noise_scale(15, 4, 15.0, 0.5, 2.0) == pytest.approx(expected)


def test_metrics():
    theta = np.array([1.0, -1.0, 0.0, 0.0])
    hat = theta + np.array([0.1, 0.0, -0.2, 0.0])
    assert log_rel_l2(hat, theta) == pytest.approx(np.log(np.sqrt(0.05) / np.sqrt(2)))
    assert log_rel_linf(hat, theta) == pytest.approx(np.log(0.2))
    np.testing.assert_allclose(
        log_rel_l2(np.stack([hat, theta + 1]), theta),
        [log_rel_l2(hat, theta), np.log(2 / np.sqrt(2))],
    )
    assert rel_hamming(np.array([0, 1, 2]), np.array([2, 3, 0])) == pytest.approx(1 / 3)
    np.testing.assert_allclose(
        rel_hamming(np.array([[0, 1], [2, 3]]), np.array([2, 3])), [1.0, 0.0]
    )


def test_estimate_and_noise_shapes_are_checked_once_for_all_callers():
    """metrics, metrics_b and noisy_counts share one check: same items, broadcasting axes."""
    from dprank.fit.metrics_b import rms_error

    theta = np.zeros((3, 4))
    theta[:, 0] = 1.0
    for f in (log_rel_l2, rms_error):
        with pytest.raises(ValueError, match="same number of items"):
            f(np.zeros((3, 5)), theta)
        with pytest.raises(ValueError, match="theta_hat and theta must broadcast"):
            f(np.zeros((2, 4)), theta)
    wins = np.zeros((3, 4, 4))
    with pytest.raises(ValueError, match="noise and the counts of wins must broadcast"):
        noisy_counts(wins, np.zeros((2, 4)))
