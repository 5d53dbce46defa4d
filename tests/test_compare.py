"""Published versus reproduced: B2 tables cell by cell, tolerances by what the paper prints."""

import numpy as np
import pandas as pd
import pytest

from dprank.compare import compare_b2_table, summary_lines
from dprank.tables import order_rows


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
                "method": "ADRR",
                "mean": 0.20,
                "dispersion": 0.05,
                "se_kind": "sd_over_replicates",
            },
            # Table 10 style: se of the mean, no (m, L) key
            {
                "model": "TM",
                "metric": "linf",
                "method": "Laplace",
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
                "method": "ADRR",
                "metric": "linf",
                "mean": 0.21,
                "se": 0.003,
                "reps": 200,
            },
            {
                "model": "btl",
                "m": 10,
                "L": 200,
                "method": "ADRR",
                "metric": "linf",
                "mean": 9.0,
                "se": 0.003,
                "reps": 200,
            },
            {
                "model": "tm",
                "method": "Laplace",
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
                "method": "NoisyObj",
                "mean": np.nan,
                "dispersion": np.nan,
                "se_kind": "se_of_mean",
            },
            {
                "model": "BTL",
                "metric": "l2",
                "method": "ADRR",
                "mean": 0.1,
                "dispersion": 0.01,
                "se_kind": "se_of_mean",
            },
        ]
    )
    empty = _ours(
        [{"model": "tm", "method": "ADRR", "metric": "l2", "mean": 0.1, "se": 0.01, "reps": 5}]
    )
    table = compare_b2_table(published, empty, "T")
    assert list(table["verdict"]) == ["not in source", "not run"]
    twice = _ours(
        [
            {
                "model": "btl",
                "method": "ADRR",
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
            for method in ("ClassicRR", "ADRR", "Count", "Laplace")
            for metric in ("linf", "l2_over_sqrt_m", "converged")
        ]
    )
    spec = {
        "metrics": ["l2_over_sqrt_m", "linf"],
        "methods": ["ADRR", "Laplace", "ClassicRR"],
        "index": ["model", "metric"],
        "columns": ["method"],
    }
    rows = order_rows(summary, spec)
    assert list(rows["model"].unique()) == ["BTL", "TM"]
    assert list(rows["metric"].unique()) == ["l2_over_sqrt_m", "linf"]
    assert list(rows["method"][:3]) == ["ADRR", "Laplace", "ClassicRR"]
    assert len(rows) == 2 * 2 * 3
