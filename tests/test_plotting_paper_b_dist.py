"""Paper B (B2) distribution figures: boxplot rows and scatter bands from tidy replicates."""

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from dprank_papers.plotting.paper_b_dist import (
    box_data,
    draw_boxplots,
    draw_scatter_bands,
    scatter_data,
)


def _hessian_frame() -> pd.DataFrame:
    """Figure 3 layout: m grid at (L, p) = (30, 0.8), p grid at (m, L) = (30, 30)."""
    rng = np.random.default_rng(0)
    rows = []
    cells = [{"m": m, "L": 30, "p": 0.8} for m in (40, 10, 20)]
    # p values computed, as a grid would be: 0.7 + 0.1 is not exactly the literal 0.8;
    # the (m, L, p) = (30, 30, 0.8) cell belongs to both panels
    cells += [{"m": 30, "L": 30, "p": p} for p in (0.7 + 0.1, 0.2, 0.5)]
    for cell in cells:
        for r in (2, 0, 1):
            value = cell["m"] * cell["p"] / 4 + rng.normal(scale=0.1)
            rows.append(
                {"model": "tm", **cell, "replicate": r, "method": "local_adrr"}
                | {"metric": "hessian_min_eig", "value": value}
            )
    return pd.DataFrame(rows)


FIG3 = {
    "panels": [
        {"metric": "hessian_min_eig", "p": 0.8, "L": 30, "x": "m"},
        {"metric": "hessian_min_eig", "m": 30, "L": 30, "x": "p"},
    ],
    "x": "m",
}


def _boxes(ax) -> int:
    return sum(1 for line in ax.lines if line.get_marker() == "D")


def test_box_data_filters_with_tolerance_and_orders_each_panel_by_its_x():
    frame = _hessian_frame()
    assert 0.7 + 0.1 != 0.8  # the filter needs a tolerance
    data = box_data(frame, FIG3)
    a, b = data[data["panel"] == "a"], data[data["panel"] == "b"]
    assert list(data["panel"]) == ["a"] * 12 + ["b"] * 9
    # panel a: p == 0.8 (up to rounding), ordered by m then replicate
    assert np.allclose(a["p"], 0.8)
    assert list(a["m"]) == [10] * 3 + [20] * 3 + [30] * 3 + [40] * 3
    assert list(a["replicate"]) == [0, 1, 2] * 4
    # panel b: m == 30 (includes the p = 0.8 cell), ordered by its own x, p
    assert (b["m"] == 30).all()
    assert np.allclose(b["p"], np.repeat([0.2, 0.5, 0.8], 3))
    assert list(b["replicate"]) == [0, 1, 2] * 3


def test_box_data_keeps_only_the_panel_metric_and_orders_methods_as_in_the_paper():
    rows = [
        {"model": mo, "replicate": r, "method": me, "metric": mt, "value": 1.0}
        for mo in ("btl", "tm")
        for me in ("local_laplace", "local_classic_rr", "local_adrr", "edge_noisy_obj")
        for mt in ("linf", "l2_over_sqrt_m")
        for r in range(2)
    ]
    spec = {"panels": [{"metric": "linf", "model": "btl"}], "x": "method"}
    data = box_data(pd.DataFrame(rows), spec)
    assert set(data["metric"]) == {"linf"} and set(data["model"]) == {"btl"}
    assert list(data["method"].unique()) == [
        "local_adrr",
        "edge_noisy_obj",
        "local_laplace",
        "local_classic_rr",
    ]
    custom = box_data(pd.DataFrame(rows), {**spec, "order": {"method": ["local_laplace"]}})
    assert list(custom["method"].unique()) == [
        "local_laplace",
        "edge_noisy_obj",
        "local_adrr",
        "local_classic_rr",
    ]


def test_empty_panel_raises_naming_the_panel():
    spec = {**FIG3, "panels": [FIG3["panels"][0], {"metric": "hessian_min_eig", "p": 0.3}]}
    with pytest.raises(ValueError, match=r"panel \(b\).*no rows"):
        box_data(_hessian_frame(), spec)
    with pytest.raises(ValueError, match=r"panel \(a\).*missing column 'delta'"):
        box_data(_hessian_frame(), {"panels": [{"metric": "hessian_min_eig", "delta": 1}]})


def test_draw_boxplots_one_box_per_x_value_with_mean_markers():
    data = box_data(_hessian_frame(), FIG3)
    fig = draw_boxplots(data, FIG3)
    try:
        axes = fig.get_axes()
        assert len(axes) == 2
        for ax in axes:
            assert ax.get_yscale() == "linear"
        assert len(axes[0].patches) == _boxes(axes[0]) == 4  # a box and a mean diamond per m
        assert len(axes[1].patches) == _boxes(axes[1]) == 3
        assert [t.get_text() for t in axes[0].get_xticklabels()] == ["10", "20", "30", "40"]
        assert [t.get_text() for t in axes[1].get_xticklabels()] == ["0.2", "0.5", "0.8"]
        assert [ax.get_xlabel() for ax in axes] == ["m", "p"]
        assert axes[0].get_title(loc="left") == "(a)"
        # the diamond sits at the replicate mean
        means = data[data["panel"] == "a"].groupby("m")["value"].mean().to_numpy()
        diamonds = [ln for ln in axes[0].lines if ln.get_marker() == "D"]
        assert np.allclose([ln.get_ydata()[0] for ln in diamonds], means)
        assert diamonds[0].get_markerfacecolor() == "white"
    finally:
        plt.close(fig)


def test_draw_boxplots_with_hue_and_log_axis():
    rng = np.random.default_rng(1)
    rows = [
        {"model": "btl", "m": m, "L": L, "replicate": r, "method": "local_adrr"}
        | {"metric": "seconds", "value": 1e-6 * m**2 * L * rng.lognormal(sigma=0.1)}
        for L in (200, 400, 800)
        for m in (10, 20, 40, 80)
        for r in range(5)
        if not (m == 80 and L == 800)  # one missing (x, hue) box
    ]
    spec = {
        "panels": [{"metric": "seconds", "title": "Runtime"}, {"metric": "seconds", "m": 10}],
        "x": "L",
        "hue": "m",
        "logy": True,
    }
    data = box_data(pd.DataFrame(rows), spec)
    fig = draw_boxplots(data, spec)
    try:
        a, b = fig.get_axes()
        assert len(a.patches) == _boxes(a) == 3 * 4 - 1
        assert len(b.patches) == _boxes(b) == 3
        assert a.get_yscale() == b.get_yscale() == "log"
        assert [t.get_text() for t in a.get_xticklabels()] == ["200", "400", "800"]
        assert a.get_ylabel() == "Runtime (s)"
        assert a.get_title(loc="left") == "(a) Runtime"
        (legend,) = fig.legends
        assert [t.get_text() for t in legend.get_texts()] == [
            "m=10",
            "m=20",
            "m=40",
            "m=80",
            "mean over replicates",  # what the white diamond is
        ]
        assert a.get_legend() is None and b.get_legend() is None
    finally:
        plt.close(fig)


def test_draw_boxplots_methods_in_two_model_panels():
    rows = [
        {"model": mo, "replicate": r, "method": me, "metric": "kendall_tau_K", "value": r / 10}
        for mo in ("btl", "tm")
        for me in ("local_count", "local_adrr")
        for r in range(4)
    ]
    spec = {
        "panels": [
            {"metric": "kendall_tau_K", "model": "btl"},
            {"metric": "kendall_tau_K", "model": "tm"},
        ],
        "x": "method",
    }
    fig = draw_boxplots(box_data(pd.DataFrame(rows), spec), spec)
    try:
        axes = fig.get_axes()
        assert [ax.get_title(loc="left") for ax in axes] == ["(a) BTL", "(b) TM"]
        assert [t.get_text() for t in axes[1].get_xticklabels()] == ["ADRR", "Count Method"]
        assert axes[0].get_xlabel() == "" and axes[0].get_ylabel() == "Full ranking error K"
        (legend,) = fig.legends  # no hue: the legend says only what the diamond is
        assert [t.get_text() for t in legend.get_texts()] == ["mean over replicates"]
    finally:
        plt.close(fig)


def _scatter_frame(n: int = 60, seed: int = 2) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for model, slope in (("btl", 0.3), ("tm", 0.2)):
        budgets = rng.uniform(0.05, 0.9, size=n)
        for r in rng.permutation(n):
            x = budgets[r] ** -0.5
            cell = {"model": model, "m": 20, "L": 200, "p": 1.0, "replicate": int(r)}
            rows.append({**cell, "method": "local_adrr", "metric": "B", "value": budgets[r]})
            for metric, scale in (("l2_over_sqrt_m", 1.0), ("linf", 2.5)):
                y = scale * (0.01 + slope * x + rng.normal(scale=0.05))
                rows.append({**cell, "method": "local_adrr", "metric": metric, "value": y})
    return pd.DataFrame(rows)


SCATTER = {
    "panels": [
        {"metric": "l2_over_sqrt_m", "model": "btl"},
        {"metric": "linf", "model": "btl"},
        {"metric": "l2_over_sqrt_m", "model": "tm"},
    ],
    "x_metric": "B",
}


def test_scatter_data_x_is_the_replicate_budget_to_the_minus_half():
    frame = pd.DataFrame(
        [
            {"model": mo, "m": 10, "replicate": r, "method": "local_adrr", "metric": mt, "value": v}
            for mo, r, mt, v in [
                ("btl", 1, "B", 0.25),
                ("btl", 0, "B", 4.0),
                ("tm", 0, "B", 0.01),
                ("btl", 0, "linf", 7.0),
                ("btl", 1, "linf", 8.0),
                ("tm", 0, "linf", 9.0),
            ]
        ]
    )
    spec = {"panels": [{"metric": "linf", "model": "btl"}, {"metric": "linf"}], "x_metric": "B"}
    data = scatter_data(frame, spec)
    assert list(data.columns) == ["panel", "model", "replicate", "x", "value"]
    a, b = data[data["panel"] == "a"], data[data["panel"] == "b"]
    assert list(a["replicate"]) == [0, 1]
    np.testing.assert_allclose(a["x"], [0.5, 2.0])
    np.testing.assert_allclose(a["value"], [7.0, 8.0])
    # replicate 0 of TM has its own B: joined within the model's cell
    tm = b[b["model"] == "tm"]
    np.testing.assert_allclose(tm["x"], [10.0])
    np.testing.assert_allclose(tm["value"], [9.0])
    with pytest.raises(ValueError, match=r"panel \(b\).*no rows"):
        scatter_data(frame, {**spec, "panels": [spec["panels"][0], {"metric": "l2"}]})


def test_draw_scatter_bands_r_is_pearson_and_grid_has_one_axis_per_panel():
    data = scatter_data(_scatter_frame(), SCATTER)
    fig, fits = draw_scatter_bands(data, SCATTER)
    try:
        assert len(fig.get_axes()) == 3  # 2x2 grid, the unused axis removed
        assert list(fits.columns) == ["panel", "metric", "model", "n", "intercept", "slope", "r"]
        assert list(fits["panel"]) == ["a", "b", "c"]
        assert list(fits["model"]) == ["btl", "btl", "tm"]
        for fit in fits.itertuples():
            rows = data[data["panel"] == fit.panel]
            assert fit.n == len(rows) == 60
            assert fit.r == pytest.approx(np.corrcoef(rows["x"], rows["value"])[0, 1], abs=1e-12)
            slope, intercept = np.polyfit(rows["x"], rows["value"], 1)
            assert (fit.slope, fit.intercept) == pytest.approx((slope, intercept))
            assert fit.r > 0.9
        ax = fig.get_axes()[0]
        texts = [t.get_text() for t in ax.texts]
        assert texts == [f"r = {fits['r'][0]:.2f}"]
        assert ax.get_title(loc="left") == "(a) BTL"
        assert ax.get_xlabel() == r"$B(\varepsilon)^{-1/2}$"
        assert len(ax.collections) == 2  # band and points
    finally:
        plt.close(fig)


def test_draw_scatter_bands_missing_panel_rows_raise():
    data = scatter_data(_scatter_frame(), SCATTER)
    with pytest.raises(ValueError, match=r"panel \(c\)"):
        draw_scatter_bands(data[data["panel"] != "c"], SCATTER)


def test_a_far_replicate_does_not_flatten_its_panel():
    """B2 Figure 13 (a): one replicate far above the rest; the axis ends above the bulk."""
    rows = [
        {"replicate": r, "method": me, "metric": "linf", "value": 0.1 + r / 1000}
        for me in ("local_adrr", "local_laplace")
        for r in range(100)
    ]
    rows[5]["value"] = 3.8
    spec = {"panels": [{"metric": "linf"}], "x": "method"}
    fig = draw_boxplots(box_data(pd.DataFrame(rows), spec), spec)
    try:
        (ax,) = fig.get_axes()
        assert ax.get_ylim()[1] < 0.5
        assert any("1 replicate above, up to 3.8" in t.get_text() for t in ax.texts)
    finally:
        plt.close(fig)
