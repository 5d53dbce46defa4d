"""Published versus reproduced numbers, with tolerances derived from the data.

Paper A's edge-DP figures average over data randomness only, with one theta
draw per run (docs/papers/paper-a.md#s0, items 1 and 4). Two faithful runs
therefore differ by more than their standard errors: the authors' own
Experiments 2 and 3 overlap in 32 settings and differ there by up to 0.033
(log l2), 0.107 (log l_inf) and 0.022 (Hamming). The tolerance of a cell is

    spread(metric) + z * sqrt(se_ours^2 + se_published^2),

with ``spread`` that largest rerun difference and ``z = 4`` by default.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

__all__ = [
    "B2_MODELS",
    "EDGE_EXPERIMENTS",
    "EDGE_METHODS",
    "INDIVIDUAL_EXPERIMENTS",
    "INDIVIDUAL_METHODS",
    "PAPER_B_METHODS",
    "compare_b2_table",
    "compare_car",
    "compare_edge",
    "compare_individual",
    "compare_real",
    "rerun_spread",
    "summary_lines",
]

#: figure of the digitised individual-DP numbers -> experiment name in config.yaml
INDIVIDUAL_EXPERIMENTS = {"Figure 5": "exp5", "Figure 6": "exp6", "Figure 7": "exp7"}

#: published experiment label -> experiment name in config.yaml
EDGE_EXPERIMENTS = {
    "exp1_vs_n": "exp1",
    "exp2_vs_p": "exp2",
    "exp3_vs_epsilon": "exp3",
    "exp4_vs_n": "exp4_n",
    "exp4_vs_epsilon": "exp4_eps",
    "exp4_vs_n_nonprivate": "exp4_nonprivate",
}
#: published method label of the edge-DP files -> registry name (dprank.methods)
EDGE_METHODS = {
    "perturbed_mle": "edge_mle",
    "noisy_counting": "edge_counts",
    "one_shot_qiao2021": "edge_one_shot",
}
#: published method label of the individual-DP files (Figures 5-8) -> registry name; the
#: authors' counts are calibrated as published, Laplace(L / eps)
INDIVIDUAL_METHODS = {
    "perturbed_mle": "individual_mle",
    "noisy_counting": "individual_counts_as_published",
}
#: method name of the published B2 tables -> registry name (dprank.methods)
PAPER_B_METHODS = {
    "ADRR": "local_adrr",
    "NoisyObj": "edge_noisy_obj",
    "Laplace": "local_laplace",
    "ClassicRR": "local_classic_rr",
    "Count": "local_count",
}


def _registry_names(published: pd.DataFrame, names: dict[str, str], what: str) -> pd.DataFrame:
    """``published`` with its ``method`` column spelled by registry name (``names``)."""
    out = published.copy()
    out["method"] = out["method"].map(lambda m: names.get(m, m))
    unknown = sorted(set(out["method"]) - set(names.values()))
    if unknown:
        raise ValueError(f"{what} has unknown method labels {unknown}")
    return out


def rerun_spread(overlap: pd.DataFrame) -> dict[str, float]:
    """Largest |Exp 2 - Exp 3| difference per metric in the authors' overlapping settings."""
    _checks.columns(overlap, "overlap", ("metric", "diff"))
    return (
        overlap.assign(absdiff=overlap["diff"].abs()).groupby("metric")["absdiff"].max().to_dict()
    )


def _edge_row(r, ours, spread, z: float) -> dict:
    """One published cell of :func:`compare_edge` beside our mean."""
    o = ours[
        (ours["experiment"] == r["experiment_name"])
        & (ours["method"] == r["method_name"])
        & (ours["metric"] == r["metric"])
        & (ours["n"] == r["n"])
        & np.isclose(ours["p"], r["p"])
        & np.isclose(ours["epsilon"], r["epsilon"], rtol=1e-5)
    ]
    if len(o) > 1:
        raise ValueError(f"several of our rows match published cell {dict(r)}")
    s = spread[r["metric"]]
    row = {
        "figure": r["figure"],
        "panel": r["panel"],
        "experiment": r["experiment_name"],
        "n": r["n"],
        "p": r["p"],
        "epsilon": r["epsilon"],
        "method": r["method_name"],
        "metric": r["metric"],
        "in_paper_figure": bool(r["in_paper_figure"]),
        "published_mean": r["mean"],
        "published_se": r["se"],
        "published_reps": r["reps"],
        "rerun_spread": s,
    }
    if len(o) == 0:
        row.update(
            ours_mean=np.nan,
            ours_se=np.nan,
            ours_reps=0,
            diff=np.nan,
            tolerance=np.nan,
            verdict="not run",
        )
    else:
        o = o.iloc[0]
        tol = s + z * float(np.hypot(o["se"], r["se"]))
        diff = float(o["mean"] - r["mean"])
        row.update(
            ours_mean=o["mean"],
            ours_se=o["se"],
            ours_reps=int(o["reps"]),
            diff=diff,
            tolerance=tol,
            verdict="within" if abs(diff) <= tol else "outside",
        )
    row["tolerance_rule"] = f"rerun spread of {r['metric']} + {z:g} x combined se"
    return row


def compare_edge(
    published: pd.DataFrame, ours: pd.DataFrame, overlap: pd.DataFrame, z: float = 4.0
) -> pd.DataFrame:
    """Set every published edge-DP cell beside our mean.

    Parameters
    ----------
    published : DataFrame
        Rows of ``edge_dp_fig1-3_summary.csv`` and ``edge_dp_fig4_summary.csv``.
    ours : DataFrame
        Our aggregated summaries (columns experiment, n, p, epsilon, method,
        metric, mean, se, reps), one protocol.
    overlap : DataFrame
        ``edge_dp_exp2_vs_exp3_overlap.csv``.
    z : float
        Multiple of the combined standard error in the tolerance.

    Returns
    -------
    DataFrame
        One row per published cell; ``verdict`` is ``within``, ``outside`` or
        ``not run`` (no matching cell in our configuration).
    """
    _checks.columns(
        published,
        "published",
        (
            "experiment",
            "figure",
            "panel",
            "n",
            "p",
            "epsilon",
            "method",
            "metric",
            "mean",
            "se",
            "reps",
            "in_paper_figure",
        ),
    )
    _checks.columns(
        ours, "ours", ("experiment", "n", "p", "epsilon", "method", "metric", "mean", "se", "reps")
    )
    _checks.columns(overlap, "overlap", ("metric", "diff"))
    _checks.non_negative(z, "z")
    spread = rerun_spread(overlap)
    pub = published.copy()
    pub["experiment_name"] = pub["experiment"].map(EDGE_EXPERIMENTS)
    pub["method_name"] = pub["method"].map(EDGE_METHODS)
    if pub["experiment_name"].isna().any() or pub["method_name"].isna().any():
        raise ValueError("published table has unknown experiment or method labels")
    rows = [_edge_row(r, ours, spread, z) for _, r in pub.iterrows()]
    return pd.DataFrame(rows)


def _verdict(ours, published_mean: float, tolerance) -> dict:
    """Our columns of a comparison row; ``tolerance(ours)`` gives the cell's tolerance."""
    if ours is None:
        return {
            "ours_mean": np.nan,
            "ours_se": np.nan,
            "ours_reps": 0,
            "diff": np.nan,
            "tolerance": np.nan,
            "verdict": "not run",
        }
    tol = float(tolerance(ours))
    diff = float(ours["mean"] - published_mean)
    return {
        "ours_mean": ours["mean"],
        "ours_se": ours["se"],
        "ours_reps": int(ours["reps"]),
        "diff": diff,
        "tolerance": tol,
        "verdict": "within" if abs(diff) <= tol else "outside",
    }


def _digitised_tolerance(z: float, published_reps: int, residual: float):
    """``z sd_ours sqrt(1/reps_ours + 1/published_reps) + residual``, as a function of our row."""
    return lambda o: z * float(o["sd"]) * np.sqrt(1.0 / o["reps"] + 1.0 / published_reps) + residual


#: The parameter each individual-DP experiment holds fixed.
_FIXED = {"exp5": {"m": 1000}, "exp6": {"n": 16}, "exp7": {"n": 16}}


def _our_row(ours, experiment, n, m, eps, method, metric):
    """Our summary row of one cell, or None (ValueError if several match)."""
    o = ours[
        (ours["experiment"] == experiment)
        & (ours["method"] == method)
        & (ours["metric"] == metric)
        & (ours["n"] == n)
        & (ours["m"] == m)
        & np.isclose(ours["epsilon"], eps)
    ]
    if len(o) > 1:
        raise ValueError(f"several of our rows match {experiment} n={n} m={m} eps={eps}")
    return None if o.empty else o.iloc[0]


def _digitised_row(r, ours, z: float, published_reps: int) -> dict:
    """One digitised figure point of :func:`compare_individual` beside our mean."""
    experiment = INDIVIDUAL_EXPERIMENTS[r["figure"]]
    cell = dict(_FIXED[experiment])
    for var, value in ((r["x_var"], r["x"]), (r["series_var"], r["series"])):
        cell[{"epsilon": "eps"}.get(var, var)] = float(value)
    o = _our_row(ours, experiment, cell["n"], cell["m"], cell["eps"], r["method"], r["metric"])
    where = {
        "experiment": experiment,
        "n": int(cell["n"]),
        "m": int(cell["m"]),
        "epsilon": cell["eps"],
    }
    return _digitised_point(r, where, o, z, published_reps)


def _digitised_point(r, where: dict, o, z: float, published_reps: int) -> dict:
    """A digitised point ``r`` at the cell ``where`` beside our summary row ``o`` (or None)."""
    row = {
        "figure": r["figure"],
        "panel": r["panel"],
        "source": "digitised figure",
        **where,
        "method": r["method"],
        "metric": r["metric"],
        "in_paper_figure": True,
        "published_mean": r["y_digitized"],
        "published_se": np.nan,
    }
    tolerance = _digitised_tolerance(z, published_reps, float(r["axis_fit_residual"]))
    row.update(_verdict(o, r["y_digitized"], tolerance))
    row["tolerance_rule"] = (
        f"{z:g} x sd_ours x sqrt(1/reps + 1/{published_reps}) + digitisation residual"
    )
    return row


def _printed_row(r, ours, z: float) -> dict:
    """One row of the printed Figure 7 rerun of :func:`compare_individual` beside our mean."""
    o = _our_row(
        ours, "exp7", int(r["n"]), int(r["m"]), float(r["epsilon"]), r["method"], r["metric"]
    )
    row = {
        "figure": "Figure 7 (printed rerun)",
        "panel": r["panel"],
        "source": "printed table of a rerun",
        "experiment": "exp7",
        "n": int(r["n"]),
        "m": int(r["m"]),
        "epsilon": float(r["epsilon"]),
        "method": r["method"],
        "metric": r["metric"],
        "in_paper_figure": False,
        "published_mean": r["mean"],
        "published_se": r["se"],
    }
    row.update(_verdict(o, r["mean"], lambda o, se=r["se"]: z * float(np.hypot(o["se"], se))))
    row["tolerance_rule"] = f"{z:g} x combined se"
    return row


def compare_individual(
    digitized: pd.DataFrame,
    printed: pd.DataFrame,
    ours: pd.DataFrame,
    z: float = 4.0,
    published_reps: int = 200,
) -> pd.DataFrame:
    """Set the published individual-DP numbers (Figures 5-7) beside our means.

    Only figures are published for these experiments: the numbers are
    digitised from the authors' vector PDFs (``digitized``), and for Figure 7
    also printed by an earlier notebook version for a rerun of the same grid
    (``printed``, with its own standard errors). Each figure point is a mean of
    ``published_reps`` fresh replicates, so its Monte Carlo error is estimated
    by our replicate sd; the tolerance is

        z * sd_ours * sqrt(1/reps_ours + 1/published_reps) + digitisation residual

    (``z * sqrt(se_ours^2 + se_printed^2)`` for the printed table).

    Parameters
    ----------
    digitized : DataFrame
        Rows of ``digitized_paper_figures.csv`` for Figures 5-7.
    printed : DataFrame
        ``individual_dp_exp7_printed_rerun.csv``.
    ours : DataFrame
        Our aggregated summaries (experiment, n, m, epsilon, method, metric,
        mean, sd, se, reps), one protocol.
    """
    _checks.columns(
        digitized,
        "digitized",
        (
            *("figure", "panel", "x_var", "x", "series_var", "series", "method", "metric"),
            *("y_digitized", "axis_fit_residual"),
        ),
    )
    _checks.columns(
        printed, "printed", ("panel", "n", "m", "epsilon", "method", "metric", "mean", "se")
    )
    _checks.columns(
        ours, "ours", ("experiment", "n", "m", "epsilon", "method", "metric", "mean", "sd", "se")
    )
    _checks.non_negative(z, "z")
    _checks.count(published_reps, "published_reps", 1)
    digitized = _registry_names(digitized, INDIVIDUAL_METHODS, "digitized")
    printed = _registry_names(printed, INDIVIDUAL_METHODS, "printed")
    rows = [_digitised_row(r, ours, z, published_reps) for _, r in digitized.iterrows()]
    rows += [_printed_row(r, ours, z) for _, r in printed.iterrows()]
    return pd.DataFrame(rows)


#: Figure 8 panel label -> data set
REAL_PANELS = {"a (CEMS)": "cems", "b (immig)": "immig"}


def compare_real(
    digitized: pd.DataFrame, ours: pd.DataFrame, z: float = 4.0, published_reps: int = 1000
) -> pd.DataFrame:
    """Set the digitised Figure 8 points beside our means (tolerance as in
    :func:`compare_individual`, with the authors' 1000 releases per epsilon)."""
    _checks.columns(
        digitized,
        "digitized",
        ("figure", "panel", "x", "method", "metric", "y_digitized", "axis_fit_residual"),
    )
    _checks.columns(ours, "ours", ("dataset", "method", "metric", "epsilon", "mean", "sd", "se"))
    _checks.non_negative(z, "z")
    _checks.count(published_reps, "published_reps", 1)
    digitized = _registry_names(digitized, INDIVIDUAL_METHODS, "digitized")
    rows = []
    for _, r in digitized.iterrows():
        dataset = REAL_PANELS[r["panel"]]
        o = ours[
            (ours["dataset"] == dataset)
            & (ours["method"] == r["method"])
            & (ours["metric"] == r["metric"])
            & np.isclose(ours["epsilon"], float(r["x"]))
        ]
        where = {"experiment": dataset, "epsilon": float(r["x"])}
        o = None if o.empty else o.iloc[0]
        rows.append(_digitised_point(r, where, o, z, published_reps))
    return pd.DataFrame(rows)


#: model labels of the published B2 tables -> our model name (None: no model key)
B2_MODELS = {"btl": "btl", "tm": "tm", "btl_mixed_effects": None, "btl_or_tm_random": None}


def _published_se(r: pd.Series, published_reps: int) -> tuple[float, str]:
    """Standard error of a published mean and how it was derived (docs/papers/paper-b.md#a31)."""
    kind = str(r.get("se_kind", "sd_over_replicates"))
    if kind == "se_of_mean":
        return float(r["dispersion"]), "published se"
    if kind == "none":  # a proportion of published_reps Bernoulli outcomes
        p = float(r["mean"])
        return float(np.sqrt(p * (1 - p) / published_reps)), f"binomial se at {published_reps}"
    return float(r["dispersion"]) / np.sqrt(published_reps), (
        f"published sd / sqrt({published_reps})"
    )


def compare_b2_table(
    published: pd.DataFrame,
    ours: pd.DataFrame,
    figure: str,
    z: float = 4.0,
    published_reps: int = 200,
) -> pd.DataFrame:
    """Set a published B2 simulation table beside ours, cell by cell.

    Both sides are means of independent replicates, so the tolerance is
    ``z * sqrt(se_ours^2 + se_published^2)``, where ``se_published`` is the
    printed sd over ``sqrt(published_reps)`` (Tables 3, 5-9), the printed se
    (Tables 10, 11) or the binomial se of a printed proportion (Table 4).

    Parameters
    ----------
    published : DataFrame
        :func:`dprank_papers.tables.read_published_table` output (``model``, ``metric``,
        ``m``, ``L``, ``method``, ``mean``, ``dispersion``, ``se_kind``).
    ours : DataFrame
        Our summary (``model`` in lower case where the study has one, grid keys,
        ``method``, ``metric``, ``mean``, ``se``, ``reps``).
    figure : str
        Label of the table, e.g. ``"B2 Table 5"``.
    """
    _checks.columns(
        published,
        "published",
        ("model", "scheme", "Delta", "metric", "m", "L", "method", "mean", "dispersion"),
    )
    _checks.columns(ours, "ours", ("metric", "method", "mean", "se", "reps"))
    _checks.text(figure, "figure")
    _checks.non_negative(z, "z")
    _checks.count(published_reps, "published_reps", 1)
    rows = []
    for _, r in published.iterrows():
        match = (ours["metric"] == r["metric"]) & (ours["method"] == r["method"])
        model = B2_MODELS[str(r["model"]).lower()]
        if model is not None:
            match &= ours["model"] == model
        for key in ("m", "L"):
            if pd.notna(r[key]):  # Scenario V draws m and L per replicate: no key
                match &= ours[key] == int(r[key])
        scheme = str(r["scheme"])
        if scheme.startswith("scheme"):  # Scenario III: "scheme2" -> our grid key 2
            match &= ours["scheme"] == int(scheme.removeprefix("scheme"))
        if pd.notna(r["Delta"]):  # Scenario IV: the gap of the spaced scores
            match &= np.isclose(ours["delta"], float(r["Delta"]))
        o = ours[match]
        if len(o) > 1:
            raise ValueError(f"{figure}: {len(o)} of our rows match published row {dict(r)}")
        row = {
            "figure": figure,
            "model": r["model"],
            "scheme": r["scheme"],
            "Delta": r["Delta"],
            "metric": r["metric"],
            "m": r["m"],
            "L": r["L"],
            "method": r["method"],
            "in_paper_figure": True,
            "published_mean": r["mean"],
        }
        if pd.isna(r["mean"]):  # a cell the source lacks (Table 8 m = 10, L = 100, BTL; Table 10)
            row.update(_verdict(None, np.nan, None), published_se=np.nan, verdict="not in source")
            rows.append(row)
            continue
        se_pub, how = _published_se(r, published_reps)
        row["published_se"] = se_pub
        row.update(
            _verdict(
                None if o.empty else o.iloc[0],
                r["mean"],
                lambda o, se_pub=se_pub: z * float(np.hypot(o["se"], se_pub)),
            )
        )
        row["tolerance_rule"] = f"{z:g} x combined se ({how})"
        rows.append(row)
    return pd.DataFrame(rows)


def _car_table2_row(r, o, z: float) -> dict:
    """One row of B2 Table 2 of :func:`compare_car` beside ours (``o`` by model and method)."""
    key = (str(r["model"]).lower(), r["method"])
    row = {
        "figure": "B2 Table 2",
        "model": r["model"],
        "metric": r["metric"],
        "method": r["method"],
        "in_paper_figure": True,
        "published_mean": r["mean"],
    }
    mine = o.loc[key] if key in o.index else None
    if r["metric"].startswith("kendall"):
        value, se = (np.nan, np.nan) if mine is None else (mine["mean"], mine["se"])
        tol, rule = z * float(np.hypot(se, r["dispersion"])), f"{z:g} x combined se"
    elif r["metric"] == "paired_t_statistic_vs_ADRR":
        value, se = (np.nan, np.nan) if mine is None else (mine["t"], np.nan)
        tol, rule = z * np.sqrt(2.0), f"{z:g} x sqrt(2) (sd of a t statistic ~ 1)"
    else:  # p-values: a function of t
        value = np.nan if mine is None else mine["p"]
        tol, rule, se = np.nan, "a function of t: listed, not judged", np.nan
    row.update(ours_mean=value, ours_se=se, diff=value - r["mean"], tolerance=tol)
    row["tolerance_rule"] = rule
    if pd.isna(r["mean"]):
        row["verdict"] = "not in source"
    elif np.isnan(tol):
        row["verdict"] = "not judged"
    elif mine is None:
        row["verdict"] = "not run"
    else:
        row["verdict"] = "within" if abs(value - r["mean"]) <= tol else "outside"
    return row


def compare_car(
    table1: pd.DataFrame,
    table2: pd.DataFrame,
    ranks: dict,
    ours: pd.DataFrame,
    z: float = 4.0,
) -> pd.DataFrame:
    """B2 Tables 1 and 2 (car data) beside ours.

    * Table 1: the published rank of every car against our non-private BTL, TM
      and count ranks; a rank agrees only if equal (tolerance 0).
    * Table 2 means: ``z`` combined standard errors (both sides print the SE of
      the mean of 200 replicates).
    * Table 2 t statistics: ``z * sqrt(2)``. A paired t statistic of ``R`` replicates
      has sampling SD about ``sqrt(1 + delta^2 / (2R)) ~ 1`` (``delta`` its
      standardised effect), so two independent runs differ with SD ``sqrt(2)``.
      The p-values are functions of t and are listed, not judged.

    Parameters
    ----------
    table1, table2 : DataFrame
        :func:`dprank_papers.tables.read_published_table` of the published tables.
    ranks : dict
        Model (``btl``, ``tm``, ``count``) -> our rank of each car, car ids 1..m.
    ours : DataFrame
        :func:`dprank_papers.studies.paper_b2_car.table2` output.
    """
    _checks.columns(table1, "table1", ("car_id", "mean"))
    _checks.columns(table2, "table2", ("model", "metric", "method", "mean", "dispersion"))
    _checks.mapping(ranks, "ranks")
    missing = [m for m in ("btl", "tm", "count") if m not in ranks]
    if missing:
        raise ValueError(f"ranks lacks the models {missing} (btl, tm and count)")
    _checks.columns(ours, "ours", ("model", "method"))
    _checks.non_negative(z, "z")
    rows = []
    for _, r in table1.iterrows():
        car = int(r["car_id"])
        for model in ("btl", "tm", "count"):
            mine = float(ranks[model][car - 1])
            rows.append(
                {
                    "figure": "B2 Table 1",
                    "model": model,
                    "metric": "aggregate_rank",
                    "m": car,
                    "method": "non_private",
                    "in_paper_figure": True,
                    "published_mean": float(r["mean"]),
                    "ours_mean": mine,
                    "diff": mine - float(r["mean"]),
                    "tolerance": 0.0,
                    "tolerance_rule": "rank must be equal (m holds the car id)",
                    "verdict": "within" if mine == float(r["mean"]) else "outside",
                }
            )
    o = ours.set_index(["model", "method"])
    rows += [_car_table2_row(r, o, z) for _, r in table2.iterrows()]
    return pd.DataFrame(rows)


def summary_lines(comparison: pd.DataFrame, by: str = "figure") -> pd.DataFrame:
    """Cells within tolerance / cells compared, per figure (and in the paper's plotted subset)."""
    _checks.text(by, "by")
    _checks.columns(comparison, "comparison", ("verdict", "in_paper_figure", "diff"))
    if by not in comparison.columns:
        raise ValueError(f"by must be a column of comparison, got {by!r}")
    ran = comparison[~comparison["verdict"].isin(["not run", "not in source", "not judged"])]
    out = []
    for key, g in ran.groupby(by, sort=True):
        plotted = g[g["in_paper_figure"]]
        out.append(
            {
                by: key,
                "compared": len(g),
                "within": int((g["verdict"] == "within").sum()),
                "plotted_compared": len(plotted),
                "plotted_within": int((plotted["verdict"] == "within").sum()),
                "max_abs_diff": float(g["diff"].abs().max()) if len(g) else np.nan,
            }
        )
    not_run = int((comparison["verdict"] == "not run").sum())
    columns = [by, "compared", "within", "plotted_compared", "plotted_within", "max_abs_diff"]
    frame = pd.DataFrame(out, columns=columns)
    frame.attrs["not_run"] = not_run
    return frame
