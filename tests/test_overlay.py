"""Overlay figures: the published points placed in each figure's own coordinates."""

from pathlib import Path

import numpy as np
import pandas as pd

from dprank.base.yamlfile import read_yaml
from dprank_papers._papers import item_settings
from dprank_papers.plotting.overlay import (
    paper_a_published,
    paper_b_box_published,
    paper_b_published,
)

#: Figure 4's declared settings (workflow/papers/paper_a.yaml), as the rule passes them
FIG4 = item_settings(
    read_yaml(Path(__file__).resolve().parents[1] / "workflow/papers/paper_a.yaml")["items"]["fig4"]
)


def test_paper_a_points_take_each_panels_x_and_series():
    data = pd.DataFrame(
        [
            {
                "panel": "a",
                "x_var": "epsilon",
                "series_var": "method",
                "x": e,
                "series": "individual_mle",
                "method": "individual_mle",
                "metric": "mrd",
                "mean": 1.0,
            }
            for e in (0.5, 1.0)
        ]
    )
    comparison = pd.DataFrame(
        [
            {
                "figure": "Figure 8",
                "panel": "a (CEMS)",
                "source": "digitised figure",
                "epsilon": 0.5,
                "method": "individual_mle",
                "metric": "mrd",
                "published_mean": 1.2,
            },
            {
                "figure": "Figure 8",
                "panel": "b (immigration)",
                "source": "digitised figure",
                "epsilon": 0.5,
                "method": "individual_mle",
                "metric": "mrd",
                "published_mean": 9.0,
            },
            {
                "figure": "Figure 7",
                "panel": "a",
                "source": "digitised figure",
                "epsilon": 0.5,
                "method": "individual_mle",
                "metric": "mrd",
                "published_mean": 7.0,
            },
        ]
    )
    out = paper_a_published("fig8", data, comparison)
    assert out.to_dict("records") == [
        {"panel": "a", "x": 0.5, "series": "individual_mle", "value": 1.2}
    ]


def test_paper_b_rows_match_on_every_cell_key():
    data = pd.DataFrame(
        [
            {
                "panel": "a",
                "model": "btl",
                "scheme": s,
                "m": 10,
                "L": L,
                "metric": "linf",
                "method": "local_adrr",
                "mean": 0.1,
            }
            for s in (1, 2)
            for L in (100, 200)
        ]
    )
    comparison = pd.DataFrame(
        [
            {
                "figure": "B2 Table 7",
                "model": "BTL",
                "scheme": "scheme2",
                "metric": "linf",
                "m": 10.0,
                "L": 200.0,
                "Delta": np.nan,
                "published_mean": 0.5,
            },
            {
                "figure": "B2 Table 6",
                "model": "BTL",
                "scheme": "scheme2",
                "metric": "linf",
                "m": 10.0,
                "L": 100.0,
                "Delta": np.nan,
                "published_mean": 9.9,
            },
        ]
    )
    out = paper_b_published(data, {}, comparison, ["B2 Table 7"])
    hit = out[out["published"].notna()]
    assert len(hit) == 1 and hit.iloc[0]["scheme"] == 2 and hit.iloc[0]["L"] == 200


def test_paper_b_box_means_per_panel_and_method():
    spec = {"panels": [{"metric": "linf", "model": "tm"}, {"metric": "linf", "model": "btl"}]}
    comparison = pd.DataFrame(
        [
            {
                "figure": "B2 Table 10",
                "model": m,
                "metric": "linf",
                "method": meth,
                "published_mean": v,
            }
            for m, meth, v in (
                ("BTL", "local_adrr", 0.19),
                ("TM", "local_adrr", 0.15),
                ("TM", "edge_noisy_obj", np.nan),
            )
        ]
    )
    out = paper_b_box_published(spec, comparison, ["B2 Table 10"])
    assert out.to_dict("records") == [
        {"panel": "a", "x": "local_adrr", "value": 0.15},
        {"panel": "b", "x": "local_adrr", "value": 0.19},
    ]


def _fig4_panel_a(epsilons=(0.1, 2.0), in_paper=(False, True)):
    """Figure 4 (a) at epsilon = 2 and published rows at every epsilon of the stored run."""
    data = pd.DataFrame(
        [
            {
                "figure": "fig4",
                "panel": "a",
                "x_var": "n",
                "x": float(n),
                "series_var": "method",
                "series": m,
                "method": m,
                "metric": "rel_hamming",
                "mean": 0.2,
            }
            for n in (150, 250)
            for m in ("edge_counts", "edge_mle")
        ]
    )
    comparison = pd.DataFrame(
        [
            {
                "figure": "Figure 4",
                "panel": "a",
                "n": n,
                "p": 1.0,
                "epsilon": e,
                "method": m,
                "metric": "rel_hamming",
                "in_paper_figure": shown,
                "published_mean": 0.3 if e == 2.0 else 0.9,
            }
            for n in (150, 250, 350)  # 350: run by the authors, not plotted by us
            for e, shown in zip(epsilons, in_paper, strict=True)
            for m in ("edge_counts", "edge_mle")
        ]
    )
    return data, comparison


def test_paper_a_overlay_keeps_only_the_panels_epsilon():
    data, comparison = _fig4_panel_a(in_paper=(True, True))  # even if flagged as plotted
    assert FIG4["epsilon"] == 2.0
    out = paper_a_published("fig4", data, comparison, FIG4)
    assert len(out) == 4
    assert (out["value"] == 0.3).all()  # the epsilon = 0.1 values (0.9) are not drawn
    assert set(out["x"]) == {150, 250}  # n = 350 is not a plotted point


def test_paper_a_overlay_skips_points_the_paper_did_not_plot():
    data, comparison = _fig4_panel_a()
    out = paper_a_published("fig4", data, comparison)  # no settings: in_paper_figure decides
    assert (out["value"] == 0.3).all() and len(out) == 4


def test_paper_a_overlay_draws_no_marker_off_the_panels_settings():
    """The drawn figure: every hollow marker sits on a plotted (x, series) at epsilon = 2."""
    import matplotlib.pyplot as plt

    from dprank_papers.plotting.overlay import draw_overlay

    data, comparison = _fig4_panel_a(in_paper=(True, True))
    b = data.assign(panel="b", x_var="epsilon", x=data["x"].map({150.0: 0.5, 250.0: 2.0}))
    data = pd.concat([data, b], ignore_index=True)
    fig, shown = draw_overlay("fig4", data, comparison, settings=FIG4)
    hollow = [
        line
        for ax in fig.axes
        for line in ax.get_lines()
        if line.get_markerfacecolor() == "none" and len(line.get_xdata())
    ]
    ys = np.concatenate([line.get_ydata() for line in hollow])
    xs = np.concatenate([line.get_xdata() for line in hollow])
    assert shown == 4 and len(ys) == 4
    assert np.allclose(ys, 0.3) and set(xs) <= {150.0, 250.0}
    plt.close(fig)
