"""Public functions reject inputs they cannot handle with a ValueError saying what is wrong.

One test per case (issue 16, "Inputs still accepted"): before, each of these returned a
wrong answer silently (an RR release of 2, an index for NaN scores, inf, a seed from an
object's address) or failed deep inside numpy with a message about something else.
"""

from __future__ import annotations

import numpy as np
import pytest

from dprank.base import seeding
from dprank.data import simulate
from dprank.fit import metrics, mle, ranking, weighted_mle
from dprank.privacy import ldp, mechanisms, oneshot

NAN = float("nan")


@pytest.fixture
def rng():
    return np.random.default_rng(20251122)


# ------------------------------------------------------------------------ ldp


@pytest.mark.parametrize("y", [np.array([0, 2, 1]), np.array([0.0, 0.5]), np.array([-1, 0])])
def test_randomized_response_needs_binary_answers(rng, y):
    with pytest.raises(ValueError, match="y must hold 0/1 comparison outcomes"):
        ldp.randomized_response(y, 1.0, rng)


def test_randomized_response_accepts_every_binary_dtype(rng):
    for y in (np.array([0, 1], np.uint8), np.array([False, True]), np.array([0.0, 1.0])):
        assert set(ldp.randomized_response(y, np.inf, rng).tolist()) == {0, 1}


def test_laplace_release_needs_binary_answers(rng):
    with pytest.raises(ValueError, match="y must hold 0/1 comparison outcomes, got 3"):
        ldp.laplace_release(np.array([0, 3]), 1.0, rng)


def test_debias_needs_binary_releases():
    with pytest.raises(ValueError, match="y_tilde must hold 0/1"):
        ldp.debias(np.array([0, 2]), 1.0)


def test_count_scores_need_binary_observed_releases():
    a = np.array([[True, True, False]])
    with pytest.raises(ValueError, match="observed entries"):
        ldp.count_scores(np.array([[2, 0, 7]]), a)
    # unobserved entries are not looked at
    assert ldp.count_scores(np.array([[1, 0, 7]]), a).sum() == 2


def test_count_ranking_rejects_nan(rng):
    with pytest.raises(ValueError, match="scores contains NaN"):
        ldp.count_ranking(np.array([1.0, NAN, 0.0]), rng)


def test_privacy_constant_needs_a_budget():
    with pytest.raises(ValueError, match="no budget"):
        ldp.privacy_constant(np.array([]))


def test_user_comparisons_need_a_user_count(rng):
    with pytest.raises(ValueError, match=r"L \(users\) must be an integer >= 0, got -1"):
        ldp.sample_user_comparisons_b(np.zeros(3), -1, 0.5, rng)


# -------------------------------------------------------------------- ranking


def test_top_k_rejects_nan_scores():
    with pytest.raises(ValueError, match=r"scores contains NaN \(1 of 3 entries\)"):
        ranking.top_k(np.array([1.0, NAN, 0.0]), 1)


def test_top_k_batch_rejects_nan_scores():
    with pytest.raises(ValueError, match="scores contains NaN"):
        ranking.top_k_batch(np.array([[1.0, 2.0, 0.0], [1.0, NAN, 0.0]]), 1)


@pytest.mark.parametrize("k", [0, 4, 1.5, True])
def test_top_k_needs_an_integer_k_in_range(k):
    with pytest.raises(ValueError, match=r"k must be an integer in 1\.\.3"):
        ranking.top_k(np.array([1.0, 2.0, 0.0]), k)


def test_top_k_needs_one_dimensional_scores():
    with pytest.raises(ValueError, match="one-dimensional"):
        ranking.top_k(np.ones((2, 2)), 1)


def test_noisy_counts_reject_nan_noise():
    with pytest.raises(ValueError, match="noise contains NaN"):
        ranking.noisy_counts(np.zeros((3, 3)), np.array([0.0, NAN, 0.0]))


# -------------------------------------------------------------------- metrics


@pytest.mark.parametrize(("metric", "norm"), [("log_rel_l2", "l2"), ("log_rel_linf", "l_inf")])
def test_relative_errors_need_a_nonzero_truth(metric, norm):
    theta = np.array([[1.0, -1.0, 0.0], [0.0, 0.0, 0.0]])  # the second replicate is all zeros
    with pytest.raises(ValueError, match=f"all zeros \\({norm} norm 0\\)"):
        getattr(metrics, metric)(np.ones(3), theta)


def test_rel_hamming_needs_k_positive():
    with pytest.raises(ValueError, match="k = 0"):
        metrics.rel_hamming(np.zeros(0, dtype=int), np.zeros(0, dtype=int))


@pytest.mark.parametrize("k", [0, 4])
def test_true_top_k_needs_k_in_range(k):
    with pytest.raises(ValueError, match=r"k must be an integer in 1\.\.3"):
        metrics.true_top_k(np.array([0.1, 0.2, 0.3]), k)


def test_true_top_k_rejects_nan():
    with pytest.raises(ValueError, match="theta contains NaN"):
        metrics.true_top_k(np.array([0.1, NAN, 0.3]), 1)


def test_mean_rank_difference_rejects_nan():
    with pytest.raises(ValueError, match="x contains NaN"):
        metrics.mean_rank_difference(np.array([0.1, NAN, 0.3]), np.arange(3.0))


# ------------------------------------------------------------------------ mle


def test_fit_penalized_mle_needs_an_item():
    with pytest.raises(ValueError, match=r"wins must be an \(n, n\) matrix with n >= 1"):
        mle.fit_penalized_mle(np.zeros((0, 0)), 1.0)


def test_penalized_objective_needs_an_item():
    with pytest.raises(ValueError, match="n >= 1"):
        mle.penalized_objective(np.zeros(0), np.zeros((0, 0)), 1.0)


def test_fit_penalized_mle_batch_needs_an_item():
    with pytest.raises(ValueError, match=r"got shape \(2, 0, 0\)"):
        mle.fit_penalized_mle_batch(np.zeros((2, 0, 0)), 1.0)


def test_fit_weighted_mle_needs_an_item():
    with pytest.raises(ValueError, match="m must be an integer >= 1"):
        weighted_mle.fit_weighted_mle(np.zeros(0), np.zeros(0), 0, 1.0)


def test_hessian_eigenvalue_needs_two_items():
    with pytest.raises(ValueError, match="m >= 2"):
        weighted_mle.hessian_min_nonzero_eigenvalue(np.zeros(0), np.zeros(0), np.zeros(1))


# ----------------------------------------------------------------- mechanisms


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: mechanisms.individual_mle_noise_scale(1.0, 0), "L must be an integer >= 1"),
        (lambda: mechanisms.individual_gamma(1.0, 2.5), "L must be an integer >= 1, got 2.5"),
        (lambda: mechanisms.individual_count_noise_scale(1.0, -3), "L must be"),
        (lambda: mechanisms.edge_mle_noise_scale(1.0, kappa1=-1.0), "kappa1 must be positive"),
        (lambda: mechanisms.individual_gamma(1.0, 5, kappa2=0.0), "kappa2 must be positive"),
    ],
)
def test_noise_scales_need_valid_constants(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ------------------------------------------------------------------- simulate


@pytest.mark.parametrize("draw", [simulate.theta_paper_a_edge, simulate.theta_paper_a_individual])
def test_scores_need_an_item(rng, draw):
    with pytest.raises(ValueError, match="n must be an integer >= 1, got 0"):
        draw(0, rng)


@pytest.mark.parametrize("p", [1.5, -0.1, NAN])
def test_er_comparisons_need_a_probability(rng, p):
    with pytest.raises(ValueError, match=r"edge probability p must be in \[0, 1\]"):
        simulate.sample_er_comparisons(np.zeros(4), p, rng)


def test_er_comparisons_need_finite_scores(rng):
    with pytest.raises(ValueError, match="theta must be finite"):
        simulate.sample_er_comparisons(np.array([0.0, NAN, 1.0, 2.0]), 0.5, rng)


def test_user_comparisons_need_two_items(rng):
    with pytest.raises(ValueError, match="at least 2 items, got 1"):
        simulate.sample_user_comparisons(np.zeros(1), 10, 5, rng)


def test_user_comparisons_need_user_counts(rng):
    with pytest.raises(ValueError, match="m must be an integer >= 0, got -1"):
        simulate.sample_user_comparisons(np.zeros(4), -1, 5, rng)


# -------------------------------------------------------------------- oneshot


def test_rank_centrality_needs_a_positive_degree():
    with pytest.raises(ValueError, match="d must be positive"):
        oneshot.rank_centrality_matrix(np.ones((3, 3)), 0.0)


def test_one_shot_noise_scale_needs_a_positive_epsilon():
    with pytest.raises(ValueError, match=r"eps must be positive, got 0\.0"):
        oneshot.one_shot_noise_scale(10, 2, 5.0, 0.5, 0.0)


def test_stationary_distribution_needs_a_square_matrix():
    with pytest.raises(ValueError, match="non-empty square matrix"):
        oneshot.stationary_distribution(np.zeros((0, 0)))


# -------------------------------------------------------------------- seeding


def test_seed_keys_reject_nan():
    with pytest.raises(ValueError, match="NaN"):
        seeding.cell_key({"eps": NAN})


def test_seed_keys_reject_objects_without_a_stable_text():
    class Settings:
        pass

    with pytest.raises(ValueError, match="Settings objects cannot key random streams"):
        seeding.stable_id("exp1", Settings())
