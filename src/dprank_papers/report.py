"""Report pages built from the run's own outputs: deviations and runtime per stage.

Both are rendered for the Snakemake report (``snakemake --report``): the
deviations as an HTML table (curated text from ``resources/deviations.yaml``
with the measured agreement of the items it names, read from the comparison
summaries), the runtime as a CSV aggregated from the ``benchmark:`` files.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from dprank.base import checks as _checks

__all__ = [
    "agreement",
    "csv_page",
    "deviations_html",
    "load_deviations",
    "natural_key",
    "overview_html",
    "runtime_by_stage",
]

_CHUNK = re.compile(r"chunk\d+\.tsv$")


def runtime_by_stage(files: Iterable[str | Path], root: str | Path) -> pd.DataFrame:
    """Jobs, summed and largest wall seconds and largest RSS per stage.

    A stage is the benchmark file's folder relative to ``root`` with the cell
    folder removed for chunked jobs (``paper_b2/scenario1/metrics/<cell>/chunk0.tsv``
    -> ``paper_b2/scenario1/metrics``), else the file's path without suffix. Stages are in
    natural order: the numbers in their names compare as numbers (``fig3`` before ``fig10``).
    """
    _checks.path(root, "root")
    if isinstance(files, (str, bytes, os.PathLike)) or not isinstance(files, Iterable):
        raise TypeError(f"files must be a list of benchmark files, got {files!r}")
    files = list(files)
    for f in files:
        _checks.path(f, "files")
        if not Path(f).is_relative_to(root):
            raise ValueError(f"files: {f} is not under root {root}")
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
    out = frame.groupby("stage", sort=False).agg(
        jobs=("s", "size"),
        seconds_sum=("s", "sum"),
        seconds_max=("s", "max"),
        max_rss_mb=("rss", "max"),
    )
    out = out.reset_index()
    order = sorted(range(len(out)), key=lambda i: natural_key(out["stage"].iloc[i]))
    return out.iloc[order].reset_index(drop=True)


def load_deviations(path: str | Path) -> list[dict]:
    """The entries of ``resources/deviations.yaml``.

    Raises
    ------
    ValueError
        If an entry lacks one of ``paper``, ``item``, ``departure``, ``reason``, ``effect``.
    """
    _checks.path(path, "path")
    import yaml

    entries = yaml.safe_load(Path(path).read_text())["deviations"]
    need = {"paper", "item", "departure", "reason", "effect"}
    for i, e in enumerate(entries):
        if not need <= set(e):
            raise ValueError(f"{path}: deviation {i} lacks {sorted(need - set(e))}")
    return entries


def agreement(summaries: pd.DataFrame, names: Iterable[str]) -> str:
    """``"<name>: <within> / <compared> within"`` for each named summary line, joined by ``;``."""
    _checks.columns(summaries, "summaries", ("figure", "within", "compared"))
    names = _checks.strings(names, "names")
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
    entries = _checks.records(
        entries, "entries", ("paper", "item", "departure", "reason", "effect")
    )
    _checks.columns(summaries, "summaries", ("figure", "within", "compared"))
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


#: Column headers of the report's pages (comparison summaries, audit, runtime)
PAGE_HEADERS = {
    "figure": "Figure or table",
    "compared": "Cells compared",
    "within": "Within tolerance",
    "plotted_compared": "Plotted cells compared",
    "plotted_within": "Plotted cells within",
    "max_abs_diff": "Largest |difference|",
    "claimed_eps": "Claimed ε",
    "claimed_delta": "Claimed δ",
    "lower_bound": "Lower bound on ε",
    "exact_eps": "Exact ε",
    "seconds_sum": "Seconds (sum)",
    "seconds_max": "Seconds (largest job)",
    "max_rss_mb": "Largest RSS (MB)",
}


def _cell(value) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "–"
        return f"{value:.4g}" if abs(value) < 1e5 else f"{value:.0f}"
    return str(value)


def csv_page(frame: pd.DataFrame, caption: str, notes: Iterable[str] = ()) -> str:
    """An HTML page showing a CSV output as a table (numbers to 4 significant digits).

    A column that holds one value in every row (of two or more) is not shown as a column:
    the caption ends with it (``In every row: Confidence 0.95.``).

    A ``method`` column's registered names are shown as their labels
    (:attr:`dprank.methods.Method.label`, what the figures and papers call them).

    Parameters
    ----------
    frame : DataFrame
        The CSV as read.
    caption : str
        The paragraph above the table.
    notes : iterable of str
        Paragraphs below it.
    """
    from dprank_papers.tables import to_html

    if "method" in frame.columns:
        frame = frame.assign(method=frame["method"].map(_method_label))
    shown = frame.map(_cell).rename(columns=lambda c: PAGE_HEADERS.get(c, str(c).replace("_", " ")))
    # a column with one value in every row is said once, after the caption: the table keeps
    # the columns that tell rows apart (and fits the window)
    same = [c for c in shown.columns[1:] if len(shown) > 1 and shown[c].nunique() == 1]
    if same:
        every = "; ".join(f"{c} {shown[c].iloc[0]}" for c in same)
        caption = f"{caption.rstrip()} In every row: {every}."
        shown = shown.drop(columns=same)
    shown = shown.set_index(shown.columns[0])
    return to_html(shown, caption, sparsify=False, notes=tuple(notes))


def _method_label(name: object) -> object:
    """A registered method's label; any other value unchanged."""
    from dprank.methods import UnknownMethodError, get_method

    if not isinstance(name, str):
        return name
    try:
        return get_method(name).label
    except UnknownMethodError:
        return name


def overview_html(summaries: Mapping[str, pd.DataFrame]) -> str:
    """The report's landing page: the headline agreement of each paper part and its items.

    Parameters
    ----------
    summaries : mapping
        Paper part (``"Paper A"``, ...) -> its comparison summary lines (columns
        ``figure, compared, within``); a part absent from this run is left out.
    """
    _checks.mapping(summaries, "summaries")
    for part, frame in summaries.items():
        _checks.text(part, "summaries")
        _checks.columns(frame, "summaries", ("figure", "within", "compared"))
    head = "<tr><th>Paper</th><th>Cells within tolerance / compared</th><th>Per item</th></tr>"
    rows = []
    for part, frame in summaries.items():
        within, compared = int(frame["within"].sum()), int(frame["compared"].sum())
        items = "; ".join(
            f"{r['figure']}: {int(r['within'])} / {int(r['compared'])}"
            for _, r in _natural(frame).iterrows()
        )
        rows.append(
            f"<tr><td>{html.escape(part)}</td><td class='num'>{within} / {compared}</td>"
            f"<td>{html.escape(items)}</td></tr>"
        )
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>Agreement</title>"
        "<style>body{font-family:sans-serif;font-size:14px;margin:12px}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:4px 8px;"
        "vertical-align:top}th{background:#f2f2f2}td.num{white-space:nowrap}</style>"
        "</head><body>\n<h1>Agreement with the published numbers</h1>\n"
        "<p>Every published number each paper prints or plots, set beside ours: a cell is "
        "within tolerance when the difference is at most the tolerance of the comparison "
        "(the combined standard errors and, for Paper A's edge-DP figures, the authors' own "
        "rerun spread; docs/fidelity.md). The per-item lines, the cell-by-cell tables and "
        "the deviations are in this category; the figures and tables are under each paper.</p>\n"
        f"<table>\n{head}\n" + "\n".join(rows) + "\n</table>\n</body></html>\n"
    )


def natural_key(name: object) -> tuple:
    """A sort key in which the numbers of ``name`` compare as numbers ("fig3" < "fig10")."""
    return tuple(
        (0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", str(name))
    )


def _natural(frame: pd.DataFrame) -> pd.DataFrame:
    """Summary lines in natural order ("Figure 2" before "Figure 10")."""
    order = sorted(range(len(frame)), key=lambda i: natural_key(frame["figure"].iloc[i]))
    return frame.iloc[order]
