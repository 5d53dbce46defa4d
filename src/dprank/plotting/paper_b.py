"""Paper B (B2) simulation figures from the aggregated summaries.

Every B2 simulation figure plots average errors against the number of users L,
one line per combination of the figure's ``series`` keys (e.g. model and m in
Figure 4, scheme and m in Figures 6 and 11, m and delta in Figures 7 and 12),
one panel per configured (metric, model) (spec/paper-b.md, section 2).
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from .style import COLORS, MARKERS, authors_style, panel_grid

__all__ = ["METRIC_LABELS", "draw_b2_figure", "figure_data"]

METRIC_LABELS = {
    "l2_over_sqrt_m": r"$m^{-1/2}\|\hat\theta-\theta^*\|_2$",
    "linf": r"$\|\hat\theta-\theta^*\|_\infty$",
    "kendall_tau_K": "Full ranking error K",
    "topK_hamming_HK_K=m/2": r"Top-$K$ error $H_K$ ($K = m/2$)",
}
KEY_LABELS = {"model": "", "m": "m", "scheme": "Scheme ", "delta": "Δ"}


def _label(key: str, value) -> str:
    if key == "model":
        return str(value).upper()
    sep = "" if key == "scheme" else "="
    return (
        f"{KEY_LABELS.get(key, key)}{sep}{value:g}"
        if isinstance(value, float)
        else (f"{KEY_LABELS.get(key, key)}{sep}{value}")
    )


def figure_data(summary: pd.DataFrame, spec: Mapping) -> pd.DataFrame:
    """The plotted rows (with a ``panel`` letter), in panel, series and L order."""
    rows = []
    for letter, panel in zip("abcdefgh", spec["panels"], strict=False):
        d = summary[(summary["metric"] == panel["metric"]) & (summary["method"] == "ADRR")]
        if "model" in panel:
            d = d[d["model"] == panel["model"]]
        rows.append(d.assign(panel=letter))
    data = pd.concat(rows, ignore_index=True)
    return data.sort_values(["panel", *spec["series"], "L"]).reset_index(drop=True)


def draw_b2_figure(data: pd.DataFrame, spec: Mapping):
    """One panel per configured (metric, model): error against L, a line per series."""

    n = len(spec["panels"])
    with authors_style():
        fig, axes = panel_grid(1, n)
        for ax, letter, panel in zip(axes[0], "abcdefgh", spec["panels"], strict=False):
            d = data[data["panel"] == letter]
            groups = d[spec["series"]].drop_duplicates().itertuples(index=False)
            for i, values in enumerate(groups):
                mask = (d[spec["series"]] == pd.Series(values, index=spec["series"])).all(axis=1)
                line = d[mask].sort_values("L")
                ax.plot(
                    line["L"],
                    line["mean"],
                    marker=MARKERS[i % len(MARKERS)],
                    color=COLORS[i % len(COLORS)],
                    linestyle=("-", "--", ":")[(i // len(COLORS)) % 3],
                    markersize=7,
                    label=", ".join(
                        _label(k, v) for k, v in zip(spec["series"], values, strict=True)
                    ),
                )
            ax.set_xticks(sorted(set(d["L"])))
            ax.set_xlabel("L")
            ax.set_ylabel(METRIC_LABELS.get(panel["metric"], panel["metric"]))
            ax.legend(loc="best", fontsize=9, ncol=2 if len(d) > 24 else 1)
            title = f"({letter})" + (f" {panel['model'].upper()}" if "model" in panel else "")
            ax.set_title(title, loc="left", fontsize=18, fontweight="bold")
    return fig
