"""Aggregation of tidy per-replicate metrics into per-cell summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["summarise"]


def summarise(
    frame: pd.DataFrame, value: str = "value", replicate: str = "replicate"
) -> pd.DataFrame:
    """Mean, standard deviation (ddof = 1), standard error and count per group.

    Groups are all columns except ``value`` and ``replicate``; rows come out
    sorted by the group keys, so the result does not depend on the order of
    the input rows (chunks may arrive in any order).
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    for name, column in (("value", value), ("replicate", replicate)):
        if column not in frame.columns:
            raise ValueError(
                f"{name} = {column!r} is no column of frame (columns: {list(frame.columns)})"
            )
    keys = [c for c in frame.columns if c not in (value, replicate)]
    frame = frame.sort_values([*keys, replicate], kind="stable")
    grouped = frame.groupby(keys, sort=True, dropna=False)[value]
    out = grouped.agg(
        mean="mean", sd=lambda v: v.std(ddof=1) if len(v) > 1 else np.nan, reps="count"
    )
    out = out.reset_index()
    out["se"] = out["sd"] / np.sqrt(out["reps"])
    if frame.duplicated([*keys, replicate]).any():
        raise ValueError(
            "frame has duplicate (cell, method, metric, replicate) rows: a chunk was counted twice"
        )
    return out[[*keys, "mean", "sd", "se", "reps"]]
