"""The layouts of the published CSVs of ``reference/paper-b/``, read into one tidy frame.

Private: :func:`dprank_papers.tables.read_published_table` picks the layout of a file and calls
the parser here; :data:`dprank_papers.tables.KEY_COLUMNS` is re-exported there.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

#: Row and column keys of the published CSVs (docs/papers/paper-b.md#s10).
KEY_COLUMNS = ("table", "model", "metric", "scheme", "m", "L", "Delta", "method")

_SE_KIND = {"sd_over_replicates": "sd", "se_of_mean": "se", "none": None}

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


def _decimals(text: object) -> float:
    """Decimals of a number as printed in fixed notation ("0.0030" -> 4); NaN otherwise."""
    if not isinstance(text, str) or not re.fullmatch(r"[-+]?\d+(?:\.\d*)?", text.strip()):
        return np.nan
    _, _, frac = text.strip().partition(".")
    return float(len(frac))


def _parse_quoted(text: object) -> tuple[float, str | None]:
    """A number quoted in the text: ``"5/9"``, ``"~19"``, ``">0.9 (all)"``, ``"6.98%"``,
    ``"42 of 60 (70%)"``. Returns (value, qualifier ``~ < >`` or None); NaN if not numeric."""
    if not isinstance(text, str):
        return np.nan, None
    s = text.strip()
    if m := re.fullmatch(rf"({_NUMBER})\s*/\s*({_NUMBER})", s):
        return float(m.group(1)) / float(m.group(2)), None
    if m := re.fullmatch(rf"({_NUMBER})\s+of\s+({_NUMBER})(?:\s*\(.*\))?", s):
        return float(m.group(1)) / float(m.group(2)), None
    if m := re.fullmatch(rf"([~<>≈]?)\s*({_NUMBER})\s*(%?)(?:\s*\(.*\))?", s):
        value = float(m.group(2)) / (100.0 if m.group(3) else 1.0)
        return value, (m.group(1) or None)
    return np.nan, None


TIDY = [*KEY_COLUMNS, "mean", "dispersion", "se_kind", "dispersion_kind", "digits", "flag"]


def standard_rows(raw: pd.DataFrame) -> pd.DataFrame:
    out = pd.DataFrame({c: raw[c] if c in raw else pd.NA for c in KEY_COLUMNS})
    for c in ("table", "model", "metric", "scheme", "method"):
        out[c] = raw[c].astype("string")
    for c in ("m", "L"):
        out[c] = pd.to_numeric(raw[c]).astype("Int64")
    out["Delta"] = pd.to_numeric(raw["Delta"]).astype(float)
    out["mean"] = pd.to_numeric(raw["mean"]).astype(float)
    out["dispersion"] = pd.to_numeric(raw["se"]).astype(float)
    out["se_kind"] = raw["se_kind"].fillna("none").astype("string")
    unknown = set(out["se_kind"]) - set(_SE_KIND)
    if unknown:
        raise ValueError(f"unknown se_kind values {sorted(unknown)}")
    out["dispersion_kind"] = out["se_kind"].map(_SE_KIND).astype("string")
    out["digits"] = raw["mean"].map(_decimals).astype("Int64")
    out["flag"] = raw["flag"].astype("string")
    return out[TIDY]


def car_ranking(raw: pd.DataFrame) -> pd.DataFrame:
    """B2 Table 1: one row per car, the aggregate rank as ``mean``; attributes kept."""
    out = pd.DataFrame(
        {
            "table": raw["table"].astype("string"),
            "model": pd.Series(pd.NA, index=raw.index, dtype="string"),
            "metric": "aggregate_rank",
            "scheme": pd.Series(pd.NA, index=raw.index, dtype="string"),
            "m": pd.array([len(raw)] * len(raw), dtype="Int64"),
            "L": pd.array([pd.NA] * len(raw), dtype="Int64"),
            "Delta": np.nan,
            "method": "BTL_TM_count_non_private",
        }
    )
    out["metric"] = out["metric"].astype("string")
    out["method"] = out["method"].astype("string")
    out["mean"] = pd.to_numeric(raw["aggregate_rank"]).astype(float)
    out["dispersion"] = np.nan
    out["se_kind"] = pd.Series("none", index=raw.index, dtype="string")
    out["dispersion_kind"] = pd.Series(pd.NA, index=raw.index, dtype="string")
    out["digits"] = raw["aggregate_rank"].map(_decimals).astype("Int64")
    out["flag"] = raw["flag"].astype("string")
    attrs = [c for c in raw.columns if c not in ("table", "aggregate_rank", "flag")]
    return pd.concat([out[TIDY], raw[attrs]], axis=1)


_DIRECTION = {"increase": 1.0, "remain stable": 0.0, "decrease": -1.0}


def scheme_behaviour(raw: pd.DataFrame) -> pd.DataFrame:
    """B1 Table 1 (qualitative): the expected direction as ``mean`` (+1, 0, -1), text kept."""
    metrics = {"expected_l2_over_sqrt_m": "l2_over_sqrt_m", "expected_linf": "linf"}
    rows = []
    for record in raw.to_dict("records"):
        for column, metric in metrics.items():
            text = str(record[column])
            direction = _DIRECTION.get(text.strip().lower())
            if direction is None:
                raise ValueError(f"unknown direction {text!r} in B1 Table 1")
            rows.append(
                {
                    "table": record["table"],
                    "metric": metric,
                    "scheme": f"scheme{record['scheme_order_in_table']}",
                    "method": "debiased_RR",
                    "mean": direction,
                    "text": text,
                    "epsilon_order": record["epsilon_order"],
                    "flag": record["flag"],
                }
            )
    long = pd.DataFrame(rows)
    out = pd.DataFrame({c: long.get(c, pd.NA) for c in KEY_COLUMNS})
    for c in ("table", "model", "metric", "scheme", "method"):
        out[c] = out[c].astype("string")
    out["m"] = out["m"].astype("Int64")
    out["L"] = out["L"].astype("Int64")
    out["Delta"] = np.nan
    out["mean"] = long["mean"].astype(float)
    out["dispersion"] = np.nan
    out["se_kind"] = pd.Series("none", index=out.index, dtype="string")
    out["dispersion_kind"] = pd.Series(pd.NA, index=out.index, dtype="string")
    out["digits"] = pd.array([pd.NA] * len(out), dtype="Int64")
    out["flag"] = long["flag"].astype("string")
    return pd.concat([out[TIDY], long[["text", "epsilon_order"]]], axis=1)


def text_numbers(raw: pd.DataFrame, name: str) -> pd.DataFrame:
    """Numbers quoted in the text: parsed where numeric (else NaN), text kept."""
    parsed = raw["value"].map(_parse_quoted)
    n = len(raw)
    out = pd.DataFrame({c: pd.Series(pd.NA, index=raw.index, dtype="string") for c in KEY_COLUMNS})
    out["table"] = pd.Series(name, index=raw.index, dtype="string")
    out["model"] = raw["version"].astype("string")
    out["metric"] = raw["quantity"].astype("string")
    out["scheme"] = raw["location"].astype("string")
    out["m"] = pd.array([pd.NA] * n, dtype="Int64")
    out["L"] = pd.array([pd.NA] * n, dtype="Int64")
    out["Delta"] = np.nan
    out["mean"] = parsed.map(lambda v: v[0]).astype(float)
    out["dispersion"] = np.nan
    out["se_kind"] = pd.Series("none", index=raw.index, dtype="string")
    out["dispersion_kind"] = pd.Series(pd.NA, index=raw.index, dtype="string")
    out["digits"] = raw["value"].map(_decimals).astype("Int64")
    out["flag"] = raw["note"].astype("string")
    extra = pd.DataFrame(
        {
            "text": raw["value"].astype("string"),
            "qualifier": parsed.map(lambda v: v[1]).astype("string"),
        }
    )
    return pd.concat([out[TIDY], extra], axis=1)
