"""Small frames shared by several test files."""

from __future__ import annotations

import math

import pandas as pd


def coverage_summary() -> pd.DataFrame:
    """Two designs of the intervals study's summary (``coverage_table``'s columns): an
    edge-DP design that meets its targets and a local one whose scores fall short."""
    return pd.DataFrame(
        {
            "design": ["edge_design", "local_design"],
            "method": ["edge_mle", "local_adrr"],
            "epsilon": [1.0, math.nan],
            "data": ["ER p 0.5", "30 users"],
            "score_cover": [0.95, 0.9],
            "score_cover_min": [0.9, 0.7],
            "score_items_below": [0, 2],
            "score_width_median": [1.0, 2.0],
            "rank_cover": [0.96, 0.97],
            "rank_cover_min": [0.9, 0.9],
            "rank_items_below": [0, 0],
            "rank_width": [3.0, 4.0],
            "rank_width_median": [3.0, 4.0],
            "brier": [0.05, 0.05],
            "brier_base": [0.09, 0.09],
            "ece": [0.01, 0.01],
            "ece_floor": [0.008, 0.008],
            "ece_debiased": [0.005, 0.005],
        }
    )
