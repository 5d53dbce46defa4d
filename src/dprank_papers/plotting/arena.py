"""The figure of the price of privacy for a leaderboard (:mod:`dprank_papers.studies.arena`)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

from .style import COLORS

__all__ = ["plot_price_of_privacy"]

_PANELS = (
    ("kendall", "Kendall tau with the non-private leaderboard"),
    ("top_overlap", "top-k overlap (k = 10 arena, 3 CEMS)"),
    ("rank_coverage", "rank intervals holding the non-private rank"),
    ("tie_classes", "tie classes (more: the release orders more of the models)"),
)
_NAMES = {"chatbot_arena": "Arena", "cems": "CEMS"}
_PRIVACY = {"edge": "edge (one vote)", "individual": "voter", "local": "local"}
_COLOR = {"edge": 0, "individual": 1, "local": 2}
_LINE = ("-", "--", ":")
_MARKER = ("o", "s", "^")


def plot_price_of_privacy(summary: pd.DataFrame, level: float):
    """Four panels, one per metric, against epsilon (log scale; the non-private value at the
    right as "inf"), one line per data set (line style and marker) and privacy model
    (colour), 1.96 standard errors as bars.

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
        The figure and the numbers it plots.
    """
    import matplotlib.pyplot as plt

    needed = ["dataset", "privacy", "epsilon", "n_items"]
    needed += [m for m, _ in _PANELS] + [f"{m}_se" for m, _ in _PANELS]
    _checks.columns(summary, "summary", needed)
    level = _checks.probability(level, "level", low_open=True, high_open=True)
    finite = summary[np.isfinite(summary["epsilon"])]
    eps_max = float(finite["epsilon"].max()) if len(finite) else 1.0
    x_inf = eps_max * 2.5  # where the non-private reference is drawn
    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5), constrained_layout=True)
    numbers = []
    datasets = list(dict.fromkeys(summary["dataset"]))
    for ax, (metric, title) in zip(axes.ravel(), _PANELS, strict=True):
        for d, dataset in enumerate(datasets):
            sub = summary[summary["dataset"] == dataset]
            ref = sub[~np.isfinite(sub["epsilon"])]
            for privacy in ("edge", "individual", "local"):
                line = sub[sub["privacy"] == privacy].sort_values("epsilon")
                if line.empty:
                    continue
                xs = list(line["epsilon"])
                ys = list(line[metric])
                es = list(line[f"{metric}_se"].fillna(0.0))
                if len(ref):
                    xs.append(x_inf)
                    ys.append(float(ref[metric].iloc[0]))
                    es.append(float(np.nan_to_num(ref[f"{metric}_se"].iloc[0])))
                label = f"{_NAMES.get(dataset, dataset)} ({int(sub['n_items'].iloc[0])}), "
                label += _PRIVACY[privacy]
                ax.errorbar(xs, ys, yerr=1.96 * np.asarray(es), color=COLORS[_COLOR[privacy]],
                            linestyle=_LINE[d % 3], marker=_MARKER[d % 3], markersize=4,
                            capsize=2, label=label)  # fmt: skip
                numbers.append(
                    pd.DataFrame(
                        {
                            "panel": metric,
                            "dataset": dataset,
                            "privacy": privacy,
                            "epsilon": [*line["epsilon"], *([math.inf] if len(ref) else [])],
                            "value": ys,
                            "se": es,
                        }
                    )
                )
        ticks = sorted(set(finite["epsilon"]))
        ax.set_xscale("log")
        ax.set_xticks([*ticks, x_inf], [f"{t:g}" for t in ticks] + ["inf"])
        ax.minorticks_off()
        ax.set_xlabel("epsilon (per vote; voter: per voter)")
        ax.set_title(title, fontsize=11)
        ax.grid(alpha=0.3)
        if metric == "rank_coverage":
            ax.axhline(level, color="black", linewidth=1, linestyle="--")
            ax.set_ylim(0, 1.03)
        elif metric in ("kendall", "top_overlap"):
            ax.set_ylim(min(0.0, float(summary[metric].min()) - 0.05), 1.03)
        else:
            ax.set_ylim(0, None)
    axes[0, 0].legend(fontsize=8, loc="lower right")
    fig.suptitle(
        "The price of privacy for a leaderboard with ties (Davidson's model): private against "
        "non-private",
        fontsize=12,
    )
    return fig, pd.concat(numbers, ignore_index=True)
