"""Tests of the B1 MovieLens study (B1 section 5.3, Figure 7; docs/papers/paper-b.md#s4-2, A28)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank.privacy.ldp import rr_flip_probability
from dprank_papers.studies.paper_b1_movielens import (
    expected_comparisons,
    read_ratings,
    reference_theta,
    sample_released_wins,
    simulate_cell,
    simulate_replicate,
    user_comparisons,
)

ROOT = Path(__file__).resolve().parents[1]
METRICS = {"kendall_tau_K", "topK_hamming_HK_K=10", "l2_over_sqrt_m", "linf", "eps", "converged"}


@pytest.fixture(scope="module")
def path(mirror) -> Path:
    return mirror / "movielens_latest_small" / "ratings.csv"


@pytest.fixture(scope="module")
def data(path):
    return read_ratings(path)


@pytest.fixture(scope="module")
def theta_ref(data):
    return reference_theta(data.ratings)


# ---------------------------------------------------------------------------
# reader


def test_reader_real_file(path, data):
    assert data.m == 40
    assert data.n_users == 610
    assert data.ratings.shape == (610, 40)
    assert np.all(np.diff(data.counts) <= 0)
    assert np.unique(data.movie_ids).size == 40
    # the matrix holds exactly the counted ratings
    np.testing.assert_array_equal(np.isfinite(data.ratings).sum(axis=0), data.counts)
    frame = pd.read_csv(path)
    direct = frame.groupby("movieId").size()
    for i in (0, 13, 39):
        assert data.counts[i] == direct[data.movie_ids[i]]
    # Forrest Gump (356) is the most-rated movie of ml-latest-small, 329 ratings
    assert data.movie_ids[0] == 356 and data.counts[0] == 329
    # no movie outside the selection is rated more often than the last one kept
    assert direct.drop(data.movie_ids).max() <= data.counts[-1]
    # a spot rating: user 1 rated movie 356 with 4.0
    u = int(np.searchsorted(data.users, 1))
    i = int(np.flatnonzero(data.movie_ids == 356)[0])
    assert data.ratings[u, i] == frame.query("userId == 1 and movieId == 356").rating.item()


def test_reader_ties_and_bad_columns(tmp_path):
    csv = tmp_path / "ratings.csv"
    pd.DataFrame(
        {
            "userId": [1, 1, 2, 2, 3, 3],
            "movieId": [20, 10, 20, 10, 30, 5],
            "rating": [4.0, 3.0, 2.5, 5.0, 1.0, 2.0],
        }
    ).to_csv(csv, index=False)
    d = read_ratings(csv, n_movies=3)
    # movies 10 and 20 have 2 ratings each (10 first), then 5 and 30 tie at 1 -> 5
    np.testing.assert_array_equal(d.movie_ids, [10, 20, 5])
    np.testing.assert_array_equal(d.users, [1, 2, 3])
    assert d.ratings[0, 1] == 4.0 and np.isnan(d.ratings[2, 0]) and d.ratings[2, 2] == 2.0

    bad = tmp_path / "bad.csv"
    pd.DataFrame({"user": [1], "movieId": [1], "rating": [1.0]}).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="userId"):
        read_ratings(bad)


# ---------------------------------------------------------------------------
# comparisons

NAN = np.nan
#: users x movies; pairs (0,1), (0,2), (1,2)
HAND = np.array(
    [
        [4.0, 3.0, 4.0],  # 4 > 3: y=1; tie: coin; 3 < 4: y=0
        [NAN, 2.0, NAN],  # only 1 rated: y=0; neither: coin; only 1 rated: y=1
        [5.0, NAN, NAN],  # only 0 rated: y=1; only 0 rated: y=1; neither: coin
    ]
)
FIXED = {(0, 0): 1, (0, 2): 0, (1, 0): 0, (1, 2): 1, (2, 0): 1, (2, 1): 1}
COINS = [(0, 1), (1, 1), (2, 2)]


def test_user_comparisons_rules():
    reps = 4000
    y = user_comparisons(np.tile(HAND, (reps, 1)), np.random.default_rng(5))
    assert y.dtype == np.uint8 and y.shape == (3 * reps, 3)
    y = y.reshape(reps, 3, 3)
    for (u, k), v in FIXED.items():
        assert np.all(y[:, u, k] == v), (u, k)
    for u, k in COINS:
        share = y[:, u, k].mean()
        assert 0 < share < 1  # both outcomes occur
        assert abs(share - 0.5) < 5 * np.sqrt(0.25 / reps), (u, k, share)

    e = expected_comparisons(HAND)
    assert e.shape == (3, 3)
    for (u, k), v in FIXED.items():
        assert e[u, k] == v
    for u, k in COINS:
        assert e[u, k] == 0.5


def test_user_comparisons_reproducible():
    a = user_comparisons(HAND, np.random.default_rng(1))
    b = user_comparisons(HAND, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------
# RR counts


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_released_wins_law(eps):
    L, draws = 150, 20000
    k = np.array([0, 10, 75, 140, 150])
    p = rr_flip_probability(eps)
    rng = np.random.default_rng(11)
    released = np.array([sample_released_wins(k, L, eps, rng) for _ in range(draws)])
    assert released.min() >= 0 and released.max() <= L
    mean = k * (1 - p) + (L - k) * p
    se = np.sqrt(L * p * (1 - p) / draws)
    assert np.all(np.abs(released.mean(axis=0) - mean) < 5 * se)
    # variance of a sum of independent Bernoullis: L p (1 - p)
    np.testing.assert_allclose(released.var(axis=0), L * p * (1 - p), rtol=0.05)


def test_released_wins_no_privacy():
    k = np.array([0, 3, 7])
    out = sample_released_wins(k, 7, np.inf, np.random.default_rng(0))
    np.testing.assert_array_equal(out, k)


# ---------------------------------------------------------------------------
# reference and replicates


def test_reference_theta(data, theta_ref):
    assert theta_ref.shape == (40,)
    assert abs(theta_ref.sum()) < 1e-10
    mean_rating = np.nanmean(data.ratings, axis=0)
    assert np.corrcoef(theta_ref, mean_rating)[0, 1] > 0.5
    # rated movies beat unrated ones, so popularity matters as well
    assert np.corrcoef(theta_ref, data.counts)[0, 1] > 0.5
    # deterministic
    np.testing.assert_array_equal(theta_ref, reference_theta(data.ratings))


def test_replicate_reproducible_and_independent(data, theta_ref):
    one = simulate_replicate(data.ratings, theta_ref, 200, 1, seed=7, r=3)
    again = simulate_replicate(data.ratings, theta_ref, 200, 1, seed=7, r=3)
    assert one == again
    assert {row["metric"] for row in one} == METRICS
    assert all(row["method"] == "local_debiased_rr" and row["L"] == 200 for row in one)

    cell = simulate_cell(data.ratings, theta_ref, 200, 1, seed=7, replicates=5)
    assert sorted(cell.replicate.unique()) == list(range(5))
    alone = pd.DataFrame(one)
    within = cell[cell.replicate == 3].reset_index(drop=True)
    pd.testing.assert_frame_equal(within, alone[within.columns])

    other = cell[(cell.replicate == 2) & (cell.metric == "l2_over_sqrt_m")].value.item()
    assert other != within.set_index("metric").value["l2_over_sqrt_m"]
    # a different root seed gives a different replicate
    other_seed = simulate_replicate(data.ratings, theta_ref, 200, 1, seed=8, r=3)
    assert other_seed != one


def test_scheme_budget(data, theta_ref):
    # every scheme has eps = 1 at the anchor; at larger L scheme 1 > 2 > 3
    eps = {}
    for scheme in (1, 2, 3):
        rows = simulate_replicate(data.ratings, theta_ref, 100, scheme, seed=0, r=0)
        assert {r["metric"]: r["value"] for r in rows}["eps"] == pytest.approx(1.0)
        rows = simulate_replicate(data.ratings, theta_ref, 1600, scheme, seed=0, r=0)
        eps[scheme] = {r["metric"]: r["value"] for r in rows}["eps"]
    assert eps[1] > eps[2] > eps[3]
    assert eps[2] == pytest.approx(0.25)  # sqrt(100 / 1600)


def test_large_eps_small_kendall(data, theta_ref):
    # scheme 2: eps = sqrt(anchor_L / L) = 5 at L = 1600
    cell = simulate_cell(data.ratings, theta_ref, 1600, 2, seed=3, replicates=5, anchor_L=40000)
    by = cell.groupby("metric").value
    assert by.mean()["eps"] == pytest.approx(5.0)
    assert by.min()["converged"] == 1.0
    assert by.mean()["kendall_tau_K"] < 0.1
    # weak privacy at L = 1600 beats strong privacy at L = 100
    strong = simulate_cell(data.ratings, theta_ref, 100, 3, seed=3, replicates=5)
    strong_k = strong[strong.metric == "kendall_tau_K"].value.mean()
    assert by.mean()["kendall_tau_K"] < strong_k
