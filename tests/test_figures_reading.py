"""What a reader sees in the figures: one Figure 8 for equal protocols, coinciding lines
named, dataset names, staggered crowded ticks."""

import matplotlib

matplotlib.use("Agg")

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd
import pytest

from dprank.base.yamlfile import read_yaml
from dprank_papers._papers import item_settings
from dprank_papers.plotting.paper_a import _tick_labels, draw_figure, figure_panels, protocols_agree
from dprank_papers.plotting.paper_b import draw_b2_figure

#: Paper A's figures as declared (workflow/papers/paper_a.yaml): figure -> its settings
PAPER_A = {
    name: item_settings(item)
    for name, item in read_yaml(
        Path(__file__).resolve().parents[1] / "workflow/papers/paper_a.yaml"
    )["items"].items()
}


def _fig8(protocol, shift=0.0):
    return pd.DataFrame(
        [
            {
                "figure": "fig8",
                "panel": panel,
                "protocol": protocol,
                "x_var": "epsilon",
                "x": eps,
                "series_var": "method",
                "series": method,
                "method": method,
                "metric": "mean_rank_difference",
                "mean": 1.0 / eps + shift,
                "sd": 0.1,
                "se": 0.01,
                "reps": 10,
            }
            for panel in ("a", "b")
            for method in ("individual_mle", "individual_counts_as_published")
            for eps in (0.5, 1.0, 2.0, 10.0)
        ]
    )


def test_one_figure8_only_where_the_protocols_agree():
    protocols_agree("fig8", {"paper": _fig8("paper"), "authors": _fig8("authors")})
    with pytest.raises(ValueError, match="plot different means"):
        protocols_agree("fig8", {"paper": _fig8("paper"), "authors": _fig8("authors", 1e-9)})


def test_figure8_names_its_data_sets_and_says_why_one_figure():
    fig = draw_figure("fig8", _fig8("authors"), PAPER_A["fig8"], protocols="paper = authors")
    titles = [ax.get_title(loc="left") for ax in fig.axes]
    assert titles == ["(a) CEMS", "(b) Immigration"]
    assert "paper = authors" in fig.get_supxlabel()
    plt.close(fig)


def test_crowded_ticks_are_staggered():
    labels = _tick_labels([0.5, 1.0, 2.0, 4.0, 6.0, 8.0, 10.0], "g")
    assert labels[:3] == ["0.5", "\n1", "2"]
    assert _tick_labels([100, 200, 300], "g") == ["100", "200", "300"]


def test_a_line_drawn_over_another_says_so_in_the_legend():
    """B1 Figure 6 (c): classic and debiased RR give the same ranking with one budget."""
    rows = [
        {"panel": "a", "method": method, "L": L, "mean": value, "se": 0.01}
        for method, values in (
            ("local_classic_rr", (0.3, 0.2)),
            ("local_adrr", (0.3, 0.201)),  # within 2% at every L
            ("local_laplace", (0.5, 0.4)),
        )
        for L, value in zip((100, 200), values, strict=True)
    ]
    spec = {
        "panels": [{"metric": "kendall_tau_K"}],
        "series": ["method"],
        "labels": {"local_adrr": "Debiased RR", "local_classic_rr": "Classic RR"},
    }
    fig = draw_b2_figure(pd.DataFrame(rows), spec)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels[0] == "Classic RR" and labels[2] == "Laplace"
    assert (
        labels[1]
        == "Debiased RR\n(≈ Classic RR: one budget for all\nusers, nearly the same ranking)"
    )
    plt.close(fig)


def _overlaps(a, b):
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def test_long_legend_labels_share_one_legend_off_the_panels():
    """B1 Figures 3, 5, 7: the schemes' labels with their epsilon formulas would cover the
    data inside a panel; one legend under the panels holds them, clear of every panel."""
    labels = {
        "1": "Scheme 1: ε ≍ log(mL)/√(mL) (B1's text: Scheme 3)",
        "2": "Scheme 2: ε ≍ 1/√(mL)",
        "3": "Scheme 3: ε ≍ 1/(log(mL)√(mL)) (B1's text: Scheme 1)",
    }
    rows = [
        {"panel": panel, "scheme": scheme, "L": L, "mean": 0.3 + 0.1 * scheme - 0.001 * L}
        for panel in "ab"
        for scheme in (1, 2, 3)
        for L in (100, 200, 400)
    ]
    spec = {
        "panels": [{"metric": "linf", "m": 10}, {"metric": "linf", "m": 20}],
        "series": ["scheme"],
        "labels": labels,
    }
    fig = draw_b2_figure(pd.DataFrame(rows), spec)
    assert all(ax.get_legend() is None for ax in fig.axes)
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == list(labels.values())
    fig.canvas.draw()
    box = legend.get_window_extent()
    assert not any(_overlaps(box, ax.get_window_extent()) for ax in fig.axes)
    plt.close(fig)


def test_sensitivity_legend_under_the_panels_models_told_apart_by_marker():
    """The sensitivity figure: one legend for the Scenario V panels, clear of every panel, in
    which BTL and TM (a dash, invisible in a legend) also differ in marker."""
    from dprank_papers.plotting.sensitivity import _TARGETS, plot_sensitivity

    curve = pd.DataFrame({"p": [0.5, 0.5], "eps0": [2.0, 3.0], "rms_log_ratio": [0.3, 0.2]})
    fit = pd.DataFrame({"p": [0.5], "eps0": [2.5], "best": [True]})
    default5 = {"theta_half": 1.0, "p": 0.5, "lambda_c": 1.0}
    cells = pd.DataFrame(
        [
            {
                "figure": table,
                "metric": metric,
                "method": method,
                "model": model,
                **{**default5, key: value},
                "ours_mean": 0.2,
                "published_mean": 0.1,
                "ours_se": 0.01,
            }
            for table, metric, method, _ in _TARGETS
            for model in ("btl", "tm")
            for key in default5
            for value in (default5[key], 2 * default5[key])
        ]
    )
    fig, _ = plot_sensitivity(curve, fit, cells, default5)
    assert all(ax.get_legend() is None for ax in fig.axes[1:])
    (legend,) = fig.legends
    handles, texts = fig.axes[1].get_legend_handles_labels()  # errorbar containers
    assert [t.get_text() for t in legend.get_texts()] == texts
    entries = {text: handle[0] for text, handle in zip(texts, handles, strict=True)}
    assert len(entries) == 2 * len(_TARGETS)
    for _, _, _, label in _TARGETS:
        btl, tm = entries[f"{label} (BTL)"], entries[f"{label} (TM)"]
        assert btl.get_marker() != tm.get_marker()
    fig.canvas.draw()
    box = legend.get_window_extent()
    assert not any(_overlaps(box, ax.get_window_extent()) for ax in fig.axes)
    plt.close(fig)


def test_figure8_overlay_says_why_one_figure_too():
    """The overlay of the one Figure 8 says, as the figure does, which protocols it stands for."""
    from dprank_papers.plotting.overlay import draw_overlay

    data = _fig8("authors")
    comparison = pd.DataFrame(
        [
            {
                "figure": "Figure 8",
                "panel": panel,
                "epsilon": eps,
                "method": method,
                "metric": "mean_rank_difference",
                "in_paper_figure": True,
                "published_mean": 1.0 / eps,
            }
            for panel in ("a", "b")
            for method in ("individual_mle", "individual_counts_as_published")
            for eps in (0.5, 1.0, 2.0, 10.0)
        ]
    )
    fig, shown = draw_overlay(
        "fig8", data, comparison, settings=PAPER_A["fig8"], protocols="paper = authors"
    )
    assert shown > 0 and "Protocols paper = authors: equal means" in fig.get_supxlabel()
    plt.close(fig)


def _fig5(mean_c=0.0):
    """Figure 5's four panels, the Hamming errors of panels (c), (d) at 0 (eps = inf)."""
    metrics = {"a": "log_rel_l2", "b": "log_rel_linf", "c": "rel_hamming", "d": "rel_hamming"}
    return pd.DataFrame(
        [
            {
                "figure": "fig5",
                "panel": panel,
                "protocol": "paper",
                "x_var": "n",
                "x": n,
                "series_var": "epsilon",
                "series": eps,
                "metric": metric,
                "mean": mean_c if panel in "cd" else 1.0,
                "sd": 0.0,
                "se": 0.0,
                "reps": 2,
            }
            for panel, metric in metrics.items()
            for eps in (0.5, float("inf"))
            for n in (12.0, 20.0)
        ]
    )


def test_markers_at_zero_are_not_cut_by_the_axis():
    """Paper A Figures 5 and 7 (c), (d): the authors' floor at 0 leaves room for a marker."""
    fig = draw_figure("fig5", _fig5(), PAPER_A["fig5"])
    for ax in fig.axes[2:4]:
        bottom, top = ax.get_ylim()
        assert bottom < 0.0 < top
        fig.canvas.draw()
        zero = ax.transData.transform((0.0, 0.0))[1] - ax.transData.transform((0.0, bottom))[1]
        assert zero >= 5  # pixels: at least half a marker (markersize 10) above the axis
    plt.close(fig)


def test_paper_protocol_overlay_says_its_gaps_are_expected():
    from dprank_papers.plotting.overlay import PAPER_PROTOCOL_NOTE, draw_overlay

    comparison = pd.DataFrame(
        columns=["figure", "panel", "n", "epsilon", "metric", "in_paper_figure", "published_mean"]
    )
    fig, _ = draw_overlay("fig5", _fig5(), comparison, settings=PAPER_A["fig5"])
    assert fig.get_supxlabel() == PAPER_PROTOCOL_NOTE and "expected" in PAPER_PROTOCOL_NOTE
    plt.close(fig)


def test_two_key_legend_entries_differ_in_colour_or_marker():
    """B2 Figures 6, 11 (scheme, m) and 7, 12 (m, Delta): a dash does not show in a legend, so
    every two entries differ in colour or marker (Scheme 1 vs 3, m = 10 vs 30)."""
    rows = [
        {"panel": "a", "scheme": s, "m": m, "L": L, "mean": 0.1 * s + 0.01 * m + 0.001 * L}
        for s in (1, 2, 3)
        for m in (10, 20, 30)
        for L in (100, 200)
    ]
    spec = {"panels": [{"metric": "linf"}], "series": ["scheme", "m"]}
    fig = draw_b2_figure(pd.DataFrame(rows), spec)
    lines = [line for line in fig.axes[0].get_lines() if line.get_label()[0] != "_"]
    assert len(lines) == 9
    looks = {(line.get_color(), line.get_marker()) for line in lines}
    assert len(looks) == 9
    plt.close(fig)


def test_one_far_replicate_does_not_flatten_a_box_panel():
    """B2 Figure 13 (a): one replicate at 3.8 among errors near 0.3; the axis ends above the
    bulk and the panel says how many replicates lie above it."""
    import numpy as np

    from dprank_papers.plotting.paper_b_dist import box_data, draw_boxplots

    values = 0.3 + 0.01 * np.arange(40)
    rows = [
        {"model": "tm", "replicate": r, "method": me, "metric": "linf", "value": v}
        for me in ("local_adrr", "local_laplace")
        for r, v in enumerate(values)
    ]
    rows[-1]["value"] = 3.8
    spec = {"panels": [{"metric": "linf", "model": "tm"}], "x": "method"}
    fig = draw_boxplots(box_data(pd.DataFrame(rows), spec), spec)
    (ax,) = fig.get_axes()
    assert ax.get_ylim()[1] < 1.0
    assert [t.get_text() for t in ax.texts] == ["1 replicate above, up to 3.8"]
    plt.close(fig)


def test_figure_7_ticks_read_as_numbers():
    """Paper A Figure 7 (and every Paper A figure): x ticks as numbers (1, 2, 10), not 1.00."""
    for figure, settings in PAPER_A.items():
        for panel in figure_panels(settings):
            labels = _tick_labels([1.0, 2.0, 10.0], panel.xtick_format)
            assert [t.strip() for t in labels] == ["1", "2", "10"], (figure, panel.letter)


def test_real_data_figures_name_their_data_and_figure5_its_r():
    """B2 Figure 14 and B1 Figure 7 name their data sets; B2 Figure 5 says that its r lies
    below the paper's '> 0.9'."""
    from dprank_papers.plotting.paper_b import name_data_set

    for bpaper, figure, word in (
        ("paper_b2", "fig14", "Car preference"),
        ("paper_b1", "fig7", "MovieLens"),
    ):
        fig, _ = plt.subplots()
        name_data_set(fig, bpaper, figure)
        assert word in fig.get_suptitle()
        plt.close(fig)
    fig, _ = plt.subplots()
    name_data_set(fig, "paper_b2", "fig5")
    assert "0.9" in fig.get_supxlabel() and not fig.get_suptitle()
    plt.close(fig)


def test_scale_figure_explains_an_r2_at_or_below_zero():
    """The scale figure's "R^2 = -1.00" says what it means; a positive R^2 stands alone."""
    from dprank_papers.plotting.beyond_scale import _r2_text

    assert _r2_text(-1.0) == "$R^2$ = -1.00 (the rate explains none of the change in $n$)"
    assert "explains none" in _r2_text(0.0)
    assert _r2_text(0.66) == "$R^2$ = 0.66"
