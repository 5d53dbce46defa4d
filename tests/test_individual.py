"""Individual DP (Paper A, section 3): user data, batched MLE, mechanisms, stage functions."""

import numpy as np
import pytest

from dprank.data.models import THURSTONE
from dprank.data.simulate import (
    sample_user_comparisons,
    theta_paper_a_individual,
    top_k_size_individual,
)
from dprank.fit.mle import fit_penalized_mle, fit_penalized_mle_batch
from dprank.privacy.mechanisms import (
    individual_count_noise_scale,
    individual_gamma,
    individual_mle_noise_scale,
)
from dprank_papers.grid import NewtonSettings
from dprank_papers.studies.paper_a_individual.estimate import estimate_chunk
from dprank_papers.studies.paper_a_individual.evaluate import metrics_chunk
from dprank_papers.studies.paper_a_individual.privatize import privatize_chunk
from dprank_papers.studies.paper_a_individual.simulate import simulate_chunk


def test_theta_is_uncentred_with_top_items_first():
    theta = theta_paper_a_individual(16, np.random.default_rng(0))
    k = top_k_size_individual(16)
    assert k == 4 and np.all(theta[:k] == 0) and np.all(theta[k:] < 0)
    assert [top_k_size_individual(n) for n in (12, 20, 32)] == [3, 5, 8]


def test_user_comparisons_have_the_right_law():
    rng = np.random.default_rng(1)
    theta = np.array([0.0, -0.5, -1.0])
    wins = sample_user_comparisons(np.tile(theta, (4000, 1)), m=10, L=5, rng=rng)
    assert wins.shape == (4000, 3, 3) and np.all(wins.sum(axis=(1, 2)) == 50)
    counts = wins + np.swapaxes(wins, 1, 2)
    # each of the 3 pairs gets a share 1/3 of the 50 comparisons: mean 16.67, sd 3.33
    per_pair = counts[:, 0, 1]
    assert abs(per_pair.mean() - 50 / 3) < 5 * np.sqrt(50 * (1 / 3) * (2 / 3) / 4000)
    # item 0 beats item 2 with probability sigma(1)
    p = wins[:, 0, 2].sum() / counts[:, 0, 2].sum()
    expected = 1 / (1 + np.exp(-1.0))
    assert abs(p - expected) < 5 * np.sqrt(expected * (1 - expected) / counts[:, 0, 2].sum())


def test_individual_scales():
    assert individual_mle_noise_scale(0.5, 5) == 80.0
    assert individual_gamma(0.5, 5) == 20.0  # 2L/eps
    assert individual_count_noise_scale(0.5, 5) == 10.0
    assert individual_gamma(np.inf, 5) == 0.0 == individual_mle_noise_scale(np.inf, 5)


@pytest.mark.parametrize("gamma", [0.0, 2.0])
@pytest.mark.parametrize("link", [None, THURSTONE])
def test_batch_fit_equals_single_fits(gamma, link):
    rng = np.random.default_rng(2)
    theta = np.array([theta_paper_a_individual(12, rng) for _ in range(25)])
    wins = sample_user_comparisons(theta, m=300, L=5, rng=rng)
    b = 4.0 * rng.laplace(size=(25, 12))
    kw = {} if link is None else {"link": link}
    batch = fit_penalized_mle_batch(wins, gamma, b, **kw)
    assert batch.converged.all()
    assert np.allclose(batch.theta.sum(axis=1), 0, atol=1e-10)
    for r in range(25):
        single = fit_penalized_mle(wins[r], gamma, b[r], sum_zero=True, **kw)
        np.testing.assert_allclose(batch.theta[r], single.theta, atol=1e-8)


def test_batch_fit_shared_matrix_and_errors():
    wins = np.array([[0, 3, 2], [1, 0, 4], [2, 1, 0]])
    b = np.random.default_rng(3).laplace(size=(5, 3))
    fit = fit_penalized_mle_batch(wins, 1.0, b)
    single = fit_penalized_mle(wins, 1.0, b[3], sum_zero=True)
    np.testing.assert_allclose(fit.theta[3], single.theta, atol=1e-9)
    with pytest.raises(ValueError, match="sum_zero"):
        fit_penalized_mle_batch(np.stack([wins] * 5), 0.0, b, sum_zero=False)
    with pytest.raises(ValueError, match="shape"):
        fit_penalized_mle_batch(np.stack([wins] * 5), 1.0, b[:, :2])


def test_stages_chain_and_protocols_share_data():
    cell = {"n": 16, "m": 500, "eps": 1.0}
    data = simulate_chunk(7, "exp6", cell, 5, [0, 1, 2, 3])
    again = simulate_chunk(7, "exp6", cell, 5, [2, 3])  # chunking does not change a replicate
    np.testing.assert_array_equal(data["wins"][2:], again["wins"])
    frames = {}
    for protocol in ("paper", "authors"):
        noise = privatize_chunk(7, "exp6", cell, 5, 1.0, [0, 1, 2, 3], protocol)
        est = estimate_chunk(
            data["wins"], noise, cell, protocol, 5, 0.25, NewtonSettings(1e-10, 100)
        )
        assert est["converged"].all()
        frames[protocol] = metrics_chunk(data["theta"], data["replicate"], est, cell, protocol)
    paper, authors = frames["paper"], frames["authors"]
    assert set(paper["metric"]) == {"log_rel_l2", "log_rel_linf", "rel_hamming", "converged"}
    # same estimates, different truth: ||t - theta||^2 = ||t - theta_c||^2 + n mean(theta)^2
    l2 = {k: f[f["metric"] == "log_rel_l2"]["value"].to_numpy() for k, f in frames.items()}
    theta = data["theta"]
    centred = theta - theta.mean(axis=1, keepdims=True)
    lhs = np.exp(2 * l2["authors"]) * (theta**2).sum(axis=1)
    rhs = np.exp(2 * l2["paper"]) * (centred**2).sum(axis=1) + 16 * theta.mean(axis=1) ** 2
    np.testing.assert_allclose(lhs, rhs, rtol=1e-10)
    assert len(paper) == len(authors)
