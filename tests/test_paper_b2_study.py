"""Paper B (B2) Scenario I stage functions: chunk invariance, protocol of the release, errors."""

import numpy as np
import pandas as pd
import pytest

from dprank_papers.studies import paper_b2
from dprank_papers.studies.paper_b2.scenarios import Chunk

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


# ---------------------------------------------------------------------------
# equal budgets, Figure 3, Scenario II


def test_equal_budgets_sample_pair_counts_with_the_right_law():
    cell = {"model": "btl", "scheme": 2, "m": 10, "L": 400}
    data = paper_b2.simulate_chunk(2, "scenario3", cell, 0.5, {"eps0": 2.75}, range(40))
    # N = observed share of users per pair ~ p; S / N estimates F(theta_i - theta_j)
    assert abs(data["N"].mean() - 0.5) < 0.01
    iu, ju = np.triu_indices(10, 1)
    f = 1 / (1 + np.exp(-(data["theta"][:, iu] - data["theta"][:, ju])))
    resid = data["S"] / data["N"] - f
    assert abs(resid.mean()) < 0.01 and 0.05 < resid.std() < 0.3
    assert np.allclose(data["B"], np.tanh(2.75 * (1000 / 4000) ** 0.5 / 2) ** 2)


def test_hessian_eigenvalue_grows_with_m_and_p():
    def median(cell):
        data = paper_b2.simulate_chunk(
            4, "fig3", cell, 0.8, {"value": 2.0}, range(20), kind="hessian", theta="unit_spaced"
        )
        assert np.allclose(data["theta"][0], np.arange(cell["m"]) / (cell["m"] - 1))
        frame = paper_b2.estimate_chunk(data, cell, 1.0, 1e-8, 100, kind="hessian")
        assert set(frame["metric"]) == {"hessian_min_eig"}
        return frame["value"].median()

    small, large = (median({"model": "tm", "p": 0.8, "m": m, "L": 30}) for m in (10, 40))
    assert 0 < small < large  # Lemma 4: grows linearly in m
    low = median({"model": "tm", "p": 0.2, "m": 20, "L": 30})
    high = median({"model": "tm", "p": 1.0, "m": 20, "L": 30})
    assert low < high


def test_shifted_budgets_and_the_privacy_constant_metric():
    cell = {"model": "btl", "m": 10, "L": 100}
    eps = {"shifted": [0.5, 2.5], "width": 0.5}
    data = paper_b2.simulate_chunk(8, "scenario2", cell, 1.0, eps, range(30))
    assert np.all((data["B"] > np.tanh(0.25) ** 2) & (data["B"] < np.tanh(1.5) ** 2))
    assert data["B"].std() > 0.05  # A varies between replicates
    frame = paper_b2.estimate_chunk(data, cell, 1.0, 1e-8, 100, ["l2_over_sqrt_m", "B"])
    b = frame[frame["metric"] == "B"]["value"].to_numpy()
    err = frame[frame["metric"] == "l2_over_sqrt_m"]["value"].to_numpy()
    np.testing.assert_array_equal(b, data["B"])
    assert np.corrcoef(b**-0.5, err)[0, 1] > 0.5  # Figure 5: error grows with B^-1/2


# ---------------------------------------------------------------------------
# Scenario V

S5 = {"draws": {"m": [5, 12], "L": [150, 300]}}
S5_EPS = {"range": [0.2, 2.0]}
S5_METRICS = ["l2_over_sqrt_m", "linf", "kendall_tau_K"]


def test_scenario5_replicates_do_not_depend_on_chunking_and_split():
    cell = {"model": "btl"}
    whole = paper_b2.simulate_chunk(1, "scenario5", cell, 0.5, S5_EPS, range(5), "scenario5", **S5)
    part = paper_b2.simulate_chunk(1, "scenario5", cell, 0.5, S5_EPS, [3, 4], "scenario5", **S5)
    for i in (3, 4):
        a, b = paper_b2.scenario5.split(whole, i), paper_b2.scenario5.split(part, i - 3)
        for key in a:
            np.testing.assert_array_equal(a[key], b[key])
    assert len(set(whole["m"])) > 1  # sizes are drawn per replicate
    rep = paper_b2.scenario5.split(whole, 2)
    m = int(rep["m"])
    assert rep["theta"].size == m and rep["S_adrr"].size == m * (m - 1) // 2
    assert abs(rep["theta"].sum()) < 1e-12
    assert rep["eps_min"] >= 0.2 and rep["N_raw"].max() <= rep["L"]


def test_scenario5_methods_and_their_order_of_errors():
    rows = []
    for model in ("btl", "tm"):
        cell = {"model": model}
        data = paper_b2.simulate_chunk(
            6, "scenario5", cell, 0.5, S5_EPS, range(12), "scenario5", **S5
        )
        rows.append(
            paper_b2.estimate_chunk(
                data,
                cell,
                1.0,
                1e-8,
                100,
                S5_METRICS,
                "scenario5",
                seed=6,
                experiment="scenario5",
            )
        )
    frame = pd.concat(rows)
    btl = frame[frame["model"] == "btl"]
    assert set(btl["method"]) == {
        "local_adrr",
        "edge_noisy_obj",
        "local_laplace",
        "local_classic_rr",
        "local_count",
    }
    assert "edge_noisy_obj" not in set(frame[frame["model"] == "tm"]["method"])  # BTL only
    assert set(frame[frame["method"] == "local_count"]["metric"]) == {"kendall_tau_K"}
    assert (frame[frame["metric"] == "converged"]["value"] == 1).all()
    mean = btl[btl["metric"] == "l2_over_sqrt_m"].groupby("method")["value"].mean()
    # B2 Table 10: ADRR beats the Laplace and classic-RR plug-ins
    assert (
        mean["local_adrr"] < mean["local_laplace"] and mean["local_adrr"] < mean["local_classic_rr"]
    )


# ---------------------------------------------------------------------------
# supplement: mixed effects (Table 3), model selection (Table 4)


def test_mixed_effects_chunk_errors_fall_with_users():
    errors = []
    for L in (30, 300):
        cell = {"m": 10, "L": L}
        data = paper_b2.simulate_chunk(
            3, "mixed", cell, 1.0, {}, range(8), "mixed_effects", sigma=1.0
        )
        assert data["y"].shape == (8, L, 45) and data["gamma"].shape == (8, L)
        frame = paper_b2.estimate_chunk(
            data,
            cell,
            1.0,
            1e-8,
            100,
            ["l2_over_sqrt_m_theta", "abs_sigma_hat_minus_sigma"],
            "mixed_effects",
            sigma=1.0,
            lam=1.0,
            ridge=1e-6,
        )
        errors.append(frame[frame["metric"] == "l2_over_sqrt_m_theta"]["value"].mean())
    assert errors[1] < 0.6 * errors[0]


def test_model_selection_picks_the_generating_model_with_enough_data():
    cell = {"m": 10, "L": 3000}
    data = paper_b2.simulate_chunk(9, "sel", cell, 1.0, {}, range(30), "model_selection")
    assert set(data["truth"]) == {0, 1}
    assert np.allclose(data["N"], 1.0)  # p = 1: every user compares every pair
    frame = paper_b2.estimate_chunk(
        data, cell, 1.0, 1e-8, 100, ["prop_correct_model_selected"], "model_selection"
    )
    correct = frame[frame["metric"] == "prop_correct_model_selected"]["value"]
    assert correct.mean() >= 0.8  # Table 4's rates rise to 0.94 with L


# ---------------------------------------------------------------------------
# Figure 10


def test_timing_rows_and_scaling_exponents():
    chunk = Chunk(1, "timing", {"m": 10, "L": 200}, 0.5, [0, 1], {"range": [1.0, 5.0]})
    frame = paper_b2.timing.time_cell(chunk, chunk_elements=2000)
    assert set(frame["metric"]) == {
        "seconds_aggregate",
        "seconds_solve",
        "seconds_total",
        "l2_over_sqrt_m",
        "converged",
    }
    sec = frame.pivot(index="replicate", columns="metric", values="value")
    assert (sec["seconds_total"] > 0).all()
    np.testing.assert_allclose(
        sec["seconds_total"], sec["seconds_aggregate"] + sec["seconds_solve"]
    )
    assert (sec["l2_over_sqrt_m"] < 0.3).all()  # the timed work is the real estimator
    # synthetic times t = 1e-6 L m^2 give exponents 1 and 2
    rows = [
        {"m": m, "L": L, "metric": metric, "value": 1e-6 * L * m**2}
        for m in (10, 20, 40)
        for L in (200, 400, 800)
        for metric in ("seconds_aggregate", "seconds_solve", "seconds_total")
    ]
    slopes = paper_b2.timing.scaling_exponents(pd.DataFrame(rows))
    np.testing.assert_allclose(slopes["slope_log_L"], 1.0)
    np.testing.assert_allclose(slopes["slope_log_m"], 2.0)


def test_timing_chunks_do_not_change_the_statistics():
    chunk = Chunk(2, "timing", {"m": 12, "L": 300}, 0.5, [0], {"range": [1.0, 5.0]})
    a = paper_b2.timing.time_cell(chunk, chunk_elements=10**7)
    b = paper_b2.timing.time_cell(chunk, chunk_elements=500)
    err = lambda f: f[f["metric"] == "l2_over_sqrt_m"]["value"].to_numpy()  # noqa: E731
    # one uniform stream consumed in order: the released data are the same
    np.testing.assert_allclose(err(a), err(b), rtol=1e-10)
    # threads that generate the (untimed) releases split rows: exactly the same data
    c = paper_b2.timing.time_cell(chunk, chunk_elements=500, workers=3)
    np.testing.assert_array_equal(err(b), err(c))


def test_blocks_group_cells_without_changing_numbers():
    exp = {"grid": {"model": ["btl", "tm"], "m": [5, 6], "L": [20]}, "job_keys": ["model"]}
    assert paper_b2.cell_names(exp) == ["modelbtl", "modeltm"]
    assert paper_b2.cell_names({**exp, "job_keys": None})[0] == "modelbtl_m5_L20"
    assert paper_b2.cell_names({**exp, "job_keys": []}) == ["all"]
    block = paper_b2.cell_params(exp, "modeltm")
    assert [c["m"] for c in block] == [5, 6]
    kwargs = dict(seed=1, experiment="e", p=0.5, eps=EPS, replicates=[0, 1])
    data = paper_b2.simulate_block(block, **kwargs)
    frame = paper_b2.estimate_block(data, block, lambda_c=1.0, gtol=1e-8, max_iter=100)
    for i, cell in enumerate(block):
        alone = paper_b2.simulate_chunk(cell=cell, **kwargs)
        np.testing.assert_array_equal(alone["S"], data[f"c{i}__S"])
        rows = paper_b2.estimate_chunk(alone, cell, 1.0, 1e-8, 100)
        mine = frame[frame["m"] == cell["m"]].reset_index(drop=True)
        pd.testing.assert_frame_equal(rows, mine)
    with pytest.raises(KeyError, match="no block"):
        paper_b2.cell_params(exp, "modelbtl_m5_L20")
