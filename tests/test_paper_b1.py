"""Paper B, earlier version (B1): its designs on the shared engine and Table 1 from trends."""

import numpy as np
import pandas as pd
import pytest

from dprank_papers.plotting.paper_b import figure_data
from dprank_papers.studies import paper_b2
from dprank_papers.studies.paper_b1 import EPSILON_ORDER, scheme_table, scheme_trends, trend_word
from dprank_papers.tables import read_published_table


def test_b1_schemes_are_one_at_l100_for_every_m():
    for m in (10, 20, 30):
        budgets = [
            paper_b2.scheme_epsilon(s, m, 100, 1.0, log_power=1, anchor_L=100) for s in (1, 2, 3)
        ]
        assert np.allclose(budgets, 1.0)
    big = [paper_b2.scheme_epsilon(s, 30, 1600, 1.0, log_power=1, anchor_L=100) for s in (1, 2, 3)]
    assert big[0] > big[1] > big[2]
    assert big[1] == pytest.approx(0.25)  # 1 / sqrt(16)
    # single log: scheme 1 at L = 1600 differs from B2's squared log
    b2 = paper_b2.scheme_epsilon(1, 30, 1600, 1.0, anchor=3000)
    assert b2 != pytest.approx(big[0])


def test_b1_scenario1_cells_one_budget_wide_scores_all_pairs():
    cell = {"model": "btl", "eps": 2.0, "m": 10, "L": 100}
    data = paper_b2.simulate_chunk(1, "scenario1", cell, 1.0, {}, range(20), theta="uniform2")
    assert np.allclose(data["N"], 1.0)  # p = 1: every user compares every pair
    assert np.allclose(data["B"], np.tanh(1.0) ** 2)
    assert data["theta"].max() > 1.2 and data["theta"].min() < -1.2  # U(-2, 2), centred
    assert np.allclose(data["theta"].sum(axis=1), 0)


def test_b1_scenario5_fixed_sizes_and_three_methods():
    cell = {"model": "btl", "eps": 2.0, "m": 10, "L": 200}
    kwargs = dict(kind="scenario5", theta="uniform2")
    data = paper_b2.simulate_chunk(2, "scenario5", cell, 1.0, {}, range(10), **kwargs)
    assert set(data["m"]) == {10} and set(data["L"]) == {200}
    frame = paper_b2.estimate_chunk(
        data,
        cell,
        1.0,
        1e-8,
        100,
        ["linf", "kendall_tau_K"],
        "scenario5",
        seed=2,
        experiment="scenario5",
        methods=["local_classic_rr", "local_adrr", "local_laplace"],
    )
    assert set(frame["method"]) == {"local_classic_rr", "local_adrr", "local_laplace"}
    linf = frame[frame["metric"] == "linf"].groupby("method")["value"].mean()
    # B1 Figure 6: the classic-RR plug-in is biased toward 0, the debiased mean is not
    assert linf["local_adrr"] < linf["local_classic_rr"]


def test_trend_words_and_table_from_slopes():
    assert trend_word(0.3) == "Increase" and trend_word(-0.3) == "Decrease"
    assert trend_word(0.05) == "Remain Stable"
    rows = []
    for scheme, slope in ((1, -0.5), (2, 0.0), (3, 0.4)):
        for m in (10, 20):
            for L in (100, 400, 1600):
                for metric in ("l2_over_sqrt_m", "linf"):
                    rows.append(
                        {
                            "scheme": scheme,
                            "m": m,
                            "L": L,
                            "metric": metric,
                            "mean": 0.1 * m * L**slope,
                        }
                    )
    trends = scheme_trends(pd.DataFrame(rows))
    np.testing.assert_allclose(
        trends.sort_values(["scheme", "metric"])["slope"], [-0.5, -0.5, 0, 0, 0.4, 0.4], atol=1e-9
    )
    published = read_published_table("resources/published/paper_b/B1-Table1_scheme_behavior.csv")
    table = scheme_table(trends, published)
    assert list(table["scheme"]) == [3, 2, 1]  # the paper lists the smallest budget first
    assert (table["linf agrees"] == "yes").all()
    assert set(table["epsilon_order"]) == set(EPSILON_ORDER.values())


def test_figure_panels_filter_on_any_cell_key():
    summary = pd.DataFrame(
        [
            {
                "eps": e,
                "m": m,
                "L": L,
                "method": "local_adrr",
                "metric": "linf",
                "mean": 1.0,
                "se": 0.1,
            }
            for e in (1.0, 2.0)
            for m in (10, 20)
            for L in (100, 200)
        ]
    )
    spec = {
        "panels": [{"metric": "linf", "eps": 2.0}, {"metric": "linf", "m": 10}],
        "series": ["m"],
    }
    data = figure_data(summary, spec)
    a, b = data[data["panel"] == "a"], data[data["panel"] == "b"]
    assert set(a["eps"]) == {2.0} and len(a) == 4
    assert set(b["m"]) == {10} and len(b) == 4
    with pytest.raises(ValueError, match="no rows match"):
        figure_data(summary, {"panels": [{"metric": "linf", "eps": 3.0}], "series": ["m"]})
