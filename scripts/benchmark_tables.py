"""Rule ``benchmark_tables``: eps-threshold table, per-method timing and notes, the default
method of each privacy level (dprank_papers.default_methods), findings.

The CSVs keep the registry's method names; the printed tables (``.md``, ``.tex``
and the report's HTML pages) and the findings call each method by its label."""

import html
import json

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.default_methods import ranking
from dprank_papers.studies import benchmark as bm
from dprank_papers.tables import to_html, to_latex, to_markdown
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    summary = pd.concat([read_csv(p) for p in snakemake.input.summaries], ignore_index=True)
    notes = pd.DataFrame([json.loads(open(p).read()) for p in snakemake.input.notes])
    labels = bm.method_labels(notes.to_dict("records"))
    table = bm.threshold_table(summary, job["thresholds"])
    write_csv(snakemake.output.csv, table)
    wide = bm.threshold_markdown_frame(table, labels)
    caption = (
        "Smallest eps (of the grid) at which each method's mean Kendall distance to the "
        "reference ranking is at most the threshold; in brackets the same for mean - 1.96 se "
        "and mean + 1.96 se over the replicates. " + bm.ACCOUNTING
    )
    with atomic_path(snakemake.output.md) as tmp:
        tmp.write_text(to_markdown(wide, caption))
    with atomic_path(snakemake.output.tex) as tmp:
        tmp.write_text(to_latex(wide, caption, "benchmark-thresholds"))
    with atomic_path(snakemake.output.thresholds_html) as tmp:
        tmp.write_text(to_html(wide, caption, note=False, title="Benchmark: eps thresholds"))
    cols = ["dataset", "method", "trust_model", "privacy_unit", "status", "fits"]
    cols += ["seconds_per_fit", "message"]
    write_csv(snakemake.output.timing, notes[cols])
    timing_caption = (
        "Every method on every data set: whether it ran (ok; not_applicable: the method "
        "cannot run on these data, with the reason; failed: with benchmark.allow_failures), "
        "its fits (eps values x replicates x accountings) and the mean seconds per fit."
    )
    # the printed reasons call the method by its label alone: the method's own message
    # ("method <registry name> needs ...", kept in the CSV) loses its first words
    shown = notes.assign(
        message=[
            m.replace(f"method {name} ", "", 1) if isinstance(m, str) else m
            for name, m in zip(notes["method"], notes["message"], strict=True)
        ]
    )
    with atomic_path(snakemake.output.timing_html) as tmp:
        timing = bm.timing_frame(shown)
        tmp.write_text(to_html(timing, timing_caption, note=False, title="Benchmark: timing"))
    defaults = ranking(summary)
    write_csv(snakemake.output.defaults, defaults)
    defaults_caption = (
        "The default method of each privacy level of dprank rank: the methods of a level are "
        "ranked by mean Kendall distance in every cell (data set, eps per user) and scored by "
        "their mean rank; the default is the best method that may be one. python -m "
        "dprank_papers.docs_includes writes it into the command "
        "(src/dprank/methods/_default_methods.py)."
    )
    shown_defaults = pd.DataFrame(
        {
            "privacy": defaults["privacy"],
            "method": defaults["label"],
            "mean rank in its level": defaults["mean_rank"].map("{:.2f}".format),
            "mean Kendall distance": defaults["mean_kendall"].map("{:.3f}".format),
            "cells": defaults["cells"].astype(str),
            "may be a default": defaults["candidate"].map({True: "yes", False: "no"}),
            "default": defaults["default"].map({True: "default", False: ""}),
        }
    ).set_index(["privacy", "method"])
    with atomic_path(snakemake.output.defaults_html) as tmp:
        tmp.write_text(
            to_html(shown_defaults, defaults_caption, note=False, title="Benchmark: defaults")
        )
    max_eps = max(job["epsilon"])
    findings = [bm.finding(d, table, summary, max_eps, labels) for d in job["datasets"]]
    for n in shown[shown["status"] != "ok"].itertuples():
        status = str(n.status).replace("_", " ")
        findings.append(f"{n.dataset}: {labels[n.method]} did not run ({status}): {n.message}")
    se = summary[summary["metric"] == "kendall"]["se"].max()
    findings.append(f"Largest standard error of a mean Kendall distance: {se:.4f}.")
    with atomic_path(snakemake.output.findings) as tmp:
        tmp.write_text("\n\n".join(findings) + "\n")
    with atomic_path(snakemake.output.html) as tmp:
        body = "".join(f"<p>{html.escape(p)}</p>\n" for p in findings)
        tmp.write_text(f"<html><body><h2>Benchmark findings</h2>\n{body}</body></html>\n")
    log.info("%d findings", len(findings))
