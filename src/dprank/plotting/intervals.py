"""The figure of the intervals' coverage study (:mod:`dprank.studies.intervals`): not a paper's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .. import _checks
from .style import COLORS

__all__ = ["plot_coverage"]


def plot_coverage(summary: pd.DataFrame, level: float, target: float):
    """Two panels: empirical coverage of score and of rank intervals per design.

    Bars: coverage with 1.96 standard errors (from the per-replicate
    coverages); the nominal ``level`` and the ``target`` as horizontal lines;
    the mean interval width is printed on each bar.

    Parameters
    ----------
    summary : DataFrame
        :func:`dprank.studies.intervals.summarise` output.
    level, target : float

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
        The figure and the numbers it plots (one row per design and panel).
    """
    import matplotlib.pyplot as plt

    needed = ["design"]
    needed += [f"{w}_{c}" for w in ("score", "rank") for c in ("cover", "cover_se", "width")]
    _checks.columns(summary, "summary", needed)
    _checks.probability(level, "level")
    _checks.probability(target, "target")
    fig, axes = plt.subplots(1, 2, figsize=(13, 5), constrained_layout=True)
    x = np.arange(len(summary))
    numbers = []
    for ax, (what, title) in zip(
        axes, (("score", "score intervals"), ("rank", "rank intervals")), strict=True
    ):
        cover, se, width = (
            summary[f"{what}_cover"],
            summary[f"{what}_cover_se"],
            summary[f"{what}_width"],
        )
        ax.bar(x, cover, yerr=1.96 * se.fillna(0.0), color=COLORS[0], capsize=3, alpha=0.85)
        for xi, c, w in zip(x, cover, width, strict=True):
            ax.text(
                xi,
                min(c, 1.0) - 0.02,
                f"w={w:.3g}",
                ha="center",
                va="top",
                fontsize=8,
                color="white",
            )
        ax.axhline(level, color="black", linestyle="--", linewidth=1, label=f"nominal {level:g}")
        ax.axhline(
            target, color=COLORS[1], linestyle=":", linewidth=1.5, label=f"target {target:g}"
        )
        ax.set_xticks(x, summary["design"], rotation=30, ha="right", fontsize=9)
        ax.set_ylim(max(0.0, min(0.8, float(cover.min()) - 0.05)), 1.01)
        ax.set_ylabel("empirical coverage")
        ax.set_title(f"{title} (w = mean width)", fontsize=12)
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=8, loc="lower left")
        numbers.append(
            pd.DataFrame(
                {
                    "panel": what,
                    "design": summary["design"],
                    "coverage": cover,
                    "se": se,
                    "mean_width": width,
                }
            )
        )
    return fig, pd.concat(numbers, ignore_index=True)
