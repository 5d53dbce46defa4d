"""The sensitivity study of B2's unstated settings (issue 16): library functions and config."""

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from dprank.base.seeding import generator
from dprank_papers._papers import load_papers
from dprank_papers.aggregate import summarise
from dprank_papers.config import ConfigError, validate_config
from dprank_papers.studies import paper_b2
from dprank_papers.studies.paper_b2 import scenario5, scenarios
from dprank_papers.studies.paper_b2 import sensitivity as sens
from dprank_papers.tables import read_published_table

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())
B2 = CONFIG["paper_b2"]
#: Paper B2's declared figures and tables (workflow/papers/paper_b2.yaml)
B2_ITEMS = yaml.safe_load((ROOT / "workflow/papers/paper_b2.yaml").read_text())["items"]
SEED = 20251122


def test_theta_law_names_the_main_law_at_h_1():
    assert sens.theta_law(1.0) == "uniform"
    assert sens.theta_law(2) == "uniform:2"
    assert sens.theta_law(0.5) == "uniform:0.5"
    with pytest.raises(ValueError, match="half-width"):
        sens.theta_law(0.0)


def test_uniform_h_law_draws_as_the_named_laws():
    cell = {"m": 12}
    draw = lambda law: scenarios.true_scores(cell, generator(1, "x", 2, 3, 0), law)  # noqa: E731
    np.testing.assert_array_equal(draw("uniform:1"), draw("uniform"))
    np.testing.assert_array_equal(draw("uniform:2"), draw("uniform2"))
    theta = draw("uniform:0.25")
    assert abs(theta.mean()) < 1e-12 and np.ptp(theta) <= 0.5
    for bad in ("uniform:", "uniform:x", "uniform:-1", "uniform:inf"):
        with pytest.raises(ValueError, match="unknown score law"):
            draw(bad)


def test_scenario3_default_setting_reproduces_the_main_study():
    exp = B2["experiments"]["scenario3"]
    cell = {"model": "btl", "scheme": 2, "m": 10, "L": 200}
    reps = range(6)
    ours = sens.scenario3_grid(
        SEED, "scenario3", exp, "btl", exp["p"], [exp["eps"]["eps0"], 2.0], reps,
        scenarios.FitSettings(1.0, 1e-8, 100), {"scheme": [2], "m": [10], "L": [200]},
    )  # fmt: skip
    data = paper_b2.simulate_chunk(SEED, "scenario3", cell, exp["p"], exp["eps"], reps)
    main = summarise(scenarios.estimate_chunk(data, cell, scenarios.FitSettings(1.0, 1e-8, 100)))
    at_default = ours[ours["eps0"] == exp["eps"]["eps0"]].reset_index(drop=True)
    np.testing.assert_array_equal(at_default["mean"], main["mean"])
    other = ours[ours["eps0"] == 2.0]
    assert not np.allclose(other["mean"].to_numpy(), at_default["mean"].to_numpy())


def test_scenario5_default_setting_reproduces_the_main_study():
    exp = {**B2["experiments"]["scenario5"], "draws": {"m": [5, 8], "L": [40, 60]}}
    reps = range(3)
    ours = sens.scenario5_grid(
        SEED, "scenario5", exp, "tm", exp["p"], [1.0, 2.0], [1.0, 3.0], reps, 1e-8, 100
    )
    data = paper_b2.simulate_chunk(
        SEED,
        "scenario5",
        {"model": "tm"},
        exp["p"],
        exp["eps"],
        reps,
        "scenario5",
        draws=exp["draws"],
    )
    main = summarise(
        scenario5.estimate_chunk(
            data, {"model": "tm"}, SEED, "scenario5", scenarios.FitSettings(1.0, 1e-8, 100),
            sens.S5_METRICS, sens.S5_METHODS,
        )
    )  # fmt: skip
    default = ours[(ours["theta_half"] == 1.0) & (ours["lambda_c"] == 1.0)]
    merged = default.merge(main, on=["model", "method", "metric"], suffixes=("", "_main"))
    assert len(merged) == len(main) > 0
    np.testing.assert_array_equal(merged["mean"], merged["mean_main"])
    # the count method does not depend on the ridge; the estimators do
    count = ours[(ours["method"] == "local_count") & (ours["theta_half"] == 1.0)]
    assert count.groupby("metric")["mean"].nunique().eq(1).all()
    adrr = ours[(ours["method"] == "local_adrr") & (ours["metric"] == "linf")]
    assert adrr.groupby("theta_half")["mean"].nunique().eq(2).all()


def test_parabola_vertex():
    f = lambda x: 3.0 * (x - 2.6) ** 2 + 1.0  # noqa: E731
    x = [2.0, 2.5, 3.0]
    assert sens.parabola_vertex(x, [f(v) for v in x]) == pytest.approx(2.6)
    # a vertex outside the bracket is clipped; a concave triple keeps the middle point
    assert sens.parabola_vertex(x, [1.0, 0.5, 0.45]) <= 3.0
    assert sens.parabola_vertex(x, [0.0, 1.0, 0.0]) == 2.5


def _published_table6():
    return read_published_table(ROOT / B2_ITEMS["table6"]["published"])


def test_fit_budget_finds_a_known_optimum():
    """ours = printed * exp(k (eps0 - 2.6)): the RMS is k |eps0 - 2.6|, minimal at 2.6."""
    pub = _published_table6()
    pub = pub[(pub["model"] == "BTL") & (pub["m"] == 10)]
    rows = []
    for p, shift in ((0.5, 0.0), (1.0, 0.3)):
        for e0 in (1.5, 2.0, 2.5, 3.0, 3.5):
            for _, r in pub.iterrows():
                mean = r["mean"] * np.exp(0.4 * (e0 - 2.6) + shift)
                rows.append(
                    {"p": p, "eps0": e0, "model": "btl", "scheme": int(r["scheme"][6:]),
                     "m": 10, "L": int(r["L"]), "method": "local_adrr", "metric": r["metric"],
                     "mean": mean, "sd": 0.01, "se": 0.001, "reps": 100}
                )  # fmt: skip
    curve = sens.budget_curve(pd.DataFrame(rows), pub, "B2 Table 6", 4.0)
    fit = sens.fit_budget(curve)
    assert len(curve) == 10 and (curve["compared"] == len(pub)).all()
    row = fit[fit["p"] == 0.5].iloc[0]
    assert row["eps0_grid"] == 2.5 and row["eps0"] == pytest.approx(2.6)
    assert bool(row["best"]) and not bool(row["at_edge"])
    # with the shift at p = 1 the minimum (|0.4 (eps0 - 2.6) + 0.3| = 0 at 1.85) is worse
    assert not bool(fit[fit["p"] == 1.0].iloc[0]["best"])


def test_agreement_counts_and_skips_zero_means():
    table = pd.DataFrame(
        {
            "verdict": ["within", "outside", "not run", "within"],
            "ours_mean": [0.2, 0.1, np.nan, 0.0],
            "published_mean": [0.1, 0.1, 0.3, 0.05],
        }
    )
    a = sens.agreement(table)
    assert a["compared"] == 3 and a["within"] == 2
    assert a["rms_log_ratio"] == pytest.approx(np.sqrt(np.log(2.0) ** 2 / 2))
    assert a["max_abs_log_ratio"] == pytest.approx(np.log(2.0))


def test_scenario5_agreement_flags_the_kendall_gap():
    """A setting whose Kendall distances are the printed ones agrees; twice them does not."""
    pub = {
        "B2 Table 11": read_published_table(ROOT / B2_ITEMS["table11"]["published"]),
    }
    rows = []
    for factor in (1.0, 2.0):
        for _, r in pub["B2 Table 11"].iterrows():
            rows.append(
                {"theta_half": factor, "p": 0.5, "lambda_c": 1.0, "model": r["model"].lower(),
                 "method": r["method"], "metric": r["metric"], "mean": r["mean"] * factor,
                 "sd": 0.01, "se": 0.0007, "reps": 200}
            )  # fmt: skip
    cells, settings = sens.scenario5_agreement(pd.DataFrame(rows), pub, 4.0)
    assert list(settings["within"]) == [4, 0] and (settings["compared"] == 4).all()
    assert (cells.loc[cells["theta_half"] == 2.0, "z_score"] > 4).all()


def _smoke():
    from snakemake.utils import update_config

    cfg = copy.deepcopy(CONFIG)
    update_config(cfg, yaml.safe_load((ROOT / ".test/config.yaml").read_text()))
    return cfg


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda s: s["scenario3"].update(experiment="scenario9"),
            "sensitivity.scenario3.experiment",
        ),
        (lambda s: s["scenario5"].update(experiment="scenario3"), "is not of kind scenario5"),
        (lambda s: s["scenario5"].update(lambda_c=[3.0]), "sensitivity.scenario5.lambda_c"),
        (lambda s: s["scenario5"].update(theta_half=[2.0]), "sensitivity.scenario5.theta_half"),
        (lambda s: s["scenario3"].update(tables=["table6", "table99"]), "table99"),
        (lambda s: s["scenario3"].update(eps0=[2.0, 3.0]), "eps0"),
    ],
)
def test_bad_sensitivity_config_is_named(edit, expected):
    cfg = _smoke()
    edit(cfg["sensitivity"])
    # the tables it compares with are the declared paper_b2 tables
    papers = load_papers(
        ROOT / "workflow/papers", ROOT / "workflow/schemas/papers.schema.yaml", cfg
    )
    with pytest.raises(ConfigError) as info:
        validate_config(cfg, SCHEMA, papers=papers)
    assert expected in str(info.value)
