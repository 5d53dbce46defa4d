"""Published versus reproduced numbers, with tolerances derived from the data.

Paper A's edge-DP figures average over data randomness only, with one theta
draw per run (spec/paper-a.md, section 0, items 1 and 4). Two faithful runs
therefore differ by more than their standard errors: the authors' own
Experiments 2 and 3 overlap in 32 settings and differ there by up to 0.033
(log l2), 0.107 (log l_inf) and 0.022 (Hamming). The tolerance of a cell is

    spread(metric) + z * sqrt(se_ours^2 + se_published^2),

with ``spread`` that largest rerun difference and ``z = 4`` by default.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["EDGE_EXPERIMENTS", "EDGE_METHODS", "compare_edge", "rerun_spread", "summary_lines"]

#: published experiment label -> experiment name in config.yaml
EDGE_EXPERIMENTS = {
    "exp1_vs_n": "exp1",
    "exp2_vs_p": "exp2",
    "exp3_vs_epsilon": "exp3",
    "exp4_vs_n": "exp4_n",
    "exp4_vs_epsilon": "exp4_eps",
    "exp4_vs_n_nonprivate": "exp4_nonprivate",
}
#: published method label -> method name here
EDGE_METHODS = {
    "perturbed_mle": "perturbed_mle",
    "noisy_counting": "noisy_counting",
    "one_shot_qiao2021": "one_shot",
}


def rerun_spread(overlap: pd.DataFrame) -> dict[str, float]:
    """Largest |Exp 2 - Exp 3| difference per metric in the authors' overlapping settings."""
    return (
        overlap.assign(absdiff=overlap["diff"].abs()).groupby("metric")["absdiff"].max().to_dict()
    )


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
    spread = rerun_spread(overlap)
    pub = published.copy()
    pub["experiment_name"] = pub["experiment"].map(EDGE_EXPERIMENTS)
    pub["method_name"] = pub["method"].map(EDGE_METHODS)
    if pub["experiment_name"].isna().any() or pub["method_name"].isna().any():
        raise ValueError("published table has unknown experiment or method labels")
    rows = []
    for _, r in pub.iterrows():
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
        rows.append(row)
    return pd.DataFrame(rows)


def summary_lines(comparison: pd.DataFrame, by: str = "figure") -> pd.DataFrame:
    """Cells within tolerance / cells compared, per figure (and in the paper's plotted subset)."""
    ran = comparison[comparison["verdict"] != "not run"]
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
    frame = pd.DataFrame(out)
    frame.attrs["not_run"] = not_run
    return frame
