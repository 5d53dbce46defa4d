"""Sensitivity of B2's unstated settings: Tables 6, 7, 10 and 11 (issue 16).

Three published results of B2 are not reproduced under the settings the paper
states (docs/fidelity.md): Table 11's Kendall distances (ours about twice the
printed ones), Table 10's classic RR (ours about 10% lower) and the Scenario III
cells of Tables 6-7 outside tolerance, whose budgets the paper does not give.
This module varies what the paper leaves open and reports which settings, if
any, reproduce the printed numbers (target ``sensitivity``, docs/sensitivity.md):

* **Scenario V** (Tables 10, 11): the half-width ``h`` of ``theta* ~ U(-h, h)``,
  the observation probability ``p`` and the ridge constant ``c`` of
  ``lambda = c / (L B(eps))`` (docs/papers/paper-b.md#a7, A9, A1), as a full grid.
* **Scenario III** (Tables 6, 7): the two constants the paper leaves open, the
  common budget ``eps0`` at the anchor ``(m, L) = (10, 100)``, where the three
  schemes coincide (docs/papers/paper-b.md#a6), and ``p``. They are fitted on Table 6 alone, by the
  RMS of ``log(ours / printed)`` over its cells on a grid, refined by the vertex
  of a parabola through the grid minimum and its two neighbours. Table 7 is the
  held-out check, compared cell by cell with the comparison's tolerance
  (:func:`dprank_papers.compare.compare_b2_table`) at the fit and at the default.

Every setting reuses the scenario's seeds (experiment, cell, replicate,
stream), so the default setting reproduces the main study's numbers exactly,
and the settings share their draws where the law allows (common random
numbers: the same ``theta*`` and sizes in every setting of a replicate). The
defaults of the main study do not change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

from ...aggregate import summarise
from ...compare import compare_b2_table
from ...tables import paper_label
from . import cells as _grid_cells
from . import scenario5, scenarios

__all__ = [
    "S3_METRICS",
    "S5_METHODS",
    "S5_METRICS",
    "agreement",
    "budget_curve",
    "check_section",
    "findings",
    "fit_budget",
    "parabola_vertex",
    "scenario3_check",
    "scenario3_grid",
    "scenario5_agreement",
    "scenario5_grid",
    "theta_law",
]

#: metrics of Scenario III (Table 6: l2, Table 7: l_inf)
S3_METRICS = ("l2_over_sqrt_m", "linf")
#: metrics of Scenario V (Table 10: l2, l_inf; Table 11: Kendall)
S5_METRICS = ("l2_over_sqrt_m", "linf", "kendall_tau_K")
#: methods of Scenario V whose published numbers the study checks (NoisyObj's
#: calibration is a separate open question, docs/papers/paper-b.md#a10)
S5_METHODS = ("local_adrr", "local_laplace", "local_classic_rr", "local_count")
_S5_KEYS = ["theta_half", "p", "lambda_c"]


def theta_law(half: float) -> str:
    """The score law of :func:`.scenarios.true_scores` for ``theta* ~ U(-h, h)``.

    ``h = 1`` gives ``"uniform"``, the main study's law, drawn identically.
    """
    half = float(half)
    if not (np.isfinite(half) and half > 0):
        raise ValueError(f"theta half-width must be finite and > 0, got {half}")
    return "uniform" if half == 1.0 else f"uniform:{half:g}"


def _cells(exp: Mapping, model: str, grid: Mapping | None) -> list[dict]:
    merged = {**exp["grid"], **(grid or {}), "model": [model]}
    return _grid_cells({"grid": merged})


def scenario3_grid(
    seed: int,
    experiment: str,
    exp: Mapping,
    model: str,
    p: float,
    eps0: Sequence[float],
    replicates: Sequence[int],
    fit: scenarios.FitSettings,
    grid: Mapping | None = None,
) -> pd.DataFrame:
    """Scenario III's ADRR errors for every ``eps0`` of a grid at one ``p`` and model.

    Parameters
    ----------
    seed, experiment : int, str
        The root seed and the Scenario III experiment's name, whose seeds are reused.
    exp : Mapping
        The experiment's config (``grid``, ``eps``, optional ``theta``).
    model : str
        ``btl`` or ``tm``.
    p : float
        Observation probability.
    eps0 : sequence of float
        Budgets at the anchor (B2 Scenario III, :func:`.scenarios.scheme_epsilon`).
    replicates : sequence of int
    fit : FitSettings
        The weighted fits' ``lambda_c, gtol, max_iter``, as in the main study.
    grid : Mapping, optional
        Replaces some of the experiment's grid keys (``scheme``, ``m``, ``L``).

    Returns
    -------
    pandas.DataFrame
        :func:`dprank_papers.aggregate.summarise` of the tidy rows, keyed by
        ``p, eps0`` and the cell (``model, scheme, m, L``), ``method, metric``.
    """
    replicates = _checked_run(seed, experiment, exp, replicates, grid)
    _checked_fit(fit)
    _checks.text(model, "model")
    _checks.probability(p, "p")
    eps0 = [_checks.positive_finite(e, "eps0") for e in _checks.sequence(eps0, "eps0")]
    frames = []
    for cell in _cells(exp, model, grid):
        for e0 in eps0:
            eps = {**exp["eps"], "eps0": float(e0)}
            chunk = scenarios.Chunk(seed, experiment, cell, p, replicates, eps)
            data = scenarios.simulate_chunk(chunk, exp.get("theta", "uniform"))
            frame = scenarios.estimate_chunk(data, cell, fit, S3_METRICS)
            frame.insert(0, "eps0", float(e0))
            frame.insert(0, "p", float(p))
            frames.append(frame)
    return summarise(pd.concat(frames, ignore_index=True))


def scenario3_check(
    seed: int,
    experiment: str,
    exp: Mapping,
    settings: Sequence[Mapping],
    replicates: Sequence[int],
    fit: scenarios.FitSettings,
    grid: Mapping | None = None,
) -> pd.DataFrame:
    """Scenario III at a few labelled settings (``label, p, eps0``), every model of the grid.

    Returns the summaries of :func:`scenario3_grid` with a ``label`` column first.
    """
    replicates = _checked_run(seed, experiment, exp, replicates, grid)
    _checked_fit(fit)
    if isinstance(settings, (str, bytes, Mapping)) or not isinstance(settings, Sequence):
        raise TypeError(f"settings must be a sequence of settings (dicts), got {settings!r}")
    for s in settings:
        _checks.mapping(s, "settings")
        missing = {"label", "p", "eps0"} - set(s)
        if missing:
            raise ValueError(f"settings: a setting lacks {sorted(missing)}: {s!r}")
    frames = []
    for s in settings:
        for model in exp["grid"]["model"]:
            frame = scenario3_grid(
                seed,
                experiment,
                exp,
                str(model),
                float(s["p"]),
                [float(s["eps0"])],
                replicates,
                fit,
                grid,
            )
            frame.insert(0, "label", str(s["label"]))
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def agreement(comparison: pd.DataFrame) -> dict:
    """Cells compared and within tolerance, and the RMS and largest ``|log(ours / printed)|``.

    The log ratios leave out cells where either mean is 0 (possible at smoke scale).
    """
    _checks.columns(comparison, "comparison", ("verdict", "ours_mean", "published_mean"))
    done = comparison[comparison["verdict"].isin(["within", "outside"])]
    ours = done["ours_mean"].astype(float).to_numpy()
    printed = done["published_mean"].astype(float).to_numpy()
    positive = (ours > 0) & (printed > 0)
    ratio = np.log(ours[positive] / printed[positive])
    return {
        "compared": len(done),
        "within": int((done["verdict"] == "within").sum()),
        "rms_log_ratio": float(np.sqrt(np.mean(ratio**2))) if ratio.size else np.nan,
        "max_abs_log_ratio": float(np.max(np.abs(ratio))) if ratio.size else np.nan,
    }


def parabola_vertex(x: Sequence[float], y: Sequence[float]) -> float:
    """Abscissa of the vertex of the parabola through three points.

    Used to refine a grid minimum: with ``x[1]`` the grid's argmin the vertex
    lies between ``x[0]`` and ``x[2]``; it is clipped to that interval.
    """
    if np.shape(x) != (3,) or np.shape(y) != (3,):
        raise ValueError(
            f"x and y must hold 3 points each, got shapes {np.shape(x)} and {np.shape(y)}"
        )
    _checks.finite(x, "x")
    _checks.finite(y, "y")
    x0, x1, x2 = (float(v) for v in x)
    y0, y1, y2 = (float(v) for v in y)
    den = (x0 - x1) * (x0 - x2) * (x1 - x2)
    a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / den
    b = (x2**2 * (y0 - y1) + x1**2 * (y2 - y0) + x0**2 * (y1 - y2)) / den
    if not a > 0:
        return x1
    return float(np.clip(-b / (2 * a), min(x0, x2), max(x0, x2)))


def budget_curve(
    grid_summary: pd.DataFrame, published: pd.DataFrame, label: str, z: float
) -> pd.DataFrame:
    """Scenario III's agreement with one published table at every ``(p, eps0)`` of its grid.

    Parameters
    ----------
    grid_summary : DataFrame
        :func:`scenario3_grid` output for every ``p`` and model.
    published : DataFrame
        :func:`dprank_papers.tables.read_published_table` of the table to fit.
    label : str
        The table's name, e.g. ``"B2 Table 6"``.
    z : float
        The comparison's tolerance factor.

    Returns
    -------
    pandas.DataFrame
        The curve that :func:`fit_budget` fits: one row per ``(p, eps0)`` with
        :func:`agreement`'s columns.
    """
    _checks.columns(grid_summary, "grid_summary", ("p", "eps0"))
    _checks.frame(published, "published")
    _checks.text(label, "label")
    _checks.positive_finite(z, "z")
    rows = []
    for (p, e0), sub in grid_summary.groupby(["p", "eps0"], sort=True):
        rows.append({"p": p, "eps0": e0, **agreement(compare_b2_table(published, sub, label, z))})
    return pd.DataFrame(rows)


def fit_budget(curve: pd.DataFrame) -> pd.DataFrame:
    """Fit ``(eps0, p)`` of Scenario III to one published table: the minimum of its curve.

    Parameters
    ----------
    curve : DataFrame
        :func:`budget_curve` output.

    Returns
    -------
    pandas.DataFrame
        One row per ``p`` (``eps0_grid``: the grid's argmin of the RMS; ``eps0``: the
        parabola's refinement; ``at_edge``: the argmin is an end of the grid, so the
        refinement is not trusted; ``best``: the ``p`` whose grid minimum is smallest).
    """
    _checks.columns(curve, "curve", ("p", "eps0", "rms_log_ratio", "within", "compared"))
    fits = []
    for p, sub in curve.groupby("p", sort=True):
        sub = sub.sort_values("eps0").reset_index(drop=True)
        i = int(sub["rms_log_ratio"].to_numpy().argmin())
        at_edge = i in (0, len(sub) - 1)
        refined = float(sub.loc[i, "eps0"])
        if not at_edge:
            part = sub.iloc[i - 1 : i + 2]
            refined = parabola_vertex(part["eps0"], part["rms_log_ratio"] ** 2)
        fits.append(
            {
                "p": p,
                "eps0_grid": float(sub.loc[i, "eps0"]),
                "eps0": round(refined, 2),
                "rms_log_ratio_grid": float(sub.loc[i, "rms_log_ratio"]),
                "within_grid": int(sub.loc[i, "within"]),
                "compared": int(sub.loc[i, "compared"]),
                "at_edge": bool(at_edge),
            }
        )
    fit = pd.DataFrame(fits)
    fit["best"] = fit["rms_log_ratio_grid"] == fit["rms_log_ratio_grid"].min()
    return fit


def scenario5_grid(
    seed: int,
    experiment: str,
    exp: Mapping,
    model: str,
    p: float,
    theta_half: Sequence[float],
    lambda_c: Sequence[float],
    replicates: Sequence[int],
    gtol: float,
    max_iter: int,
    methods: Sequence[str] = S5_METHODS,
) -> pd.DataFrame:
    """Scenario V's errors of ``methods`` for every ``(h, c)`` at one ``p`` and model.

    The data of a replicate are simulated once per ``h`` (and shared by every
    ``c``); with ``h = 1`` and the experiment's ``p`` they are the main study's.

    Returns
    -------
    pandas.DataFrame
        :func:`dprank_papers.aggregate.summarise` of the tidy rows, keyed by
        ``theta_half, p, lambda_c, model, method, metric``.
    """
    replicates = _checked_run(seed, experiment, exp, replicates)
    _checks.text(model, "model")
    _checks.probability(p, "p")
    theta_half = [
        _checks.positive_finite(h, "theta_half") for h in _checks.sequence(theta_half, "theta_half")
    ]
    fits = [
        scenarios.FitSettings(_checks.non_negative(c, "lambda_c"), gtol, max_iter)
        for c in _checks.sequence(lambda_c, "lambda_c")
    ]
    _checks.names(methods, "methods", scenario5.METHODS)
    cell = {"model": model}
    frames = []
    for h in theta_half:
        chunk = scenarios.Chunk(seed, experiment, cell, p, replicates, exp["eps"])
        data = scenario5.simulate_chunk(chunk, exp.get("draws"), theta_law(h))
        for fit in fits:
            frame = scenario5.estimate_chunk(
                data,
                cell,
                seed,
                experiment,
                fit,
                S5_METRICS,
                methods,
                float(exp.get("noisy_obj_delta", 1e-6)),
            )
            for k, v in zip(_S5_KEYS, (float(h), float(p), fit.lambda_c), strict=True):
                frame.insert(_S5_KEYS.index(k), k, v)
            frames.append(frame)
    return summarise(pd.concat(frames, ignore_index=True))


def scenario5_agreement(
    summary: pd.DataFrame, published: Mapping[str, pd.DataFrame], z: float
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every Scenario V setting beside the published Tables 10 and 11.

    Parameters
    ----------
    summary : DataFrame
        :func:`scenario5_grid` output for every ``p`` and model.
    published : Mapping
        Table label (``"B2 Table 10"``) -> its published frame; rows of methods
        the study did not run (NoisyObj) are left out.
    z : float
        The comparison's tolerance factor.

    Returns
    -------
    (DataFrame, DataFrame)
        Cell by cell (the comparison's columns plus ``theta_half, p, lambda_c``
        and ``z_score``, the difference over the combined standard error), and
        one row per setting with :func:`agreement`'s columns over all cells.
    """
    _checks.columns(summary, "summary", ("method", *_S5_KEYS))
    _checks.mapping(published, "published")
    _checks.positive_finite(z, "z")
    ran = set(summary["method"])
    cells, settings = [], []
    for key, sub in summary.groupby(_S5_KEYS, sort=True):
        parts = []
        for label, pub in published.items():
            part = compare_b2_table(pub[pub["method"].isin(ran)], sub, label, z)
            parts.append(part)
        both = pd.concat(parts, ignore_index=True)
        both["z_score"] = both["diff"] / (both["tolerance"] / z)
        for k, v in zip(_S5_KEYS, key, strict=True):
            both.insert(_S5_KEYS.index(k), k, v)
        cells.append(both)
        settings.append({**dict(zip(_S5_KEYS, key, strict=True)), **agreement(both)})
    return pd.concat(cells, ignore_index=True), pd.DataFrame(settings)


def _fmt_setting(r) -> str:
    return f"h = {r['theta_half']:g}, p = {r['p']:g}, c = {r['lambda_c']:g}"


def at_setting(frame: pd.DataFrame, setting: Mapping) -> np.ndarray:
    """Rows of ``frame`` at a Scenario V setting ``theta_half, p, lambda_c`` (boolean mask)."""
    mask = np.ones(len(frame), dtype=bool)
    for k in _S5_KEYS:
        mask &= np.isclose(frame[k].astype(float), float(setting[k]))
    return mask


def target_cell(
    cells: pd.DataFrame, table: str, metric: str, method: str, model: str
) -> np.ndarray:
    """Rows of :func:`scenario5_agreement`'s ``cells`` at one printed cell (boolean mask).

    ``table`` as in the comparison's ``figure`` column (``"B2 Table 11"``), ``model``
    ``BTL`` or ``TM`` (either case in ``cells``).
    """
    return (
        (cells["figure"] == table).to_numpy()
        & (cells["metric"] == metric).to_numpy()
        & (cells["method"] == method).to_numpy()
        & (cells["model"].astype(str).str.upper() == model).to_numpy()
    )


def _pairs(rows: pd.DataFrame) -> str:
    """The distinct ``(h, p)`` of some settings, compactly."""
    pairs = sorted({(float(r["theta_half"]), float(r["p"])) for _, r in rows.iterrows()})
    return ", ".join(f"({h:g}, {p:g})" for h, p in pairs)


_TARGETS = (
    ("B2 Table 11", "kendall_tau_K", "local_adrr"),
    ("B2 Table 11", "kendall_tau_K", "local_count"),
    ("B2 Table 10", "l2_over_sqrt_m", "local_classic_rr"),
    ("B2 Table 10", "linf", "local_classic_rr"),
)


#: columns of :func:`scenario5_agreement`'s cells that :func:`findings` reads
_CELL_COLUMNS = (
    "figure model method metric verdict diff tolerance ours_mean ours_se published_mean "
    "published_se"
).split()


def _check_keys(value, name: str, keys) -> None:
    _checks.mapping(value, name)
    missing = [k for k in keys if k not in value]
    if missing:
        raise ValueError(f"{name} lacks {missing}")


def _check_findings_inputs(cells5, settings5, default5, fit3, check3, default3, summary5) -> None:
    """The argument checks of :func:`findings`."""
    _checks.columns(
        cells5,
        "cells5",
        [*_S5_KEYS, *_CELL_COLUMNS],
    )
    _checks.columns(settings5, "settings5", [*_S5_KEYS, "within", "compared", "rms_log_ratio"])
    _check_keys(default5, "default5", _S5_KEYS)
    _checks.columns(
        fit3, "fit3", ["p", "eps0", "at_edge", "rms_log_ratio_grid", "compared", "best"]
    )
    if not fit3["best"].astype(bool).any():
        raise ValueError("fit3 has no row marked best (fit_budget marks one)")
    _checks.columns(
        check3, "check3", ["label", "table", "p", "eps0", "within", "compared", "rms_log_ratio"]
    )
    _check_keys(default3, "default3", ("p", "eps0"))
    if summary5 is not None:
        _checks.columns(summary5, "summary5", [*_S5_KEYS, "model", "method", "metric", "mean"])


def _target_findings(cells5: pd.DataFrame, is_default: np.ndarray) -> list[str]:
    """One sentence per printed target cell (:data:`_TARGETS`, BTL and TM)."""
    out = []
    for table, metric, method in _TARGETS:
        for model in ("BTL", "TM"):
            sel = target_cell(cells5, table, metric, method, model)
            part = cells5[sel]
            if part.empty:
                continue
            d = cells5[sel & is_default]
            near = part.iloc[int(np.argmin(part["diff"].abs().to_numpy()))]
            within = part[part["verdict"] == "within"]
            text = (
                f"{table}, {paper_label(method)}, {paper_label(metric)} ({model}): "
                f"printed {near['published_mean']:.4f}"
            )
            if not d.empty:
                text += f", ours at the default {d.iloc[0]['ours_mean']:.4f}"
            text += (
                f"; closest {near['ours_mean']:.4f} at {_fmt_setting(near)}; within tolerance "
                f"in {len(within)} of {len(part)} settings"
            )
            if len(within):
                text += f", at (h, p) = {_pairs(within)}"
            out.append(text + ".")
    return out


def _all_within(cells: pd.DataFrame) -> pd.DataFrame:
    """The settings at which every one of ``cells`` is within tolerance."""
    ok = cells.groupby(_S5_KEYS)["verdict"].agg(lambda v: bool((v == "within").all()))
    return ok[ok].reset_index()


def _setting_findings(cells5: pd.DataFrame, settings5: pd.DataFrame) -> list[str]:
    """Which settings bring every cell (of Tables 10 and 11, of Table 11) within tolerance."""
    out = []
    full = settings5[settings5["within"] == settings5["compared"]]
    if full.empty:
        ok = _all_within(cells5[cells5["model"].astype(str).str.upper() == "BTL"])
        text = "No setting brings every compared cell of Tables 10 and 11 within tolerance"
        if ok.empty:
            text += ", nor every BTL cell."
        else:
            text += (
                f"; {len(ok)} bring every BTL cell within: "
                + "; ".join(_fmt_setting(r) for _, r in ok.iterrows())
                + "."
            )
        out.append(text)
    else:
        verb = "setting brings" if len(full) == 1 else "settings bring"
        out.append(
            f"{len(full)} {verb} every compared cell of Tables 10 and 11 within "
            "tolerance: " + "; ".join(_fmt_setting(r) for _, r in full.iterrows()) + "."
        )
    t11 = cells5[cells5["figure"] == "B2 Table 11"]
    for models, what in ((("BTL", "TM"), "every cell"), (("BTL",), "both BTL cells")):
        part = t11[t11["model"].astype(str).str.upper().isin(models)]
        if part.empty:
            continue
        ok = _all_within(part)
        out.append(
            f"Settings with {what} of Table 11 within tolerance: {len(ok)}"
            + (": " + "; ".join(_fmt_setting(r) for _, r in ok.iterrows()) if len(ok) else "")
            + "."
        )
    return out


def _default_findings(settings5: pd.DataFrame, default5: Mapping) -> list[str]:
    """The default setting's count of cells within tolerance (none if it was not run)."""
    d = settings5[at_setting(settings5, default5)]
    if d.empty:
        return []
    r = d.iloc[0]
    return [
        f"The default ({_fmt_setting(r)}) has {int(r['within'])} of {int(r['compared'])} "
        f"cells within tolerance (RMS log ratio {r['rms_log_ratio']:.3f})."
    ]


def _convergence_findings(summary5: pd.DataFrame | None) -> list[str]:
    """The share of Scenario V fits that did not converge (none without ``summary5``)."""
    if summary5 is None:
        return []
    conv = summary5[summary5["metric"] == "converged"]
    failed = conv[conv["mean"] < 1]
    if failed.empty:
        return ["Every fit of every setting converged."]
    worst = failed.sort_values("mean", kind="stable").iloc[0]
    groups = ", ".join(
        sorted({f"{str(r['model']).upper()} {r['method']}" for _, r in failed.iterrows()})
    )
    return [
        f"Fits that did not converge: in {len(failed)} of {len(conv)} (setting, model, "
        f"method) groups, all of them {groups}; the worst, "
        f"{1 - worst['mean']:.1%} of {int(worst['reps'])} at {_fmt_setting(worst)} "
        f"({str(worst['model']).upper()} {worst['method']}). The TM objective with "
        "debiased or Laplace responses can be unbounded below (a pair whose released "
        "wins exceed its comparisons has negative curvature), and such fits dominate "
        "the means of their setting."
    ]


def _halved_k_findings(cells5: pd.DataFrame, is_default: np.ndarray) -> list[str]:
    """Table 11's K at the default read with the other normalisation (halved)."""
    kd = cells5[is_default & (cells5["metric"] == "kendall_tau_K").to_numpy()]
    if kd.empty:
        return []
    half = kd["ours_mean"] / 2  # its se halves too; the tolerance's z is the comparison's
    z = kd["tolerance"] / np.hypot(kd["ours_se"], kd["published_se"])
    tol = z * np.hypot(kd["ours_se"] / 2, kd["published_se"])
    inside = (half - kd["published_mean"]).abs() <= tol
    parts = "; ".join(
        f"{paper_label(r['method'])} {str(r['model']).upper()} {h:.4f} "
        f"(printed {r['published_mean']:.4f})"
        for (_, r), h in zip(kd.iterrows(), half, strict=True)
    )
    return [
        "Reading Table 11's K as normalised by m (m - 1) instead of m (m - 1) / 2 halves "
        f"ours at the default: {parts}; {int(inside.sum())} of {len(kd)} within tolerance."
    ]


def _scenario3_findings(fit3: pd.DataFrame, check3: pd.DataFrame) -> list[str]:
    """Scenario III's fitted budget per ``p`` and the agreement at each checked setting."""
    best = fit3[fit3["best"]].iloc[0]
    per_p = "; ".join(
        f"p = {r['p']:g}: eps0 = {r['eps0']:g}"
        + (" (at the grid's edge)" if r["at_edge"] else "")
        + f", RMS {r['rms_log_ratio_grid']:.3f}"
        for _, r in fit3.iterrows()
    )
    out = [
        f"Scenario III, fitted on Table 6 alone ({int(best['compared'])} cells; RMS of "
        f"log(ours / printed) at the grid minimum): {per_p}. Best: p = {best['p']:g}, "
        f"eps0 = {best['eps0']:g}."
    ]
    for label, sub in check3.groupby("label", sort=False):
        parts = [
            f"{r['table']} {int(r['within'])}/{int(r['compared'])} within (RMS log ratio "
            f"{r['rms_log_ratio']:.3f})"
            for _, r in sub.iterrows()
        ]
        r0 = sub.iloc[0]
        reps = f", {int(r0['reps'])} replicates" if "reps" in sub else ""
        out.append(
            f"At {label} (p = {r0['p']:g}, eps0 = {r0['eps0']:g}{reps}): " + "; ".join(parts) + "."
        )
    return out


def findings(
    cells5: pd.DataFrame,
    settings5: pd.DataFrame,
    default5: Mapping,
    fit3: pd.DataFrame,
    check3: pd.DataFrame,
    default3: Mapping,
    summary5: pd.DataFrame | None = None,
) -> list[str]:
    """The study's findings in words, every number from the results.

    Parameters
    ----------
    cells5, settings5 : DataFrame
        :func:`scenario5_agreement` output.
    default5 : Mapping
        The main study's Scenario V setting (``theta_half, p, lambda_c``).
    fit3 : DataFrame
        :func:`fit_budget` output on the fitted table.
    check3 : DataFrame
        One row per ``(label, table)``: ``label, table, p, eps0`` and
        :func:`agreement`'s columns.
    default3 : Mapping
        The main study's Scenario III setting (``p, eps0``).
    summary5 : DataFrame, optional
        :func:`scenario5_grid` output: its ``converged`` rows give the share of
        fits that did not converge.
    """
    _check_findings_inputs(cells5, settings5, default5, fit3, check3, default3, summary5)
    is_default = at_setting(cells5, default5)
    return [
        f"Scenario V: {len(settings5)} settings (the half-width h of theta* ~ U(-h, h), p, and "
        "the constant c of lambda = c / (L B(eps))), each compared cell by cell with Table 10 "
        "(ADRR, Laplace, classic RR) and Table 11 (ADRR, count), with the comparison's "
        "tolerance. Settings are written (h, p, c).",
        *_target_findings(cells5, is_default),
        *_setting_findings(cells5, settings5),
        *_default_findings(settings5, default5),
        *_convergence_findings(summary5),
        *_halved_k_findings(cells5, is_default),
        *_scenario3_findings(fit3, check3),
        f"The main study keeps its defaults (Scenario III p = {default3['p']:g}, eps0 = "
        f"{default3['eps0']:g}; Scenario V h = {default5['theta_half']:g}, p = {default5['p']:g}, "
        f"c = {default5['lambda_c']:g}).",
    ]


def check_section(section: Mapping, paper_b2: Mapping) -> list[str]:
    """Problems of the ``sensitivity`` config section that the schema cannot see."""
    _checks.mapping(section, "section")
    if paper_b2 is not None:
        _checks.mapping(paper_b2, "paper_b2")
    problems = []
    experiments = (paper_b2 or {}).get("experiments", {})
    # the declared paper_b2 tables (workflow/papers/paper_b2.yaml); unchecked where not given
    tables = (paper_b2 or {}).get("tables")
    for part, kind in (("scenario3", "adrr"), ("scenario5", "scenario5")):
        sub = section.get(part) or {}
        name = sub.get("experiment")
        exp = experiments.get(name)
        if exp is None:
            problems.append(
                f"sensitivity.{part}.experiment: {name!r} is not an experiment of paper_b2 "
                f"(defined: {sorted(experiments)})"
            )
            continue
        if str(exp.get("kind", "adrr")) != kind:
            problems.append(f"sensitivity.{part}.experiment: {name!r} is not of kind {kind}")
        if part == "scenario3" and "eps0" not in exp.get("eps", {}):
            problems.append(
                f"sensitivity.scenario3.experiment: {name!r} has no privacy schemes (eps.eps0)"
            )
        for k in sub.get("grid") or {}:
            if k not in ("scheme", "m", "L"):
                problems.append(
                    f"sensitivity.{part}.grid.{k}: only scheme, m and L can be replaced"
                )
        if part == "scenario5":
            defaults = {
                "theta_half": 1.0,
                "p": float(exp.get("p", 0.5)),
                "lambda_c": float(paper_b2.get("lambda_c", 1.0)),
            }
            for k, v in defaults.items():
                if not any(np.isclose(float(x), v) for x in sub.get(k) or []):
                    problems.append(
                        f"sensitivity.scenario5.{k}: must include the main study's value {v:g} "
                        "(the default setting)"
                    )
        for t in sub.get("tables") or [] if tables is not None else []:
            if t not in tables or not tables[t].get("published"):
                problems.append(
                    f"sensitivity.{part}.tables: {t!r} is not a paper_b2 table with published "
                    "numbers"
                )
    return problems


def _checked_run(seed, experiment, exp, replicates, grid=None) -> list[int]:
    """The arguments every run of the study takes, checked; the replicates as a list."""
    _checks.count(seed, "seed")
    _checks.text(experiment, "experiment")
    _checks.mapping(exp, "exp")
    replicates = _checks.indices(replicates)
    if grid is not None:
        _checks.mapping(grid, "grid")
    return replicates


def _checked_fit(fit) -> None:
    """Scenario III's settings of its fits, checked (Scenario V makes its own, one per ``c``)."""
    _checks.instance(fit, "fit", scenarios.FitSettings, "a FitSettings (lambda_c, gtol, max_iter)")
