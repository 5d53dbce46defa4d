"""Paper B (B2) Scenario I stage functions: chunk invariance, protocol of the release, errors."""

import numpy as np

from dprank.studies import paper_b2

CELL = {"model": "btl", "m": 10, "L": 60}
EPS = {"range": [1.0, 5.0]}


def test_replicates_do_not_depend_on_chunking():
    whole = paper_b2.simulate_chunk(3, "scenario1", CELL, 0.5, EPS, [0, 1, 2, 3])
    part = paper_b2.simulate_chunk(3, "scenario1", CELL, 0.5, EPS, [2, 3])
    for key in ("theta", "B", "S", "N"):
        np.testing.assert_array_equal(whole[key][2:], part[key])
    assert np.allclose(whole["theta"].sum(axis=1), 0)
    # ADRR weights sum to one over users, so N_ij (observed weight of a pair) is about p
    assert abs(whole["N"].mean() - 0.5) < 5 * 0.5 / np.sqrt(60 * whole["N"].size)
    assert np.all((whole["B"] > np.tanh(0.5) ** 2) & (whole["B"] < np.tanh(2.5) ** 2))


def test_estimates_shrink_with_more_users():
    errors = []
    for L in (40, 400):
        cell = {**CELL, "L": L}
        data = paper_b2.simulate_chunk(5, "scenario1", cell, 0.5, EPS, range(30))
        frame = paper_b2.estimate_chunk(data, cell, 1.0, 1e-8, 100)
        assert (frame[frame["metric"] == "converged"]["value"] == 1).all()
        errors.append(frame[frame["metric"] == "l2_over_sqrt_m"]["value"].mean())
    # the error falls like 1/sqrt(L): a tenfold L gives about a third
    assert 0.2 < errors[1] / errors[0] < 0.45


def test_scheme_budgets_coincide_at_the_anchor_and_order_elsewhere():
    at_anchor = [paper_b2.scheme_epsilon(s, 10, 100, 2.75) for s in (1, 2, 3)]
    assert np.allclose(at_anchor, 2.75)
    big = [paper_b2.scheme_epsilon(s, 30, 800, 2.75) for s in (1, 2, 3)]
    assert big[0] > big[1] > big[2]  # log^2 factor up, none, down


def test_spaced_scores_and_ranking_metrics():
    cell = {"model": "tm", "delta": 0.1, "m": 10, "L": 200}
    data = paper_b2.simulate_chunk(7, "scenario4", cell, 0.5, EPS, range(5))
    spaced = 0.1 * (5.5 - np.arange(1, 11))
    assert np.allclose(data["theta"], spaced)
    metrics = ["kendall_tau_K", "topK_hamming_HK_K=m/2"]
    frame = paper_b2.estimate_chunk(data, cell, 1.0, 1e-8, 100, metrics)
    assert set(frame["metric"]) == {*metrics, "converged"}
    values = frame[frame["metric"] == "topK_hamming_HK_K=m/2"]["value"] * 5
    assert np.allclose(values, np.round(values))  # H_K is a multiple of 1/K
    assert (frame["delta"] == 0.1).all()
