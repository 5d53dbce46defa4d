"""Published versus reproduced: B2 tables cell by cell, tolerances by what the paper prints."""

import numpy as np
import pandas as pd
import pytest

from dprank_papers.compare import compare_b2_table, compare_car, summary_lines
from dprank_papers.tables import order_rows


def _published(**cols):
    base = {"scheme": pd.NA, "Delta": np.nan, "m": pd.NA, "L": pd.NA}
    return pd.DataFrame([{**base, **row} for row in cols["rows"]])


def _ours(rows):
    return pd.DataFrame(rows)


def test_sd_se_and_binomial_tolerances():
    published = _published(
        rows=[
            # Table 5 style: parenthetical = sd over 200 replicates
            {
                "model": "BTL",
                "metric": "linf",
                "m": 10,
                "L": 100,
                "method": "local_adrr",
                "mean": 0.20,
                "dispersion": 0.05,
                "se_kind": "sd_over_replicates",
            },
            # Table 10 style: se of the mean, no (m, L) key
            {
                "model": "TM",
                "metric": "linf",
                "method": "local_laplace",
                "mean": 0.44,
                "dispersion": 0.02,
                "se_kind": "se_of_mean",
            },
            # Table 4 style: a proportion, nothing printed
            {
                "model": "BTL_or_TM_random",
                "metric": "prop",
                "m": 10,
                "L": 100,
                "method": "sel",
                "mean": 0.63,
                "dispersion": np.nan,
                "se_kind": "none",
            },
        ]
    )
    ours = _ours(
        [
            {
                "model": "btl",
                "m": 10,
                "L": 100,
                "method": "local_adrr",
                "metric": "linf",
                "mean": 0.21,
                "se": 0.003,
                "reps": 200,
            },
            {
                "model": "btl",
                "m": 10,
                "L": 200,
                "method": "local_adrr",
                "metric": "linf",
                "mean": 9.0,
                "se": 0.003,
                "reps": 200,
            },
            {
                "model": "tm",
                "method": "local_laplace",
                "metric": "linf",
                "mean": 0.60,
                "se": 0.02,
                "reps": 200,
            },
            {
                "m": 10,
                "L": 100,
                "method": "sel",
                "metric": "prop",
                "mean": 0.60,
                "se": 0.035,
                "reps": 200,
            },
        ]
    )
    table = compare_b2_table(published, ours, "T", z=4.0)
    sd, se, prop = table.to_dict("records")
    assert sd["published_se"] == pytest.approx(0.05 / np.sqrt(200))
    assert sd["tolerance"] == pytest.approx(4 * np.hypot(0.003, 0.05 / np.sqrt(200)))
    assert sd["verdict"] == "within" and sd["ours_mean"] == 0.21
    assert se["published_se"] == 0.02
    assert se["verdict"] == "outside"  # 0.16 away, tolerance 4 * 0.028 = 0.11
    assert prop["published_se"] == pytest.approx(np.sqrt(0.63 * 0.37 / 200))
    assert prop["verdict"] == "within" and "binomial" in prop["tolerance_rule"]
    lines = summary_lines(table)
    assert (lines["compared"] == 3).all() and (lines["within"] == 2).all()


def test_missing_cells_and_ambiguous_matches():
    published = _published(
        rows=[
            {
                "model": "TM",
                "metric": "l2",
                "method": "edge_noisy_obj",
                "mean": np.nan,
                "dispersion": np.nan,
                "se_kind": "se_of_mean",
            },
            {
                "model": "BTL",
                "metric": "l2",
                "method": "local_adrr",
                "mean": 0.1,
                "dispersion": 0.01,
                "se_kind": "se_of_mean",
            },
        ]
    )
    empty = _ours(
        [
            {
                "model": "tm",
                "method": "local_adrr",
                "metric": "l2",
                "mean": 0.1,
                "se": 0.01,
                "reps": 5,
            }
        ]
    )
    table = compare_b2_table(published, empty, "T")
    assert list(table["verdict"]) == ["not in source", "not run"]
    twice = _ours(
        [
            {
                "model": "btl",
                "method": "local_adrr",
                "metric": "l2",
                "mean": 0.1,
                "se": 0.01,
                "reps": 5,
                "m": m,
            }
            for m in (10, 20)
        ]
    )
    with pytest.raises(ValueError, match="2 of our rows match"):
        compare_b2_table(published, twice, "T")


def test_order_rows_follows_the_spec():
    summary = pd.DataFrame(
        [
            {"model": model, "method": method, "metric": metric, "mean": 1.0}
            for model in ("tm", "btl")
            for method in ("local_classic_rr", "local_adrr", "local_count", "local_laplace")
            for metric in ("linf", "l2_over_sqrt_m", "converged")
        ]
    )
    spec = {
        "metrics": ["l2_over_sqrt_m", "linf"],
        "methods": ["local_adrr", "local_laplace", "local_classic_rr"],
        "index": ["model", "metric"],
        "columns": ["method"],
    }
    rows = order_rows(summary, spec)
    assert list(rows["model"].unique()) == ["BTL", "TM"]
    assert list(rows["metric"].unique()) == ["l2_over_sqrt_m", "linf"]
    assert list(rows["method"][:3]) == ["local_adrr", "local_laplace", "local_classic_rr"]
    assert len(rows) == 2 * 2 * 3


def test_car_tables_ranks_exact_means_by_se_t_by_sqrt2():
    table1 = pd.DataFrame({"car_id": [1, 2], "mean": [2.0, 1.0]})
    ranks = {"btl": [2, 1], "tm": [2, 1], "count": [1, 2]}
    table2 = pd.DataFrame(
        [
            {
                "model": "BTL",
                "metric": "kendall_tau_K_vs_Table1_ranking",
                "method": "local_adrr",
                "mean": 0.0757,
                "dispersion": 0.0030,
            },
            {
                "model": "BTL",
                "metric": "paired_t_statistic_vs_ADRR",
                "method": "local_count",
                "mean": 4.12,
                "dispersion": np.nan,
            },
            {
                "model": "BTL",
                "metric": "paired_t_pvalue_vs_ADRR",
                "method": "local_count",
                "mean": 5.5e-5,
                "dispersion": np.nan,
            },
            {
                "model": "TM",
                "metric": "paired_t_statistic_vs_ADRR",
                "method": "local_count",
                "mean": np.nan,
                "dispersion": np.nan,
            },
        ]
    )
    ours = pd.DataFrame(
        [
            {
                "model": "btl",
                "method": "local_adrr",
                "mean": 0.0787,
                "se": 0.0034,
                "t": np.nan,
                "p": np.nan,
            },
            {
                "model": "btl",
                "method": "local_count",
                "mean": 0.0838,
                "se": 0.0036,
                "t": 3.10,
                "p": 2.2e-3,
            },
            {
                "model": "tm",
                "method": "local_count",
                "mean": 0.0838,
                "se": 0.0036,
                "t": 2.6,
                "p": 9e-3,
            },
        ]
    )
    table = compare_car(table1, table2, ranks, ours, z=4.0)
    one = table[table["figure"] == "B2 Table 1"]
    assert len(one) == 6 and (one["verdict"] == "outside").sum() == 2  # count ranks swapped
    two = table[table["figure"] == "B2 Table 2"].set_index("metric")
    assert two.loc["kendall_tau_K_vs_Table1_ranking", "verdict"] == "within"
    assert two.loc["paired_t_statistic_vs_ADRR"].iloc[0]["verdict"] == "within"  # |1.02| < 5.66
    assert two.loc["paired_t_pvalue_vs_ADRR", "verdict"] == "not judged"
    lines = summary_lines(table).set_index("figure")
    assert lines.loc["B2 Table 2", "compared"] == 2  # the TM test is not in the source
