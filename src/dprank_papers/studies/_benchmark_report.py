"""The benchmark's summaries, findings and printed tables (private part of :mod:`.benchmark`).

Everything here works on the rows, summaries and notes the benchmark's jobs
write; :mod:`dprank_papers.studies.benchmark` re-exports the public names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

#: Metrics of a benchmark row, in table order.
METRICS = ("kendall", "top_k", "l2")
CELL_KEYS = ["dataset", "method", "trust_model", "privacy_unit", "accounting", "eps"]


def method_labels(notes: Sequence[Mapping]) -> dict[str, str]:
    """Method name -> its label (:attr:`dprank.methods.Method.label`), from the jobs' notes.

    Parameters
    ----------
    notes : sequence of mapping
        The notes ``benchmark_method`` writes (keys ``method`` and ``label``); a
        note without a label (or an empty one) gives the method's name.

    Returns
    -------
    dict
        One entry per method, in the order of ``notes``.
    """
    if isinstance(notes, (str, bytes, Mapping)) or not isinstance(notes, Sequence):
        raise TypeError(f"notes must be a sequence of mappings, got {type(notes).__name__}")
    for n in notes:
        if not isinstance(n, Mapping) or "method" not in n:
            raise ValueError(f"notes must hold mappings with a 'method' key, got {n!r}")
    return {n["method"]: n.get("label") or n["method"] for n in notes}


# --------------------------------------------------------------------------- summaries


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error of every metric per ``(dataset, method, accounting, eps)``.

    Returns
    -------
    pandas.DataFrame
        ``CELL_KEYS`` then ``metric, mean, se, reps`` (``se = sd / sqrt(reps)``).
    """
    _checks.columns(rows, "rows", [*CELL_KEYS, "replicate", *METRICS])
    long = rows.melt(id_vars=[*CELL_KEYS, "replicate"], value_vars=list(METRICS), var_name="metric")
    long = long.dropna(subset=["value"])
    g = long.groupby([*CELL_KEYS, "metric"], sort=False)["value"]
    out = g.agg(mean="mean", sd="std", reps="count").reset_index()
    out["se"] = (out["sd"] / np.sqrt(out["reps"])).fillna(0.0)
    return out.drop(columns="sd")[[*CELL_KEYS, "metric", "mean", "se", "reps"]]


def _first_below(eps: np.ndarray, values: np.ndarray, t: float) -> float:
    hit = np.flatnonzero(values <= t)
    return float(eps[hit[0]]) if hit.size else math.nan


def threshold_table(summary: pd.DataFrame, thresholds: Sequence[float], z: float = 1.96):
    """The smallest ``eps`` of the grid at which each method reaches a Kendall distance.

    For each method and accounting, ``eps_t`` is the smallest grid ``eps`` with
    mean Kendall distance ``<= t``; the interval is ``[smallest eps with
    mean - z se <= t, smallest eps with mean + z se <= t]`` (grid resolution;
    ``NaN``: not reached within the grid).

    Returns
    -------
    pandas.DataFrame
        ``dataset, method, trust_model, privacy_unit, accounting, threshold, eps,
        eps_low, eps_high``.
    """
    _checks.columns(summary, "summary", [*CELL_KEYS, "metric", "mean", "se"])
    thresholds = [
        _checks.non_negative(t, "thresholds") for t in _checks.sequence(thresholds, "thresholds")
    ]
    _checks.non_negative(z, "z")
    k = summary[(summary["metric"] == "kendall") & (summary["accounting"] != "none")]
    rows = []
    for keys, g in k.groupby(CELL_KEYS[:5], sort=False):
        g = g.sort_values("eps")
        e, m, s = g["eps"].to_numpy(), g["mean"].to_numpy(), g["se"].to_numpy()
        for t in thresholds:
            rows.append(
                {
                    **dict(zip(CELL_KEYS[:5], keys, strict=True)),
                    "threshold": float(t),
                    "eps": _first_below(e, m, t),
                    "eps_low": _first_below(e, m - z * s, t),
                    "eps_high": _first_below(e, m + z * s, t),
                }
            )
    return pd.DataFrame(rows)


def _fmt(x: float) -> str:
    return "not reached" if not np.isfinite(x) else f"{x:g}"


def _best_first(g: pd.DataFrame, trust_model: str):
    """The row of ``g`` (one threshold) whose method of ``trust_model`` needs the least ``eps``."""
    h = g[g["trust_model"] == trust_model].dropna(subset=["eps"]).sort_values("eps")
    return None if h.empty else h.iloc[0]


def _threshold_clause(thr: float, c, loc, max_eps: float, named) -> str:
    """What the best central (``c``) and local (``loc``) methods need to reach ``thr``."""
    if c is not None and loc is not None:
        return (
            f"to reach a Kendall distance of {thr:g}, the best central method, "
            f"{named(c)}, needs eps = {c['eps']:g} per user and the best local method, "
            f"{named(loc)}, eps = {loc['eps']:g}: local DP needs about "
            f"{loc['eps'] / c['eps']:.2g}x the eps of central DP"
        )
    if c is not None:
        return (
            f"a Kendall distance of {thr:g} is reached by central methods from eps = "
            f"{c['eps']:g} (first: {named(c)}) but by no local method up to eps = "
            f"{max_eps:g}"
        )
    if loc is not None:
        return (
            f"a Kendall distance of {thr:g} is reached by local methods from eps = "
            f"{loc['eps']:g} (first: {named(loc)}) but by no central method up to eps = "
            f"{max_eps:g}"
        )
    return f"no private method reaches a Kendall distance of {thr:g} by eps = {max_eps:g}"


def _finding_tail(dataset: str, summary: pd.DataFrame, max_eps: float, named) -> str:
    """The best method at the largest ``eps`` and the non-private MLE's distance."""
    s = summary[
        (summary["dataset"] == dataset)
        & (summary["metric"] == "kendall")
        & (summary["eps"] == max_eps)
        & (summary["accounting"] == "user")
        & ~summary["method"].str.endswith("_as_published")
    ]
    tail = ""
    if not s.empty:
        b = s.sort_values("mean").iloc[0]
        tail = (
            f" At eps = {max_eps:g} the smallest mean Kendall distance, {b['mean']:.3f} "
            f"(se {b['se']:.3f}), is that of {named(b)}."
        )
    ref = summary[
        (summary["dataset"] == dataset)
        & (summary["metric"] == "kendall")
        & (summary["method"] == "nonprivate_mle")
    ]
    if not ref.empty:
        tail += f" The non-private MLE on the same data has {ref['mean'].iloc[0]:.3f}."
    return tail


def finding(
    dataset: str,
    table: pd.DataFrame,
    summary: pd.DataFrame,
    max_eps: float,
    labels: Mapping[str, str] | None = None,
) -> str:
    """A one-paragraph finding for one data set, generated from its numbers.

    Compares the best central and the best local method (per-user accounting)
    at each threshold: the smallest ``eps`` each needs and their ratio. Algorithm
    3's counts as published (Laplace(L/eps), only 2 eps-DP) are left out.
    ``labels`` (method name -> label, :func:`method_labels`) names the methods as
    the figures do; a method not in it is called by its name.
    """
    _checks.text(dataset, "dataset")
    _checks.columns(
        table, "table", ["dataset", "method", "trust_model", "accounting", "threshold", "eps"]
    )
    _checks.columns(summary, "summary", [*CELL_KEYS, "metric", "mean", "se"])
    _checks.positive(max_eps, "max_eps")
    if labels is not None:
        _checks.mapping(labels, "labels")
    labels = dict(labels or {})

    def named(row) -> str:
        return labels.get(row["method"], row["method"])

    t = table[(table["dataset"] == dataset) & (table["accounting"] == "user")]
    # Algorithm 3's counts as printed are only 2 eps-DP: not a fair "best central method"
    t = t[~t["method"].str.endswith("_as_published")]
    parts = [
        _threshold_clause(thr, _best_first(g, "central"), _best_first(g, "local"), max_eps, named)
        for thr, g in sorted(t.groupby("threshold", sort=True), key=lambda kv: -kv[0])
    ]
    tail = _finding_tail(dataset, summary, max_eps, named)
    text = "; ".join(parts)
    return f"{dataset}: {text[:1].upper()}{text[1:]} (per-user budgets).{tail}"


# --------------------------------------------------------------------------- tables


#: The accounting sentence every figure and table carries.
ACCOUNTING = (
    "Budgets matched per user: central methods spend eps on a user's whole set (edge-DP "
    "methods at eps/L per comparison, group privacy); local methods give each of user l's "
    "S_l comparisons eps/S_l (solid); dashed: local at eps per comparison."
)


#: The threshold and timing tables' headers as printed
TABLE_HEADERS = {
    "dataset": "Data set",
    "method": "Method",
    "trust_model": "Trust model",
    "privacy_unit": "Privacy unit",
    "accounting": "Budget per",
    "status": "Status",
    "fits": "Fits",
    "seconds_per_fit": "Seconds per fit",
    "message": "Note",
}


def threshold_markdown_frame(
    table: pd.DataFrame, labels: Mapping[str, str] | None = None
) -> pd.DataFrame:
    """The threshold table as printed: one row per method, ``eps [low, high]`` per threshold.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`threshold_table` output.
    labels : mapping, optional
        Method name -> label (:func:`method_labels`); a method not in it keeps its name.

    Returns
    -------
    pandas.DataFrame
        Index: data set, method (its label), trust model, budget accounting (the
        headers of :data:`TABLE_HEADERS`); one column ``K <= t`` per threshold.
    """
    _checks.columns(table, "table", [*CELL_KEYS[:5], "threshold", "eps", "eps_low", "eps_high"])
    if labels is not None:
        _checks.mapping(labels, "labels")
    t = table.copy()
    labels = dict(labels or {})
    t["method"] = t["method"].map(lambda m: labels.get(m, m))

    def cell(r):
        if not np.isfinite(r["eps"]):
            return "not reached"
        lo = _fmt(r["eps_low"])
        hi = _fmt(r["eps_high"]) if np.isfinite(r["eps_high"]) else "> grid"
        return f"{r['eps']:g} [{lo}, {hi}]"

    t["value"] = t.apply(cell, axis=1)
    t["column"] = "K <= " + t["threshold"].map(lambda x: f"{x:g}")
    wide = t.pivot_table(
        index=["dataset", "method", "trust_model", "accounting"],
        columns="column",
        values="value",
        aggfunc="first",
        sort=False,
    )
    wide.columns.name = None
    wide.index.names = [TABLE_HEADERS[n] for n in wide.index.names]
    return wide


def timing_frame(notes: pd.DataFrame) -> pd.DataFrame:
    """The timing table as printed: one row per data set and method (its label).

    Parameters
    ----------
    notes : pandas.DataFrame
        The jobs' notes (``benchmark_method``), one row each, with columns
        ``dataset, method, trust_model, privacy_unit, status, fits,
        seconds_per_fit, message`` and optionally ``label``.

    Returns
    -------
    pandas.DataFrame
        Strings; index: data set and method, columns: the other fields under the
        headers of :data:`TABLE_HEADERS` (seconds to 3 significant digits, "–" when
        the method did not run).
    """
    _checks.columns(
        notes,
        "notes",
        [
            "dataset",
            "method",
            "trust_model",
            "privacy_unit",
            "status",
            "fits",
            "seconds_per_fit",
            "message",
        ],
    )
    labels = method_labels(notes.to_dict("records"))
    t = notes.assign(method=notes["method"].map(labels))
    t["seconds_per_fit"] = t["seconds_per_fit"].map(
        lambda x: "–" if x is None or not np.isfinite(float(x)) else f"{float(x):.3g}"
    )
    t["fits"] = t["fits"].map(lambda x: f"{int(x)}")
    t["message"] = t["message"].fillna("").astype(str)
    cols = ["dataset", "method", "trust_model", "privacy_unit", "status", "fits"]
    t = t[[*cols, "seconds_per_fit", "message"]].astype(str)
    return t.rename(columns=TABLE_HEADERS).set_index(["Data set", "Method"])
