"""Markdown tables of the documentation site, written from a run's results.

The site (``docs/``, built with MkDocs) embeds the files of ``docs/includes/``
with ``pymdownx.snippets``; this module writes them from ``results/`` so that no
number in the pages is typed by hand:

- ``runtime_paper_a.md``, ``runtime_paper_b2.md``: jobs, summed job seconds and
  the largest resident memory per Paper A figure and per B2 experiment, from the
  ``benchmark:`` files under ``results/benchmarks/``;
- ``agreement.md``: cells within tolerance / cells compared per paper, and the
  items with cells outside, from ``results/comparison/<paper>_summary.csv``;
- ``fidelity_<comparison>.md``: one line per figure or table of each comparison
  summary (``paper_a_edge``, ``paper_a_individual``, ``paper_b2``, ``paper_b1``);
- ``audit.md``: claimed against measured privacy loss of every mechanism, from
  ``results/audit/privacy.csv``;
- ``intervals_coverage.md``: the intervals' coverage study (target ``intervals``, rule
  ``intervals_docs``), from ``results/tables/intervals/coverage.csv``;
- ``deviations.md``: the curated ``resources/deviations.yaml`` with the agreement
  this run measured for each item it names.

Every include starts with an HTML comment naming the command that regenerates it
(``make docs-includes``, i.e. ``snakemake docs_includes``); ``tests/test_docs.py``
checks that each is a well-formed, non-empty Markdown table.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from dprank import _checks
from dprank.report import agreement
from dprank.studies import study_module

__all__ = [
    "COMPARISONS",
    "HEADER",
    "agreement_table",
    "audit_table",
    "b2_experiment_jobs",
    "b2_products",
    "deviations_table",
    "fidelity_table",
    "figure_jobs",
    "markdown_table",
    "paper_a_figures",
    "runtime_paper_a_table",
    "runtime_paper_b2_table",
    "write_includes",
    "write_intervals_include",
]

#: First line of every include: how to regenerate it.
HEADER = (
    "<!-- Generated from results/ by `make docs-includes` (snakemake docs_includes, "
    "src/dprank/docs_includes.py); do not edit by hand. -->\n"
)

#: comparison summary name -> the paper it belongs to (agreement table)
COMPARISONS = {
    "paper_a_edge": "A",
    "paper_a_individual": "A",
    "paper_b2": "B2",
    "paper_b1": "B1",
}

_PAPER_LABELS = {
    "A": "A (Figures 1-8; `authors` protocol)",
    "B2": "B2 (Tables 1-11)",
    "B1": "B1 (Table 1, text numbers)",
}

_SIMULATION_STUDIES = ("paper_a_edge", "paper_a_individual")
#: Benchmark folders of a Paper A simulation's stages (one job per block and chunk each; the
#: stages after the data write every protocol's file)
_STAGES = ("data", "noise", "estimates", "metrics")


def _cell(value) -> str:
    text = str(value).replace("\n", " ").strip()
    return text.replace("|", "\\|")


def markdown_table(header: Sequence[str], rows: Iterable[Sequence], align: str) -> str:
    """A GitHub-flavoured Markdown table.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : iterable of sequences
        One sequence of cell values per row, as many as ``header``.
    align : str
        One character per column: ``"l"`` (left) or ``"r"`` (right).

    Raises
    ------
    ValueError
        If a row or ``align`` does not have one entry per column, or there is no row.
    """
    _checks.text(align, "align")
    if len(align) != len(header) or set(align) - {"l", "r"}:
        raise ValueError(f"align {align!r} must be one of 'l'/'r' per column ({len(header)})")
    rule = {"l": "---", "r": "---:"}
    lines = [
        "| " + " | ".join(_cell(h) for h in header) + " |",
        "|" + "|".join(rule[a] for a in align) + "|",
    ]
    for row in rows:
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"row {row} has {len(row)} cells, the header {len(header)}")
        lines.append("| " + " | ".join(_cell(v) for v in row) + " |")
    if len(lines) == 2:
        raise ValueError(f"table {list(header)} has no rows")
    return "\n".join(lines) + "\n"


def _natural(label: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(label))]


def _number(x, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    x = float(x)
    if math.isinf(x):
        return "unbounded"
    if abs(x) >= 1000:
        return f"{x:.3g}"
    return f"{x:.{digits}f}" if abs(x) < 10 else f"{x:.1f}"


# ---------------------------------------------------------------------------
# agreement with the published numbers


def _check_summaries(summaries, name: str) -> None:
    """``summaries`` maps names of :data:`COMPARISONS` to comparison summaries."""
    _checks.mapping(summaries, name)
    for key, frame in summaries.items():
        if key not in COMPARISONS:
            raise ValueError(f"{name}: unknown comparison {key!r}; known: {sorted(COMPARISONS)}")
        _checks.columns(frame, name, ("figure", "within", "compared"))


def _check_items(items, name: str = "items") -> dict:
    """``items`` (the argument ``name``) maps a paper's item names (``fig<N>``, ``table<N>``)
    to their declarations (``workflow/papers/<paper>.yaml``, as loaded: each names its
    ``study``)."""
    _checks.mapping(items, name)
    for item, spec in items.items():
        _checks.mapping(spec, f"{name}[{item!r}]", ("study",))
    return dict(items)


def _check_sections(sections, items: Mapping, name: str = "sections") -> None:
    """``sections`` maps the study of every Paper A item to its config section."""
    _checks.mapping(sections, name, sorted({spec["study"] for spec in items.values()}))
    for study in {spec["study"] for spec in items.values()}:
        _checks.mapping(sections[study], f"{name}[{study!r}]")


def _check_papers(papers, name: str = "papers") -> None:
    """``papers`` holds Paper A's and Paper B2's declarations (``dprank._papers.load_papers``)."""
    _checks.mapping(papers, name, ("paper_a", "paper_b2"))
    for paper in ("paper_a", "paper_b2"):
        _checks.mapping(papers[paper], f"{name}[{paper!r}]", ("items",))
        _check_items(papers[paper]["items"], f"{name}[{paper!r}]['items']")


def _check_b2(section, name: str = "section") -> None:
    """``section`` (the argument ``name``) is the ``paper_b2`` config section."""
    _checks.mapping(section, name, ("experiments",))


def agreement_table(summaries: Mapping[str, pd.DataFrame]) -> str:
    """Cells within tolerance / compared per paper, and where the cells outside are.

    Parameters
    ----------
    summaries : mapping
        Comparison name (a key of :data:`COMPARISONS`) -> its summary
        (``figure``, ``compared``, ``within``; as ``dprank.compare.summary_lines``
        writes it).
    """
    _check_summaries(summaries, "summaries")
    totals: dict[str, list] = {}
    for name, frame in summaries.items():
        if name not in COMPARISONS:
            raise ValueError(f"unknown comparison {name!r}; known: {sorted(COMPARISONS)}")
        paper = COMPARISONS[name]
        t = totals.setdefault(paper, [0, 0, []])
        for _, r in frame.sort_values("figure", key=lambda s: s.map(_natural)).iterrows():
            t[0] += int(r["within"])
            t[1] += int(r["compared"])
            outside = int(r["compared"]) - int(r["within"])
            if outside:
                t[2].append(f"{r['figure']} ({outside})")
    rows = [
        (
            _PAPER_LABELS[paper],
            f"{within} / {compared}",
            ", ".join(where) if where else "none",
        )
        for paper, (within, compared, where) in (
            (p, totals[p]) for p in ("A", "B2", "B1") if p in totals
        )
    ]
    return markdown_table(
        ["Paper", "within / compared", "items with cells outside (cells)"], rows, "lrl"
    )


def fidelity_table(summary: pd.DataFrame) -> str:
    """One line per figure or table of a comparison summary.

    The plotted-points column is shown when it differs from all cells somewhere;
    the largest absolute difference when the summary has it (``-`` where the
    compared values are words, not numbers). A summary without lines (no cell
    of the run's grid is published, as at smoke scale) gives one line saying so.
    """
    _checks.columns(summary, "summary", ("figure", "within", "compared"))
    frame = summary.sort_values("figure", key=lambda s: s.map(_natural))
    plotted = "plotted_compared" in frame and bool(
        (frame["plotted_compared"] != frame["compared"]).any()
    )
    diff = "max_abs_diff" in frame
    header = ["Item", "cells within / compared"]
    header += ["plotted points within / compared"] if plotted else []
    header += ["largest abs. difference"] if diff else []
    rows = []
    if frame.empty:  # e.g. the smoke scale, whose grids miss the published cells
        rows.append(["none compared in this run", "0 / 0"] + ["-"] * (len(header) - 2))
    for _, r in frame.iterrows():
        row = [r["figure"], f"{int(r['within'])} / {int(r['compared'])}"]
        if plotted:
            pc = int(r["plotted_compared"])
            row.append(f"{int(r['plotted_within'])} / {pc}" if pc else "-")
        if diff:
            row.append(_number(r["max_abs_diff"]))
        rows.append(row)
    return markdown_table(header, rows, "l" + "r" * (len(header) - 1))


# ---------------------------------------------------------------------------
# the privacy audit


def audit_table(audit: pd.DataFrame) -> str:
    """Claimed against measured privacy loss, one line per audit of ``privacy.csv``."""
    _checks.columns(
        audit, "audit", ("paper", "audit", "claimed_eps", "lower_bound", "exact_eps", "verdict")
    )
    rows = []
    for _, r in audit.iterrows():
        verdict = str(r["verdict"])
        rows.append(
            [
                {"paper_a": "A", "paper_b": "B", "control": "control"}.get(r["paper"], r["paper"]),
                r["audit"],
                _number(r["claimed_eps"], 3).rstrip("0").rstrip("."),
                _number(r["lower_bound"]),
                _number(r["exact_eps"]),
                f"**{verdict}**"
                if verdict != "consistent" and r["paper"] != "control"
                else verdict,
            ]
        )
    return markdown_table(
        ["Paper", "Mechanism", "claimed eps", "lower bound on eps (95%)", "exact loss", "verdict"],
        rows,
        "llrrrl",
    )


# ---------------------------------------------------------------------------
# the deviations


def deviations_table(entries: Iterable[Mapping], summaries: pd.DataFrame | None = None) -> str:
    """The curated deviations (``resources/deviations.yaml``) with this run's agreement.

    ``summaries`` holds every comparison summary (``figure``, ``within``,
    ``compared``); without it the agreement column reads ``-``.
    """
    entries = _checks.records(
        entries, "entries", ("paper", "item", "departure", "reason", "effect")
    )
    if summaries is not None:
        _checks.columns(summaries, "summaries", ("figure", "within", "compared"))
    rows = []
    for e in entries:
        names = e.get("comparison") or []
        measured = agreement(summaries, names) if names and summaries is not None else "-"
        rows.append([e["paper"], e["item"], e["departure"], e["reason"], e["effect"], measured])
    return markdown_table(
        ["Paper", "Item", "Departure", "Reason", "Measured effect", "Agreement in the run"],
        rows,
        "llllll",
    )


# ---------------------------------------------------------------------------
# runtime from the benchmark files


def _simulation_jobs(
    study: str, section: Mapping, spec: Mapping, bench: Path, chunk_size: int
) -> list[Path]:
    module = study_module(study)
    files = []
    for experiment in spec["experiments"]:
        exp = section["experiments"][experiment]
        base = bench / study / experiment
        chunks = range(module.chunk_count(section, experiment, chunk_size))
        for stage in _STAGES:
            for block in module.block_names(exp):
                files += [base / stage / block / f"chunk{chunk}.tsv" for chunk in chunks]
        files.append(base / "summary.tsv")  # one job writes every protocol's summary
    return files


def _real_data_jobs(spec: Mapping, protocols: Sequence[str], bench: Path) -> list[Path]:
    files = []
    for dataset in spec["experiments"]:
        files += [bench / "data" / f"{dataset}.tsv", bench / "paper_a_real" / dataset / "wins.tsv"]
        base = bench / "paper_a_real" / dataset
        files += [base / protocol / "metrics.tsv" for protocol in protocols]
        files.append(base / "summary.tsv")  # one job writes every protocol's summary
    return files


def paper_a_figures(items: Mapping[str, Mapping]) -> list[str]:
    """Every Paper A figure, in paper order (``fig1`` ...).

    ``items`` are Paper A's declared items (``workflow/papers/paper_a.yaml``: figure ->
    its declaration, with its ``study`` and ``experiments``), as the workflow glue passes them.
    """
    items = _check_items(items)
    return sorted((f for f in items if f.startswith("fig")), key=lambda f: int(f[3:]))


def figure_jobs(
    items: Mapping[str, Mapping],
    sections: Mapping[str, Mapping],
    figure: str,
    bench: str | Path,
    *,
    protocols: Sequence[str],
    chunk_size: int,
) -> list[Path]:
    """Benchmark files of every job a Paper A figure needs (both protocols, its plot job).

    ``items`` are Paper A's declared items (see :func:`paper_a_figures`), ``sections`` maps
    their studies (``paper_a_edge``, ``paper_a_individual``, ``paper_a_real``) to the run's
    config sections, ``protocols`` lists the run's protocols and ``chunk_size`` is the
    workflow's default replicates per job.
    """
    items = _check_items(items)
    _check_sections(sections, items)
    _checks.text(figure, "figure")
    _checks.path(bench, "bench")
    protocols = _checks.strings(protocols, "protocols")
    chunk_size = _checks.count(chunk_size, "chunk_size", 1)
    if figure not in paper_a_figures(items):
        raise ValueError(f"figure must be a Paper A figure of items, got {figure!r}")
    bench, spec = Path(bench), items[figure]
    if spec["study"] == "paper_a_real":
        files = _real_data_jobs(spec, protocols, bench)
    else:
        study = spec["study"]
        files = _simulation_jobs(study, sections[study], spec, bench, chunk_size)
    files.append(bench / "figures" / "paper_a" / f"{figure}.tsv")  # every protocol's plots
    return files


def b2_experiment_jobs(
    section: Mapping, experiment: str, bench: str | Path, *, chunk_size: int
) -> list[Path]:
    """Benchmark files of every job of one B2 experiment (up to its summary).

    ``section`` is the ``paper_b2`` config section, ``chunk_size`` the workflow's
    default replicates per job.
    """
    from dprank.studies import paper_b2

    _check_b2(section)
    _checks.text(experiment, "experiment")
    _checks.path(bench, "bench")
    chunk_size = _checks.count(chunk_size, "chunk_size", 1)
    if experiment not in section["experiments"]:
        raise ValueError(f"experiment must be a B2 experiment of section, got {experiment!r}")
    exp = section["experiments"][experiment]
    base = Path(bench) / "paper_b2" / experiment
    if paper_b2.kind(exp) == "timing":
        return [base / "timing.tsv"]
    files = [
        base / stage / block / f"chunk{chunk}.tsv"
        for stage in ("releases", "metrics")
        for block in paper_b2.cell_names(exp)
        for chunk in range(paper_b2.chunk_count(section, experiment, chunk_size))
    ]
    files.append(base / "replicates.tsv")  # collect_paper_b: replicates.csv and summary.csv
    return files


def b2_products(items: Mapping[str, Mapping], experiment: str) -> str:
    """The B2 figures and tables an experiment feeds, e.g. ``Fig. 4; Table 5``.

    ``items`` are Paper B2's declared items (``workflow/papers/paper_b2.yaml``); tables made
    by a rule of their own (``made_by``) feed on no experiment.
    """
    items = _check_items(items)
    _checks.text(experiment, "experiment")

    def shows(spec) -> bool:
        named = spec.get("experiment", ())
        return experiment in ([named] if isinstance(named, str) else named)

    figs = [f[3:] for f, spec in items.items() if f.startswith("fig") and shows(spec)]
    tables = [t[5:] for t, spec in items.items() if t.startswith("table") and shows(spec)]
    parts = ([f"Fig. {', '.join(figs)}"] if figs else []) + (
        [f"Table {', '.join(tables)}"] if tables else []
    )
    return "; ".join(parts)


def _job_stats(label: str, files: list[Path]) -> tuple[int, float, float]:
    missing = [f for f in files if not f.exists()]
    if missing:
        raise ValueError(
            f"{label}: {len(missing)} of {len(files)} benchmark files are missing from bench, e.g. "
            f"{missing[0]}; run the workflow to completion first"
        )
    frame = pd.concat([pd.read_csv(f, sep="\t") for f in files])
    return len(files), float(frame["s"].sum()), float(frame["max_rss"].max())


def runtime_paper_a_table(
    items: Mapping[str, Mapping],
    sections: Mapping[str, Mapping],
    bench: str | Path,
    *,
    protocols: Sequence[str],
    chunk_size: int,
) -> str:
    """Jobs, summed job seconds and largest RSS of every Paper A figure.

    Arguments as for :func:`figure_jobs`.
    """
    items = _check_items(items)
    _check_sections(sections, items)
    _checks.path(bench, "bench")
    protocols = _checks.strings(protocols, "protocols")
    rows = []
    for figure in paper_a_figures(items):
        files = figure_jobs(
            items, sections, figure, bench, protocols=protocols, chunk_size=chunk_size
        )
        jobs, seconds, rss = _job_stats(figure, files)
        single = items[figure].get("single", False)  # one figure for every protocol
        stem = figure if single else f"{figure}_{{{','.join(protocols)}}}"
        outputs = f"results/figures/paper_a/{stem}.{{pdf,png,csv}}"
        rows.append(
            [
                f"Paper A Fig. {figure.removeprefix('fig')}",
                f"`paper_a_{figure}`",
                f"`{outputs}`",
                jobs,
                f"{seconds:.0f}",
                f"{rss:.0f}",
            ]
        )
    header = ["Figure", "Target rule", "Outputs", "Jobs", "Job seconds (sum)", "Max job RSS (MB)"]
    return markdown_table(header, rows, "lllrrr")


def runtime_paper_b2_table(
    section: Mapping, items: Mapping[str, Mapping], bench: str | Path, *, chunk_size: int
) -> str:
    """Jobs, summed job seconds and largest RSS of every B2 experiment.

    ``section`` is the ``paper_b2`` config section, ``items`` Paper B2's declared items
    (:func:`b2_products`); the other arguments as for :func:`b2_experiment_jobs`.
    """
    _check_b2(section)
    items = _check_items(items)
    _checks.path(bench, "bench")
    rows = []
    for experiment in section["experiments"]:
        files = b2_experiment_jobs(section, experiment, bench, chunk_size=chunk_size)
        jobs, seconds, rss = _job_stats(experiment, files)
        rows.append(
            [
                f"`{experiment}`",
                b2_products(items, experiment),
                jobs,
                f"{seconds:.0f}",
                f"{rss:.0f}",
            ]
        )
    header = ["B2 experiment", "Feeds", "Jobs", "Job seconds (sum)", "Max job RSS (MB)"]
    return markdown_table(header, rows, "llrrr")


# ---------------------------------------------------------------------------
# all of them


def write_includes(
    outdir: str | Path,
    *,
    papers: Mapping[str, Mapping],
    sections: Mapping[str, Mapping],
    protocols: Sequence[str],
    chunk_size: int,
    bench: str | Path,
    summaries: Mapping[str, pd.DataFrame],
    audit: pd.DataFrame,
    deviations: Sequence[Mapping],
) -> list[Path]:
    """Write every include into ``outdir``; returns the paths written.

    Parameters
    ----------
    outdir : path
        ``docs/includes``.
    papers : mapping
        The paper declarations (``workflow/papers/<paper>.yaml`` as loaded, paper -> its
        declaration with its ``items``): Paper A's figures and Paper B2's figures and tables
        (the runtime tables' rows and what each B2 experiment feeds).
    sections : mapping
        The run's config sections of the studies they show (``paper_a_edge``,
        ``paper_a_individual``, ``paper_a_real``, ``paper_b2``).
    protocols : sequence of str
        The run's Paper A protocols.
    chunk_size : int
        The run's default replicates per job.
    bench : path
        ``results/benchmarks``.
    summaries : mapping
        Comparison name (``paper_a_edge``, ``paper_a_individual``, ``paper_b2``,
        ``paper_b1``) -> its ``results/comparison/<name>_summary.csv``.
    audit : DataFrame
        ``results/audit/privacy.csv``.
    deviations : sequence of mappings
        The entries of ``resources/deviations.yaml``.
    """
    _checks.path(outdir, "outdir")
    _check_papers(papers)
    a_items, b2_items = papers["paper_a"]["items"], papers["paper_b2"]["items"]
    _check_sections(sections, a_items)
    _checks.mapping(sections, "sections", ("paper_b2",))
    _check_b2(sections["paper_b2"], "sections['paper_b2']")
    protocols = _checks.strings(protocols, "protocols")
    chunk_size = _checks.count(chunk_size, "chunk_size", 1)
    _checks.path(bench, "bench")
    _check_summaries(summaries, "summaries")
    _checks.frame(audit, "audit")
    deviations = _checks.records(
        deviations, "deviations", ("paper", "item", "departure", "reason", "effect")
    )
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    every = pd.concat(list(summaries.values()), ignore_index=True)
    texts = {
        "runtime_paper_a.md": runtime_paper_a_table(
            a_items, sections, bench, protocols=protocols, chunk_size=chunk_size
        ),
        "runtime_paper_b2.md": runtime_paper_b2_table(
            sections["paper_b2"], b2_items, bench, chunk_size=chunk_size
        ),
        "agreement.md": agreement_table(summaries),
        "audit.md": audit_table(audit),
        "deviations.md": deviations_table(deviations, every),
    }
    for name, frame in summaries.items():
        texts[f"fidelity_{name}.md"] = fidelity_table(frame)
    written = []
    for name, text in texts.items():
        path = outdir / name
        tmp = path.with_suffix(".md.tmp")
        tmp.write_text(HEADER + text)
        tmp.replace(path)
        written.append(path)
    return written


def write_intervals_include(path: str | Path, summary: pd.DataFrame) -> Path:
    """Write ``docs/includes/intervals_coverage.md``: the intervals' coverage table.

    From the study's summary (``results/tables/intervals/coverage.csv``,
    :func:`dprank.studies.intervals.summarise`), by the rule ``intervals_docs``.
    """
    from dprank.studies.intervals import coverage_table

    _checks.path(path, "path")
    _checks.frame(summary, "summary")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(HEADER + coverage_table(summary))
    tmp.replace(path)
    return path
