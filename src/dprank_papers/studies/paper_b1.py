"""Paper B, earlier version (B1): Table 1 from the measured trends of Figure 3.

B1's Table 1 states how the errors behave as L grows under its three privacy
schemes (theory): ``eps ~ 1/(log(mL) sqrt(mL))`` increase, ``eps ~ 1/sqrt(mL)``
remain stable, ``eps ~ log(mL)/sqrt(mL)`` decrease. Here the table is built from
the simulated Scenario II (Figure 3) instead of being typed in: per scheme and
metric, the slope of ``log(mean error)`` on ``log L``, averaged over m, and its
reading (spec B1-Table1). The simulations themselves run on the B2 engine
(:mod:`dprank_papers.studies.paper_b2`; config section ``paper_b1``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

__all__ = ["EPSILON_ORDER", "scheme_table", "scheme_trends", "trend_word"]

#: our scheme number (by formula, docs/papers/paper-b.md#a26) -> B1 Table 1's epsilon order
EPSILON_ORDER = {
    1: "eps ~ log(mL)/sqrt(mL)",
    2: "eps ~ 1/sqrt(mL)",
    3: "eps ~ 1/(log(mL)*sqrt(mL))",
}


def trend_word(slope: float, threshold: float = 0.1) -> str:
    """``Increase`` / ``Decrease`` if ``|slope| > threshold``, else ``Remain Stable``.

    The slope is d log(error) / d log(L): an error constant in L has slope 0 and
    one falling like the non-private ``1/sqrt(L)`` has slope -0.5; ``threshold``
    0.1 separates these (a fivefold smaller slope than the non-private rate).
    """
    _checks.real(slope, "slope")
    _checks.non_negative(threshold, "threshold")
    if slope > threshold:
        return "Increase"
    if slope < -threshold:
        return "Decrease"
    return "Remain Stable"


def scheme_trends(
    summary: pd.DataFrame,
    metrics: Sequence[str] = ("l2_over_sqrt_m", "linf"),
    threshold: float = 0.1,
) -> pd.DataFrame:
    """Slope of log(mean error) on log L per scheme and metric (mean over m).

    Parameters
    ----------
    summary : DataFrame
        Aggregated B1 Scenario II (``scheme, m, L, metric, mean``; method ADRR).

    Returns
    -------
    DataFrame
        ``scheme, metric, slope, slope_min, slope_max, trend`` (min and max over m).
    """
    _checks.columns(summary, "summary", ("scheme", "m", "L", "metric", "mean"))
    metrics = _checks.names(metrics, "metrics")
    _checks.non_negative(threshold, "threshold")
    rows = []
    for (scheme, metric), g in summary[summary["metric"].isin(metrics)].groupby(
        ["scheme", "metric"], sort=True
    ):
        slopes = [
            np.polyfit(np.log(d["L"].to_numpy(float)), np.log(d["mean"].to_numpy(float)), 1)[0]
            for _, d in g.groupby("m")
        ]
        slope = float(np.mean(slopes))
        rows.append(
            {
                "scheme": int(scheme),
                "metric": metric,
                "slope": slope,
                "slope_min": float(np.min(slopes)),
                "slope_max": float(np.max(slopes)),
                "trend": trend_word(slope, threshold),
            }
        )
    return pd.DataFrame(rows)


def scheme_table(trends: pd.DataFrame, published: pd.DataFrame) -> pd.DataFrame:
    """B1 Table 1 with the paper's expected behaviour beside the measured one.

    Rows in the paper's order (smallest budget first); for each metric the
    expected trend (``published``: :func:`dprank_papers.tables.read_published_table`
    of B1 Table 1), the observed trend and its slope, and whether they agree.
    """
    _checks.columns(trends, "trends", ("scheme", "metric", "trend", "slope"))
    _checks.columns(published, "published", ("epsilon_order", "metric", "text"))
    rows = []
    for order in dict.fromkeys(published["epsilon_order"]):
        scheme = next(s for s, text in EPSILON_ORDER.items() if text == order)
        row = {"epsilon_order": order, "scheme": scheme}
        for metric in ("l2_over_sqrt_m", "linf"):
            expected = published[
                (published["epsilon_order"] == order) & (published["metric"] == metric)
            ]["text"].iloc[0]
            mine = trends[(trends["scheme"] == scheme) & (trends["metric"] == metric)]
            if mine.empty:
                raise ValueError(f"trends has no row of scheme {scheme} and metric {metric!r}")
            mine = mine.iloc[0]
            row[f"{metric} expected"] = expected
            row[f"{metric} observed"] = f"{mine['trend']} (slope {mine['slope']:+.2f})"
            row[f"{metric} agrees"] = "yes" if mine["trend"].lower() == expected.lower() else "no"
        rows.append(row)
    return pd.DataFrame(rows)
