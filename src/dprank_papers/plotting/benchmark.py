"""Figure of the benchmark of methods: error versus user-level eps, central against local.

Central methods are drawn in blues, local methods in oranges and reds, each
method of a group with its own marker shape (solid: ``eps / S_l`` per comparison, the per-user
accounting; dashed: ``eps`` per comparison), the non-private references as
grey horizontal lines. The accounting is written under every figure.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from dprank.base import checks as _checks

from .style import save_figure

__all__ = ["plot_benchmark", "save_figure"]

_CENTRAL = ("#08306B", "#2171B5", "#4292C6", "#6BAED6", "#9ECAE1", "#3182BD", "#084594")
_LOCAL = ("#D94801", "#F16913", "#A63603", "#FD8D3C", "#E6550D", "#7F2704", "#FDAE6B")
#: one marker shape per method within its trust model, so that lines of similar colour differ
_SHAPES = ("o", "s", "D", "^", "v", "P", "X", "*")
_LABELS = {
    "kendall": "Kendall distance",
    "top_k": "top-k Hamming error",
    "l2": "l2 error / sqrt(n)",
}


def _check_inputs(
    summary: pd.DataFrame, title: str, note: str, labels: Mapping[str, str] | None
) -> list[str]:
    """The argument checks of :func:`plot_benchmark`; returns the metrics to draw."""
    needed = ("metric", "method", "trust_model", "accounting", "eps", "mean", "se")
    _checks.columns(summary, "summary", needed)
    _checks.text(title, "title")
    _checks.text(note, "note")
    if labels is not None:
        _checks.mapping(labels, "labels")
    metrics = [m for m in _LABELS if m in set(summary["metric"])]
    if not metrics:
        raise ValueError(f"summary has no rows of the metrics {list(_LABELS)}")
    return metrics


def _draw_panel(
    ax, s: pd.DataFrame, methods: list, groups: dict, labels: dict, handles: dict
) -> None:
    """One metric's panel: a grey line per non-private reference, and per private method
    its error against eps under each accounting; adds the legend entries to ``handles``.

    ``groups`` maps a trust model (``central``, ``local``) to its methods in order.
    """
    for name in methods:
        g = s[s["method"] == name]
        if g.empty:
            continue
        tm = g["trust_model"].iloc[0]
        shown = labels.get(name, name)
        if tm == "none":
            y = g["mean"].iloc[0]
            (h,) = ax.plot([], [], color="0.5", lw=1.2, ls=":" if "counts" in name else "-.")
            ax.axhline(y, color=h.get_color(), lw=1.2, ls=h.get_linestyle())
            private = "private" in shown.lower()
            handles[name] = (h, shown if private else f"{shown} (non-private)")
            continue
        palette = _CENTRAL if tm == "central" else _LOCAL
        i = groups["central" if tm == "central" else "local"].index(name)
        color, marker = palette[i % len(palette)], _SHAPES[i % len(_SHAPES)]
        for acc, ls in (("user", "-"), ("comparison", "--")):
            a = g[g["accounting"] == acc].sort_values("eps")
            if a.empty:
                continue
            e, m, se = a["eps"].to_numpy(), a["mean"].to_numpy(), a["se"].to_numpy()
            (h,) = ax.plot(e, m, ls=ls, marker=marker, color=color, lw=1.6, ms=5)
            ax.fill_between(e, m - 1.96 * se, m + 1.96 * se, color=color, alpha=0.08, lw=0)
            label = f"{shown}, {tm}" if acc == "user" else f"{shown}, eps per comparison"
            handles.setdefault(f"{name}/{acc}", (h, label))


def _dress_axes(ax, metric: str) -> None:
    """Scales, labels and grid of one metric's panel."""
    ax.set_xscale("log")
    ax.set_xlabel("eps per user")
    ax.set_ylabel(_LABELS[metric])
    if metric == "l2":
        ax.set_yscale("log")
    else:  # from 0, with room for the markers at 0
        ax.set_ylim(bottom=-0.03 * ax.get_ylim()[1])
    ax.grid(alpha=0.3)


def plot_benchmark(
    summary: pd.DataFrame, title: str, note: str, labels: Mapping[str, str] | None = None
):
    """Error versus eps for every method of one data set.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`dprank_papers.studies.benchmark.summarise` rows of one data set.
    title : str
        Figure title (the data set and its sizes).
    note : str
        The accounting, written under the panels.
    labels : mapping, optional
        Method name -> what the legend calls it (:attr:`dprank.methods.Method.label`);
        a method not in it is called by its name.

    Returns
    -------
    matplotlib.figure.Figure
    """
    import matplotlib.pyplot as plt

    metrics = _check_inputs(summary, title, note, labels)
    fig, axes = plt.subplots(1, len(metrics), figsize=(5.2 * len(metrics), 4.6), squeeze=False)
    methods = list(dict.fromkeys(summary["method"]))
    groups = {
        tm: [m for m in methods if (summary[summary.method == m].trust_model == tm).any()]
        for tm in ("central", "local")
    }
    handles = {}
    labels = dict(labels or {})
    for ax, metric in zip(axes[0], metrics, strict=True):
        _draw_panel(ax, summary[summary["metric"] == metric], methods, groups, labels, handles)
        _dress_axes(ax, metric)
    fig.suptitle(title, fontsize=12)
    fig.legend(
        [h for h, _ in handles.values()],
        [lab for _, lab in handles.values()],
        loc="center left",
        bbox_to_anchor=(1.0, 0.5),
        fontsize=8,
        frameon=False,
    )
    fig.text(0.5, -0.02, note, ha="center", va="top", fontsize=8, wrap=True)
    fig.tight_layout()
    return fig
