"""The numbers the pages give in words (fidelity, sensitivity, scale study), each computed
from the result file a run writes: ``measure(root, results) -> str or None`` (None when the
file is not there), as :data:`dprank_papers.docs_measures.MEASURES` uses them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

Reader = Callable[[Path, Path], "str | None"]


def from_json(rel: str, text: Callable[[dict], str]) -> Reader:
    """``text(obj)`` of the JSON file ``results/<rel>``."""

    def measure(root: Path, results: Path) -> str | None:
        path = results / rel
        return text(json.loads(path.read_text())) if path.is_file() else None

    return measure


def from_csv(pattern: str, text: Callable) -> Reader:
    """``text(frame)`` of the csv files ``results/<pattern>`` (a glob), concatenated."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        files = sorted(results.glob(pattern))
        if not files:
            return None
        return text(pd.concat([pd.read_csv(f) for f in files], ignore_index=True))

    return measure


def percent(x: float) -> str:
    """``0.0378`` -> ``"3.78%"``."""
    return f"{100 * x:.2f}%"


# --------------------------------------------------------------------------- the car data


def car(what: str) -> Reader:
    """The car data's intransitivity (``results/paper_b2/car/nonprivate.json``):
    ``users`` (``"42 of 60"``), ``users_share`` (``"70%"``), ``comparisons`` (``"2675"``),
    ``conflicts`` (``"3.78% (101 of 2675)"``: comparisons against the user's own win-count
    ranking), ``ties_as_conflicts`` and ``ties_as_half`` (the share with the user's tied
    pairs counted as conflicts, or as half)."""

    def text(obj: dict) -> str:
        s = obj["intransitivity"]
        n = s["n_comparisons"]
        return {
            "users": f"{s['n_intransitive']:.0f} of {s['n_users']:.0f}",
            "users_share": f"{s['share_intransitive']:.0%}",
            "comparisons": f"{n:.0f}",
            "conflicts": f"{percent(s['n_conflicts'] / n)} ({s['n_conflicts']:.0f} of {n:.0f})",
            "ties_as_conflicts": percent((s["n_conflicts"] + s["n_ties"]) / n),
            "ties_as_half": percent((s["n_conflicts"] + s["n_ties"] / 2) / n),
        }[what]

    return from_json("paper_b2/car/nonprivate.json", text)


def car_table2(method: str, column: str) -> Reader:
    """One number of B2 Table 2's BTL row of ``method`` (``results/paper_b2/car/table2.csv``):
    ``se`` (``"0.0031"``) or the paired test's ``p`` (``"0.013"``; ``"4.1e-4"`` below 0.001)."""

    def text(frame) -> str:
        row = frame[(frame["model"] == "btl") & (frame["method"] == method)].iloc[0]
        x = float(row[column])
        if column == "se":
            return f"{x:.4f}"
        if x >= 1e-3:
            return f"{x:.2g}"
        mantissa, exponent = f"{x:.1e}".split("e")
        return f"{mantissa}e{int(exponent)}"

    return from_csv("paper_b2/car/table2.csv", text)


def paper_a_fig6(protocol: str, panels: str, spec: str, labels: bool = False) -> Reader:
    """Paper A Figure 6 at m = 2000, eps = inf (``results/figures/paper_a/fig6_<protocol>
    .csv``): the means of ``panels`` (``"cd"``), formatted with ``spec``, joined by ``" and "``
    (``labels``: ``"0.05 for (c) and 0.25 for (d)"``)."""

    def text(frame) -> str:
        at = frame[(frame["x_var"] == "m") & (frame["x"] == 2000)]
        at = at[at["series"].astype(str) == "inf"].set_index("panel")["mean"]
        parts = [format(float(at[p]), spec) + (f" for ({p})" if labels else "") for p in panels]
        return " and ".join(parts)

    return from_csv(f"figures/paper_a/fig6_{protocol}.csv", text)


def one_shot_error(frame) -> str:
    """The range of Paper A Figure 4's one-shot top-1 error over its points (``"0.74-0.76"``)."""
    means = frame[frame["method"] == "edge_one_shot"]["mean"]
    return f"{means.min():.2f}-{means.max():.2f}"


# --------------------------------------------------------------------------- B2's tables


def _cells(frame, figure: str):
    return frame[frame["figure"] == figure]


def b2_comparison(what: str) -> Reader:
    """Numbers of B2's comparison (``results/comparison/paper_b2.csv``):

    - ``table4_m30``: Table 4's selection rates at m = 30, ours and printed (ranges);
    - ``table4_m10_l800``: at m = 10, L = 800;
    - ``table5``: how much lower our Table 5 errors are on average, per m;
    - ``scenario3_scheme1`` / ``scenario3_other``: the Scenario III cells (Tables 6, 7)
      outside tolerance of Scheme 1 / of Schemes 2 and 3, and by how much;
    - ``table10_classic_rr``: how much lower our Table 10 classic RR is (range over cells).
    """

    def text(frame) -> str:
        if what.startswith("table4"):
            t4 = _cells(frame, "B2 Table 4")
            if what == "table4_m30":
                t = t4[t4["m"] == 30]
                ours = f"{t['ours_mean'].min():.3f}-{t['ours_mean'].max():.3f}"
                printed = f"{t['published_mean'].min():.3f}-{t['published_mean'].max():.3f}"
                return f"{ours} against {printed}"
            t = t4[(t4["m"] == 10) & (t4["L"] == 800)].iloc[0]
            return f"{t['ours_mean']:.3f} against {t['published_mean']:.3f}"
        if what == "table5":
            t5 = _cells(frame, "B2 Table 5")
            lower = (1 - t5["ours_mean"] / t5["published_mean"]).groupby(t5["m"]).mean()
            parts = [f"{x:.0%} at m = {m:g}" for m, x in lower.items()]
            return ", ".join(parts[:-1]) + " and " + parts[-1]
        if what == "table10_classic_rr":
            t = _cells(frame, "B2 Table 10")
            t = t[t["method"] == "local_classic_rr"]
            lower = 1 - t["ours_mean"] / t["published_mean"]
            return f"{100 * lower.min():.0f}-{100 * lower.max():.0f}%"
        t = frame[frame["figure"].isin(["B2 Table 6", "B2 Table 7"])]
        t = t[t["verdict"] == "outside"]
        one = t["scheme"].astype(str).isin(["1", "scheme1"])
        t = t[one] if what == "scenario3_scheme1" else t[~one]
        change = t["ours_mean"] / t["published_mean"] - 1
        span = f"{100 * change.abs().min():.0f}-{100 * change.abs().max():.0f}%"
        word = "lower" if (change < 0).all() else "higher" if (change > 0).all() else "off"
        if what == "scenario3_scheme1":
            return f"{len(t)} cells, ours {span} {word}"
        return (
            f"{len(t)} Scheme 2/3 cells at m = {t['m'].min():g}-{t['m'].max():g} "
            f"(ours {span} {word})"
        )

    return from_csv("comparison/paper_b2.csv", text)


def b2_fig3_medians(experiment: str) -> Reader:
    """B2 Figure 3's median smallest Hessian eigenvalue (``results/figures/paper_b2/
    fig3.csv``) at the smallest and the largest m (``hessian_m``: ``"4.2 at m = 10 to 43.5
    at m = 100"``) or p (``hessian_p``: ``"1.3 to 16.2"``)."""
    column = "m" if experiment == "hessian_m" else "p"

    def text(frame) -> str:
        part = frame[frame["experiment"] == experiment]
        medians = part.groupby(column)["value"].median().sort_index()
        lo, hi = medians.iloc[0], medians.iloc[-1]
        if column == "m":
            return f"{lo:.1f} at m = {medians.index[0]:g} to {hi:.1f} at m = {medians.index[-1]:g}"
        return f"{lo:.1f} to {hi:.1f}"

    return from_csv("figures/paper_b2/fig3.csv", text)


# --------------------------------------------------------------------------- B1


def b1_slopes(scheme: int, per_m: bool = False) -> Reader:
    """B1 Table 1's slopes of log mean error on log L (``results/paper_b1/scenario2/
    trends.csv``) of one scheme: the two metrics' (``"-0.02 / -0.01"``, one where they
    agree to two digits) or, ``per_m``, the range over m (``"+0.08 to +0.11"``)."""

    def text(frame) -> str:
        rows = frame[frame["scheme"] == scheme].set_index("metric")
        if per_m:
            return f"{rows['slope_min'].min():+.2f} to {rows['slope_max'].max():+.2f}"
        slopes = list(
            dict.fromkeys(f"{rows.loc[m, 'slope']:+.2f}" for m in ("l2_over_sqrt_m", "linf"))
        )
        return " / ".join(slopes)

    return from_csv("paper_b1/scenario2/trends.csv", text)


def b1_movielens_converged(frame) -> str:
    """``"All 3000 fits converged"`` (or how many of them) of B1's Figure 7."""
    conv = frame[frame["metric"] == "converged"]
    total = int(conv["reps"].sum())
    done = round(float((conv["mean"] * conv["reps"]).sum()))
    return f"All {total} fits converged" if done == total else f"{done} of {total} fits converged"


# --------------------------------------------------------------------------- the studies


def sensitivity_default_nonconverged(root: Path, results: Path) -> str | None:
    """The fits that did not converge at the main study's Scenario V setting
    (``results/sensitivity/scenario5/*.csv``, metric ``converged``): ``"1 TM Laplace fit in
    200"`` (each group with any, joined by ``", "``; ``"no fit"`` when all converged)."""
    import numpy as np
    import pandas as pd

    from .config import sensitivity_default_of

    files = sorted((results / "sensitivity" / "scenario5").glob("*.csv"))
    if not files:
        return None
    frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    conv = frame[frame["metric"] == "converged"]
    at = np.ones(len(conv), dtype=bool)
    for key, value in sensitivity_default_of(root).items():
        at &= np.isclose(conv[key].astype(float), float(value))
    names = {"local_laplace": "Laplace", "local_adrr": "ADRR", "local_count": "count"}
    parts = []
    for _, row in conv[at].iterrows():
        failed = round(float((1 - row["mean"]) * row["reps"]))
        if failed:
            method = names.get(row["method"], row["method"])
            fits = "fit" if failed == 1 else "fits"
            parts.append(
                f"{failed} {str(row['model']).upper()} {method} {fits} in {row['reps']:.0f}"
            )
    return ", ".join(parts) or "no fit"


def scale_newton(frame) -> str:
    """The scale study's solver (``results/beyond/metrics/*/*.csv``): ``"converged in every
    fit (at most 6 Newton steps)"``, or how many fits converged."""
    conv = frame[frame["metric"] == "converged"]["value"]
    steps = frame[frame["metric"] == "n_iter"]["value"].max()
    head = (
        "converged in every fit"
        if (conv == 1).all()
        else f"converged in {int((conv == 1).sum())} of {len(conv)} fits"
    )
    return f"{head} (at most {steps:.0f} Newton steps)"
