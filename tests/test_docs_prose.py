"""The numbers the pages give in words (docs/fidelity.md, sensitivity.md, scale-study.md) are
measured from the files a run writes: each reader of dprank_papers._docs_prose on a small
hand-made run, and the committed values are what those readers give."""

import json
from pathlib import Path

import pandas as pd

from dprank_papers.docs_measures import MEASURES

ROOT = Path(__file__).resolve().parents[1]


def _value(name: str, results: Path) -> str | None:
    return MEASURES[name].measure(ROOT, results)


def test_car_numbers_from_the_intransitivity_record(tmp_path):
    car = tmp_path / "paper_b2" / "car"
    car.mkdir(parents=True)
    record = {"n_users": 60.0, "n_intransitive": 42.0, "share_intransitive": 0.7}
    record |= {"n_comparisons": 2675.0, "n_conflicts": 101.0, "n_ties": 149.0}
    (car / "nonprivate.json").write_text(json.dumps({"intransitivity": record}))
    assert _value("car_intransitive_users", tmp_path) == "42 of 60"
    assert _value("car_intransitive_share", tmp_path) == "70%"
    assert _value("car_comparisons", tmp_path) == "2675"
    assert _value("car_conflicts", tmp_path) == "3.78% (101 of 2675)"
    assert _value("car_conflicts_ties", tmp_path) == "9.35%"  # (101 + 149) / 2675
    assert _value("car_conflicts_half_ties", tmp_path) == "6.56%"  # (101 + 74.5) / 2675
    assert _value("car_comparisons", tmp_path / "none") is None


def test_b2_comparison_numbers(tmp_path):
    rows = [
        ("B2 Table 4", "", 30, 100, 0.80, 0.88, "within"),
        ("B2 Table 4", "", 30, 800, 0.94, 0.97, "within"),
        ("B2 Table 4", "", 10, 800, 0.795, 0.715, "within"),
        ("B2 Table 5", "", 10, 100, 1.0, 0.9, "within"),
        ("B2 Table 5", "", 10, 200, 1.0, 0.98, "within"),
        ("B2 Table 5", "", 20, 100, 1.0, 0.99, "within"),
        ("B2 Table 6", "scheme1", 10, 400, 1.0, 0.85, "outside"),
        ("B2 Table 7", "scheme1", 20, 800, 1.0, 0.95, "outside"),
        ("B2 Table 6", "scheme2", 30, 200, 1.0, 1.10, "outside"),
        ("B2 Table 7", "scheme3", 20, 400, 1.0, 1.06, "outside"),
        ("B2 Table 7", "scheme3", 10, 100, 1.0, 1.5, "within"),
    ]
    frame = pd.DataFrame(
        rows, columns=["figure", "scheme", "m", "L", "published_mean", "ours_mean", "verdict"]
    ).assign(method="local_adrr")
    frame.loc[len(frame)] = [
        "B2 Table 10",
        "",
        10,
        100,
        0.355,
        0.319,
        "outside",
        "local_classic_rr",
    ]
    frame.loc[len(frame)] = ["B2 Table 10", "", 10, 100, 0.6, 0.57, "outside", "local_classic_rr"]
    (tmp_path / "comparison").mkdir()
    frame.to_csv(tmp_path / "comparison" / "paper_b2.csv", index=False)
    assert _value("fidelity_b2_table4_m30", tmp_path) == "0.880-0.970 against 0.800-0.940"
    assert _value("fidelity_b2_table4_m10_l800", tmp_path) == "0.715 against 0.795"
    assert _value("fidelity_b2_table5_lower", tmp_path) == "6% at m = 10 and 1% at m = 20"
    assert _value("fidelity_b2_scenario3_scheme1", tmp_path) == "2 cells, ours 5-15% lower"
    assert (
        _value("fidelity_b2_scenario3_other", tmp_path)
        == "2 Scheme 2/3 cells at m = 20-30 (ours 6-10% higher)"
    )
    assert _value("fidelity_b2_table10_classic_rr_lower", tmp_path) == "5-10%"


def test_figure_and_trend_numbers(tmp_path):
    b2 = tmp_path / "figures" / "paper_b2"
    b2.mkdir(parents=True)
    pd.DataFrame(
        {"experiment": ["hessian_m"] * 4 + ["hessian_p"] * 2}
        | {"m": [10, 10, 100, 100, 30, 30], "p": [0.8, 0.8, 0.8, 0.8, 0.1, 1.0]}
        | {"value": [4.1, 4.3, 43.0, 44.0, 1.33, 16.2]}
    ).to_csv(b2 / "fig3.csv", index=False)
    assert _value("fidelity_b2_fig3_median_m", tmp_path) == "4.2 at m = 10 to 43.5 at m = 100"
    assert _value("fidelity_b2_fig3_median_p", tmp_path) == "1.3 to 16.2"
    trends = tmp_path / "paper_b1" / "scenario2"
    trends.mkdir(parents=True)
    pd.DataFrame(
        [
            (1, "l2_over_sqrt_m", -0.1305, -0.14, -0.12),
            (1, "linf", -0.1266, -0.14, -0.12),
            (2, "l2_over_sqrt_m", -0.0168, -0.02, -0.01),
            (2, "linf", -0.0116, -0.02, 0.01),
            (3, "l2_over_sqrt_m", 0.0947, 0.0844, 0.1051),
            (3, "linf", 0.0867, 0.0815, 0.0964),
        ],
        columns=["scheme", "metric", "slope", "slope_min", "slope_max"],
    ).to_csv(trends / "trends.csv", index=False)
    assert _value("fidelity_b1_slope_scheme1", tmp_path) == "-0.13"
    assert _value("fidelity_b1_slope_scheme2", tmp_path) == "-0.02 / -0.01"
    assert _value("fidelity_b1_slope_scheme3", tmp_path) == "+0.09"
    assert _value("fidelity_b1_slope_scheme3_per_m", tmp_path) == "+0.08 to +0.11"
    movielens = tmp_path / "paper_b1" / "movielens"
    movielens.mkdir(parents=True)
    summary = pd.DataFrame(
        {"metric": ["converged", "converged", "kendall"], "mean": [1.0, 0.995, 0.1]}
        | {"reps": [200, 200, 200]}
    )
    summary.to_csv(movielens / "summary.csv", index=False)
    assert _value("fidelity_b1_fig7_converged", tmp_path) == "399 of 400 fits converged"
    summary.assign(mean=1.0).to_csv(movielens / "summary.csv", index=False)
    assert _value("fidelity_b1_fig7_converged", tmp_path) == "All 400 fits converged"


def test_study_numbers_in_words(tmp_path):
    s5 = tmp_path / "sensitivity" / "scenario5"
    s5.mkdir(parents=True)
    pd.DataFrame(
        {"theta_half": [1.0, 1.0, 1.0, 2.0], "p": [0.5] * 4, "lambda_c": [1.0] * 4}
        | {"model": ["tm", "tm", "btl", "tm"]}
        | {"method": ["local_laplace", "local_adrr", "local_laplace", "local_laplace"]}
        | {"metric": "converged", "mean": [0.995, 1.0, 1.0, 0.5], "reps": 200}
    ).to_csv(s5 / "tm_p0.5.csv", index=False)
    # the main study's setting of config.yaml: theta_half 1, p 0.5, lambda_c 1
    assert _value("sensitivity_default_nonconverged", tmp_path) == "1 TM Laplace fit in 200"
    metrics = tmp_path / "beyond" / "metrics" / "n1000"
    metrics.mkdir(parents=True)
    pd.DataFrame(
        {"metric": ["converged", "n_iter", "converged", "n_iter"], "value": [1.0, 4.0, 1.0, 6.0]}
    ).to_csv(metrics / "chunk0.csv", index=False)
    assert _value("scale_newton", tmp_path) == "converged in every fit (at most 6 Newton steps)"


def test_committed_prose_values_are_their_readers_on_the_paper_scale_run():
    """Where the last paper-scale run's results are beside the checkout (results/), the
    committed values of the readers above are what those results give."""
    from dprank_papers.docs_values import load_values

    values = load_values(ROOT / "docs" / "includes" / "values.yaml")
    results = ROOT / "results"
    names = [
        n
        for n in values
        if MEASURES.get(n) and MEASURES[n].measure.__module__.endswith("_docs_prose")
    ]
    assert len(names) >= 20
    for name in names:
        got = MEASURES[name].measure(ROOT, results)
        assert got is None or got == values[name]["value"], name


def test_table2_and_load_numbers(tmp_path):
    import re
    import sys

    from dprank_papers.docs_timing import time_command

    car = tmp_path / "paper_b2" / "car"
    car.mkdir(parents=True)
    pd.DataFrame(
        {"model": "btl", "method": ["local_adrr", "local_count", "local_classic_rr"]}
        | {"se": [0.00309, 0.0033, 0.0032], "p": [None, 0.000405, 0.01328]}
        | {"t": [None, 3.6, 2.5]}
    ).to_csv(car / "table2.csv", index=False)
    assert _value("fidelity_b2_t2_se_adrr_btl", tmp_path) == "0.0031"
    assert _value("fidelity_b2_t2_p_count_btl", tmp_path) == "4.0e-4"
    assert _value("fidelity_b2_t2_p_classic_rr_btl", tmp_path) == "0.013"
    time_command("benchmark_run", [sys.executable, "-c", "pass"], tmp_path)
    load = _value("benchmark_run_load", tmp_path)
    assert re.fullmatch(r"\d+\.\d at the start, \d+\.\d at the end", load), load


def test_paper_a_figure6_numbers(tmp_path):
    folder = tmp_path / "figures" / "paper_a"
    folder.mkdir(parents=True)
    for protocol, means in (
        ("paper", (-2.1597, 0.0, 0.00125)),
        ("authors", (-0.209, 0.05125, 0.25375)),
    ):
        rows = [("m", 2000, "inf", p, x) for p, x in zip("acd", means, strict=True)]
        rows += [("m", 2000, "1.0", "a", 9.0), ("m", 100, "inf", "a", 9.0)]
        pd.DataFrame(rows, columns=["x_var", "x", "series", "panel", "mean"]).to_csv(
            folder / f"fig6_{protocol}.csv", index=False
        )
    assert _value("fidelity_a_fig6_paper_l2", tmp_path) == "-2.16"
    assert _value("fidelity_a_fig6_authors_l2", tmp_path) == "-0.21"
    assert _value("fidelity_a_fig6_paper_hamming", tmp_path) == "0.000 and 0.001"
    assert _value("fidelity_a_fig6_authors_hamming", tmp_path) == "0.05 for (c) and 0.25 for (d)"


def test_one_shot_error(tmp_path):
    folder = tmp_path / "figures" / "paper_a"
    folder.mkdir(parents=True)
    pd.DataFrame(
        {"method": ["edge_one_shot", "edge_one_shot", "edge_mle"], "mean": [0.7443, 0.7631, 0.1]}
    ).to_csv(folder / "fig4_authors.csv", index=False)
    assert _value("one_shot_error", tmp_path) == "0.74-0.76"
