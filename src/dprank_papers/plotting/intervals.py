"""The figure of the coverage study of the intervals (:mod:`dprank_papers.studies.intervals`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

from .style import COLORS

__all__ = ["plot_coverage"]


def plot_coverage(summary: pd.DataFrame, level: float, target: float, item_target: float):
    """Two panels: coverage of score and of rank intervals per design.

    Bars: the average coverage over (item, replicate) pairs; markers: the
    smallest coverage of one item (fixed truth and graph) and, where the study
    ran it, the parametric bootstrap of the release's average; lines: the
    nominal ``level``, the average ``target`` and the per-item ``item_target``.
    The median width is printed on each bar.

    Parameters
    ----------
    summary : DataFrame
        :func:`dprank_papers.studies.intervals.summarise` output.
    level, target, item_target : float

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
        The figure and the numbers it plots (one row per design and panel).
    """
    import matplotlib.pyplot as plt

    needed = ["design"]
    needed += [f"{w}_{c}" for w in ("score", "rank") for c in ("cover", "cover_min")]
    needed += ["score_width_median", "rank_width_median"]
    _checks.columns(summary, "summary", needed)
    _checks.probability(level, "level")
    _checks.probability(target, "target")
    _checks.probability(item_target, "item_target")
    boot = "boot_rank_cover" in summary
    fig, axes = plt.subplots(2, 1, figsize=(13, 9), constrained_layout=True)
    x = np.arange(len(summary))
    numbers = []
    for ax, (what, title) in zip(
        axes, (("score", "score intervals"), ("rank", "rank intervals")), strict=True
    ):
        cover = summary[f"{what}_cover"]
        low = summary[f"{what}_cover_min"]
        width = summary[f"{what}_width_median"]
        ax.bar(x, cover, color=COLORS[0], alpha=0.85, label="average coverage")
        ax.scatter(x, low, color=COLORS[1], marker="v", zorder=3, label="smallest item's coverage")
        if boot:
            ax.scatter(
                x,
                summary[f"boot_{what}_cover"],
                color=COLORS[2],
                marker="o",
                facecolors="none",
                zorder=3,
                label="parametric bootstrap: average",
            )
        bottom = max(0.0, min(0.5, float(low.min()) - 0.05))
        for xi, w in zip(x, width, strict=True):
            ax.text(xi, bottom + 0.01, f"{w:.3g}", ha="center", va="bottom", fontsize=8,
                    color="white", rotation=90)  # fmt: skip
        ax.axhline(level, color="black", linestyle="--", linewidth=1, label=f"nominal {level:g}")
        ax.axhline(
            target, color=COLORS[1], linestyle=":", linewidth=1.5, label=f"target {target:g}"
        )
        ax.axhline(
            item_target, color=COLORS[3], linestyle="-.", linewidth=1,
            label=f"per-item target {item_target:g}",
        )  # fmt: skip
        ax.set_xticks(x, summary["design"], rotation=30, ha="right", fontsize=9)
        ax.set_ylim(bottom, 1.01)
        ax.set_ylabel("coverage")
        ax.set_title(f"{title} (printed: median width)", fontsize=12)
        ax.grid(alpha=0.3, axis="y")
        frame = pd.DataFrame(
            {
                "panel": what,
                "design": summary["design"],
                "coverage": cover,
                "smallest_item": low,
                "median_width": width,
            }
        )
        if boot:
            frame["bootstrap_coverage"] = summary[f"boot_{what}_cover"].to_numpy()
        numbers.append(frame)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncol=4, fontsize=9, frameon=False)
    return fig, pd.concat(numbers, ignore_index=True)
