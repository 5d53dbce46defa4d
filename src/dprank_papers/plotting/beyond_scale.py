"""The figure of the scale study (:mod:`dprank_papers.studies.beyond_scale`): not a paper's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.methods import get_method

from ..studies.beyond_scale import rate
from .style import COLORS, MARKERS

__all__ = ["plot_scale"]

_PANELS = (
    ("log_rel_l2", "{mle}: log relative $\\ell_2$ error"),
    ("log_rel_linf", "{mle}: log relative $\\ell_\\infty$ error"),
    ("rel_hamming", "relative Hamming error of the top-k set"),
)


#: a legend under its panel
_BELOW = {"fontsize": 9, "loc": "upper center", "bbox_to_anchor": (0.5, -0.14), "frameon": False}
#: the study's methods (Paper A's Algorithms 1 and 2) by their registered labels
_METHODS = {
    "edge_mle": get_method("edge_mle").label,
    "edge_counts": get_method("edge_counts").label,
}


def _r2_text(r2: float) -> str:
    """$R^2$ of the rate fit; a value at or below 0 is said to mean no fit."""
    if r2 <= 0:
        return f"$R^2$ = {r2:.2f} (the rate explains none of the change in $n$)"
    return f"$R^2$ = {r2:.2f}"


def _eps_label(eps: float) -> str:
    return "$\\varepsilon = \\infty$" if math.isinf(eps) else f"$\\varepsilon = {eps:g}$"


def _check_inputs(summary: pd.DataFrame, fit: pd.DataFrame, degree: float) -> None:
    """The argument checks of :func:`plot_scale`."""
    needed = ("method", "metric", "epsilon", "n", "p", "mean", "se")
    _checks.columns(summary, "summary", needed)
    _checks.columns(fit, "fit", ("epsilon", "constant", "r2"))
    _checks.positive_finite(degree, "degree")
    rated = summary[(summary["method"] == "edge_mle") & (summary["metric"] == "log_linf")]
    unfitted = sorted(set(rated["epsilon"]) - set(fit["epsilon"]))
    if unfitted:
        raise ValueError(f"fit has no row of the epsilon(s) {unfitted} of summary")


def _draw_metric(ax, summary: pd.DataFrame, metric: str, title: str, epsilons: list) -> list:
    """One of Figure 1's metrics against ``n``: a line per method and epsilon."""
    numbers = []
    for m, method in enumerate(("edge_mle", "edge_counts")):
        for e, eps in enumerate(epsilons):
            part = summary[
                (summary["method"] == method)
                & (summary["metric"] == metric)
                & (summary["epsilon"] == eps)
            ].sort_values("n")
            if part.empty:
                continue
            label = _eps_label(eps) + ("" if metric != "rel_hamming" else f", {_METHODS[method]}")
            ax.errorbar(
                part["n"], part["mean"], yerr=1.96 * part["se"], color=COLORS[e],
                marker=MARKERS[e], linestyle="-" if m == 0 else "--", capsize=3,
                label=label, markerfacecolor="white" if m else COLORS[e],
            )  # fmt: skip
            numbers.append(part.assign(panel=metric))
    ax.set_xscale("log")
    ax.set_xlabel("number of items $n$")
    ax.set_title(title.format(mle=_METHODS["edge_mle"]), fontsize=12)
    ax.grid(alpha=0.3)
    if metric == "rel_hamming":  # the bottom row: legends under the panels, off the data
        ax.legend(**_BELOW, ncol=2)
    else:
        ax.legend(fontsize=8)
    return numbers


def _draw_rate(ax, summary: pd.DataFrame, fit: pd.DataFrame, epsilons: list) -> list:
    """The rate panel: the measured ``l_inf`` error and ``C_eps * rate`` against ``n``."""
    numbers = []
    constants = fit.set_index("epsilon")
    for e, eps in enumerate(epsilons):
        part = summary[
            (summary["method"] == "edge_mle")
            & (summary["metric"] == "log_linf")
            & (summary["epsilon"] == eps)
        ].sort_values("n")
        if part.empty:
            continue
        n, p = part["n"].to_numpy(float), part["p"].to_numpy(float)
        measured = np.exp(part["mean"].to_numpy(float))
        row = constants.loc[eps]
        fitted = row["constant"] * rate(n, p, eps)
        ax.plot(n, measured, color=COLORS[e], marker=MARKERS[e], linestyle="none")
        ax.plot(
            n, fitted, color=COLORS[e], linestyle=":",
            label=f"{_eps_label(eps)}: $C$ = {row['constant']:.3g}, {_r2_text(row['r2'])}",
        )  # fmt: skip
        numbers.append(part.assign(panel="linf_vs_rate", measured=measured, fitted=fitted))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of items $n$")
    ax.set_title(
        "$\\|\\tilde\\theta - \\theta^*\\|_\\infty$ (markers: geometric mean over replicates)\n"
        "vs $C_\\varepsilon\\,(\\sqrt{\\log n / (np)} + \\log n / (np\\varepsilon))$ "
        "(dotted, Theorem 2.1)",
        fontsize=11,
    )
    ax.grid(alpha=0.3, which="both")
    ax.legend(**_BELOW)
    return numbers


def plot_scale(summary: pd.DataFrame, fit: pd.DataFrame, degree: float):
    """Four panels: Figure 1's three metrics against ``n``, and ``l_inf`` against the rate.

    Parameters
    ----------
    summary : DataFrame
        :func:`dprank_papers.studies.beyond_scale.summarise` output.
    fit : DataFrame
        :func:`dprank_papers.studies.beyond_scale.fit_rate` output.
    degree : float
        The average degree ``n p`` (for the title).

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
        The figure and the numbers it plots (one row per point; ``fitted`` is
        ``C_eps * rate`` on the rate panel).
    """
    import matplotlib.pyplot as plt

    _check_inputs(summary, fit, degree)
    epsilons = sorted(summary["epsilon"].unique())
    fig, axes = plt.subplots(2, 2, figsize=(13, 9.5), constrained_layout=True)
    numbers = []
    for ax, (metric, title) in zip(axes.flat[:3], _PANELS, strict=True):
        numbers += _draw_metric(ax, summary, metric, title, epsilons)
    numbers += _draw_rate(axes.flat[3], summary, fit, epsilons)
    fig.suptitle(
        f"Beyond the papers (not a figure of Paper A): Figure 1's errors at average degree "
        f"$np$ = {degree:g}, sparse Erdős-Rényi graphs, paper protocol\n"
        f"solid: {_METHODS['edge_mle']}; dashed, hollow: {_METHODS['edge_counts']}; "
        "bars: 95% intervals over replicates",
        fontsize=12,
    )
    return fig, pd.concat(numbers, ignore_index=True)
