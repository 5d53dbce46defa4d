"""Overlay figures: the published points placed in each figure's own coordinates."""

import numpy as np
import pandas as pd

from dprank.plotting.overlay import paper_a_published, paper_b_box_published, paper_b_published


def test_paper_a_points_take_each_panels_x_and_series():
    data = pd.DataFrame(
        [
            {
                "panel": "a",
                "x_var": "epsilon",
                "series_var": "method",
                "x": e,
                "series": "perturbed_mle",
                "method": "perturbed_mle",
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
                "method": "perturbed_mle",
                "metric": "mrd",
                "published_mean": 1.2,
            },
            {
                "figure": "Figure 8",
                "panel": "b (immigration)",
                "source": "digitised figure",
                "epsilon": 0.5,
                "method": "perturbed_mle",
                "metric": "mrd",
                "published_mean": 9.0,
            },
            {
                "figure": "Figure 7",
                "panel": "a",
                "source": "digitised figure",
                "epsilon": 0.5,
                "method": "perturbed_mle",
                "metric": "mrd",
                "published_mean": 7.0,
            },
        ]
    )
    out = paper_a_published("fig8", data, comparison)
    assert out.to_dict("records") == [
        {"panel": "a", "x": 0.5, "series": "perturbed_mle", "value": 1.2}
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
                "method": "ADRR",
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
                ("BTL", "ADRR", 0.19),
                ("TM", "ADRR", 0.15),
                ("TM", "NoisyObj", np.nan),
            )
        ]
    )
    out = paper_b_box_published(spec, comparison, ["B2 Table 10"])
    assert out.to_dict("records") == [
        {"panel": "a", "x": "ADRR", "value": 0.15},
        {"panel": "b", "x": "ADRR", "value": 0.19},
    ]
