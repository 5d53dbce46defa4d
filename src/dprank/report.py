"""Report pages built from the run's own outputs: deviations and runtime per stage.

Both are rendered for the Snakemake report (``snakemake --report``): the
deviations as an HTML table (curated text from ``resources/deviations.yaml``
with the measured agreement of the items it names, read from the comparison
summaries), the runtime as a CSV aggregated from the ``benchmark:`` files.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

__all__ = ["agreement", "deviations_html", "load_deviations", "runtime_by_stage"]

_CHUNK = re.compile(r"chunk\d+\.tsv$")


def runtime_by_stage(files: Iterable[str | Path], root: str | Path) -> pd.DataFrame:
    """Jobs, summed and largest wall seconds and largest RSS per stage.

    A stage is the benchmark file's folder relative to ``root`` with the cell
    folder removed for chunked jobs (``paper_b2/scenario1/metrics/<cell>/chunk0.tsv``
    -> ``paper_b2/scenario1/metrics``), else the file's path without suffix.
    """
    root = Path(root)
    rows = []
    for f in files:
        f = Path(f)
        rel = f.relative_to(root)
        stage = rel.parent.parent if _CHUNK.search(f.name) else rel.with_suffix("")
        b = pd.read_csv(f, sep="\t")
        rows.append(
            {"stage": str(stage), "s": float(b["s"].sum()), "rss": float(b["max_rss"].max())}
        )
    if not rows:
        return pd.DataFrame(columns=["stage", "jobs", "seconds_sum", "seconds_max", "max_rss_mb"])
    frame = pd.DataFrame(rows)
    out = frame.groupby("stage", sort=True).agg(
        jobs=("s", "size"),
        seconds_sum=("s", "sum"),
        seconds_max=("s", "max"),
        max_rss_mb=("rss", "max"),
    )
    return out.reset_index()


def load_deviations(path: str | Path) -> list[dict]:
    """The entries of ``resources/deviations.yaml``.

    Raises
    ------
    ValueError
        If an entry lacks one of ``paper``, ``item``, ``departure``, ``reason``, ``effect``.
    """
    import yaml

    entries = yaml.safe_load(Path(path).read_text())["deviations"]
    need = {"paper", "item", "departure", "reason", "effect"}
    for i, e in enumerate(entries):
        if not need <= set(e):
            raise ValueError(f"{path}: deviation {i} lacks {sorted(need - set(e))}")
    return entries


def agreement(summaries: pd.DataFrame, names: Iterable[str]) -> str:
    """``"<name>: <within> / <compared> within"`` for each named summary line, joined by ``;``."""
    parts = []
    for name in names:
        row = summaries[summaries["figure"] == name]
        if row.empty:
            parts.append(f"{name}: not compared in this run")
        else:
            r = row.iloc[0]
            parts.append(f"{name}: {int(r['within'])} / {int(r['compared'])} within")
    return "; ".join(parts)


def deviations_html(entries: Iterable[Mapping], summaries: pd.DataFrame) -> str:
    """An HTML table of the deviations with the measured agreement of their items."""
    head = ["Paper", "Item", "Departure", "Reason", "Measured effect", "Agreement in this run"]
    cells = []
    for e in entries:
        measured = agreement(summaries, e.get("comparison", [])) if e.get("comparison") else "-"
        values = [e["paper"], e["item"], e["departure"], e["reason"], e["effect"], measured]
        cells.append("".join(f"<td>{html.escape(str(v))}</td>" for v in values))
    rows = "\n".join(f"<tr>{c}</tr>" for c in cells)
    header = "".join(f"<th>{h}</th>" for h in head)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Deviations</title>"
        "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:4px;"
        "vertical-align:top;font-family:sans-serif;font-size:13px}</style></head><body>\n"
        "<h1>Deviations from the papers' text</h1>\n"
        f"<table>\n<tr>{header}</tr>\n{rows}\n</table>\n</body></html>\n"
    )
