"""Paper B (B2) figures from the aggregated summaries.

Figure 4 (Scenario I): average estimation error against the number of users
L, one line per (model, m); left ``m^{-1/2} ||theta_hat - theta*||_2``, right
``||theta_hat - theta*||_inf`` (spec/paper-b.md, B2-Fig4).
"""

from __future__ import annotations

import pandas as pd

from .style import COLORS, MARKERS, PANEL_SIZE, authors_style

__all__ = ["FIGURES", "draw_scenario_figure", "scenario_figure_data"]

METRIC_LABELS = {
    "l2_over_sqrt_m": r"$m^{-1/2}\|\hat\theta-\theta^*\|_2$",
    "linf": r"$\|\hat\theta-\theta^*\|_\infty$",
}
MODEL_LABELS = {"btl": "BTL", "tm": "TM"}

#: figure id -> (experiment, caption)
FIGURES = {
    "fig4": (
        "scenario1",
        "Paper B (B2), Figure 4: Scenario I, average estimation errors of ADRR against L "
        "(eps_l ~ U(1, 5), p = 0.5, 200 replicates).",
    ),
}


def scenario_figure_data(summary: pd.DataFrame) -> pd.DataFrame:
    """The plotted rows: mean error per (metric, model, m, L), ADRR."""
    s = summary[summary["metric"].isin(list(METRIC_LABELS)) & (summary["method"] == "ADRR")]
    return s.sort_values(["metric", "model", "m", "L"]).reset_index(drop=True)


def draw_scenario_figure(data: pd.DataFrame):
    """Two panels (l2 and l_inf) with one line per (model, m)."""
    import matplotlib.pyplot as plt

    with authors_style():
        fig, axes = plt.subplots(
            1, 2, figsize=(PANEL_SIZE[0] * 2, PANEL_SIZE[1]), layout="constrained"
        )
        for ax, (letter, metric) in zip(
            axes, (("a", "l2_over_sqrt_m"), ("b", "linf")), strict=True
        ):
            d = data[data["metric"] == metric]
            series = d[["model", "m"]].drop_duplicates().itertuples(index=False)
            for i, (model, m) in enumerate(series):
                line = d[(d["model"] == model) & (d["m"] == m)].sort_values("L")
                ax.plot(
                    line["L"],
                    line["mean"],
                    marker=MARKERS[i % len(MARKERS)],
                    color=COLORS[i % len(COLORS)],
                    linestyle="-" if model == "btl" else "--",
                    markersize=8,
                    label=f"{MODEL_LABELS.get(model, model)}, m={m}",
                )
            ax.set_xticks(sorted(set(d["L"])))
            ax.set_xlabel("L")
            ax.set_ylabel(METRIC_LABELS[metric])
            ax.legend(loc="best", fontsize=11)
            ax.set_title(f"({letter})", loc="left", fontsize=18, fontweight="bold")
    return fig
