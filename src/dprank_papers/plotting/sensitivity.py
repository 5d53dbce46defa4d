"""The figure of the sensitivity study (:mod:`dprank_papers.studies.paper_b2.sensitivity`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

from .style import COLORS, MARKERS

__all__ = ["plot_sensitivity"]

#: Scenario V cells the study is about: (table, metric, method, label)
_TARGETS = (
    ("B2 Table 11", "kendall_tau_K", "local_adrr", "Table 11 ADRR K"),
    ("B2 Table 11", "kendall_tau_K", "local_count", "Table 11 count K"),
    ("B2 Table 10", "l2_over_sqrt_m", "local_classic_rr", "Table 10 classic RR $\\ell_2$"),
    ("B2 Table 10", "linf", "local_classic_rr", "Table 10 classic RR $\\ell_\\infty$"),
)
#: the Scenario V panels: the varied setting, its axis label, log scale
_VARIED = (
    ("theta_half", "half-width h of $\\theta^* \\sim U(-h, h)$", False),
    ("p", "observation probability p", False),
    ("lambda_c", "ridge constant c of $\\lambda = c / (L B(\\varepsilon))$", True),
)


def _check_inputs(
    curve: pd.DataFrame, fit: pd.DataFrame, cells: pd.DataFrame, default5: dict
) -> None:
    """The argument checks of :func:`plot_sensitivity`."""
    _checks.columns(curve, "curve", ("p", "eps0", "rms_log_ratio"))
    _checks.columns(fit, "fit", ("p", "eps0", "best"))
    needed = ("figure", "metric", "method", "model", "ours_mean", "ours_se", "published_mean")
    _checks.columns(cells, "cells", (*needed, *(k for k, _, _ in _VARIED)))
    _checks.mapping(default5, "default5", [k for k, _, _ in _VARIED])
    for k, _, _ in _VARIED:
        _checks.real(default5[k], f"default5[{k!r}]")
    fitted = fit["p"].to_numpy(float)
    unfitted = sorted(p for p in set(curve["p"]) if not np.isclose(fitted, float(p)).any())
    if unfitted:
        raise ValueError(f"fit has no row of the p value(s) {unfitted} of curve")


def _draw_scenario3(ax, curve: pd.DataFrame, fit: pd.DataFrame) -> list[dict]:
    """Scenario III's panel: the RMS log ratio against eps0 per p, the fitted eps0 dotted."""
    numbers = []
    for i, (p, part) in enumerate(curve.groupby("p", sort=True)):
        part = part.sort_values("eps0")
        ax.plot(
            part["eps0"],
            part["rms_log_ratio"],
            color=COLORS[i % len(COLORS)],
            marker=MARKERS[i % len(MARKERS)],
            label=f"p = {p:g}",
        )
        numbers += [
            {"panel": "scenario3", "series": f"p = {p:g}", "x": x, "y": y}
            for x, y in zip(part["eps0"], part["rms_log_ratio"], strict=True)
        ]
        row = fit[np.isclose(fit["p"], p)].iloc[0]
        if bool(row["best"]):
            ax.axvline(
                row["eps0"], color="0.4", linestyle=":", label=f"fit: eps0 = {row['eps0']:g}"
            )
    ax.set_yscale("log")
    ax.set_xlabel("$\\varepsilon_0$, every scheme's budget at (m, L) = (10, 100)")
    ax.set_ylabel("RMS of log(ours / printed), fitted table")
    ax.set_title("Scenario III (Tables 6-7): the budget fitted on Table 6")
    ax.legend(fontsize=9)
    return numbers


def _draw_scenario5(
    ax, cells: pd.DataFrame, default5: dict, key: str, xlabel: str, log_x: bool
) -> list[dict]:
    """One Scenario V panel: the target cells' ratio to the printed value against ``key``,
    the other settings held at ``default5``."""
    numbers = []
    fixed = np.ones(len(cells), dtype=bool)
    for k in ("theta_half", "p", "lambda_c"):
        if k != key:
            fixed &= np.isclose(cells[k].astype(float), float(default5[k]))
    for t, (table, metric, method, label) in enumerate(_TARGETS):
        for j, model in enumerate(("BTL", "TM")):
            sel = (
                fixed
                & (cells["figure"] == table).to_numpy()
                & (cells["metric"] == metric).to_numpy()
                & (cells["method"] == method).to_numpy()
                & (cells["model"].astype(str).str.upper() == model).to_numpy()
            )
            part = cells[sel].sort_values(key)
            if part.empty:
                continue
            ratio = part["ours_mean"] / part["published_mean"]
            err = 1.96 * part["ours_se"] / part["published_mean"]
            ax.errorbar(
                part[key],
                ratio,
                yerr=err,
                color=COLORS[t % len(COLORS)],  # colour: the cell; marker and dash: the model
                marker=MARKERS[j],
                linestyle="-" if model == "BTL" else "--",
                capsize=2,
                label=f"{label} ({model})",
            )
            numbers += [
                {"panel": key, "series": f"{label} ({model})", "x": x, "y": y, "err": e}
                for x, y, e in zip(part[key], ratio, err, strict=True)
            ]
    ax.axhline(1.0, color="black", linewidth=0.8)
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("ours / printed (bars: 95% of ours)")
    others = (
        ", ".join(f"{k} = {default5[k]:g}" for k in ("theta_half", "p", "lambda_c") if k != key)
        .replace("theta_half", "h")
        .replace("lambda_c", "c")
    )
    ax.set_title(f"Scenario V (Tables 10-11), {others}")
    return numbers


def plot_sensitivity(curve: pd.DataFrame, fit: pd.DataFrame, cells: pd.DataFrame, default5: dict):
    """Four panels: Scenario III's fit, and Scenario V's target cells against each setting.

    Parameters
    ----------
    curve, fit : DataFrame
        :func:`dprank_papers.studies.paper_b2.sensitivity.budget_curve` and
        :func:`~dprank_papers.studies.paper_b2.sensitivity.fit_budget` output.
    cells : DataFrame
        :func:`dprank_papers.studies.paper_b2.sensitivity.scenario5_agreement`'s cells.
    default5 : dict
        The main study's Scenario V setting (``theta_half, p, lambda_c``): the
        settings held fixed while one varies.

    Returns
    -------
    (matplotlib.figure.Figure, pandas.DataFrame)
        The figure and the numbers it plots (one row per point).
    """
    import matplotlib.pyplot as plt

    _check_inputs(curve, fit, cells, default5)
    fig, axes = plt.subplots(2, 2, figsize=(13, 9.5), constrained_layout=True)
    numbers = _draw_scenario3(axes.flat[0], curve, fit)
    for ax, (key, xlabel, log_x) in zip(axes.flat[1:], _VARIED, strict=True):
        numbers += _draw_scenario5(ax, cells, default5, key, xlabel, log_x)
    # one legend for the three Scenario V panels, under them (inside a panel it covers data)
    handles, texts = axes.flat[1].get_legend_handles_labels()
    fig.legend(handles, texts, loc="outside lower center", ncols=4, fontsize=9, frameon=False)
    fig.suptitle(
        "Sensitivity of B2's unstated settings (not a figure of the paper; docs/sensitivity.md)"
    )
    return fig, pd.DataFrame(numbers)
