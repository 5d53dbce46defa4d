"""Rule ``benchmark_figure``: one data set's figure (error versus eps) and its numbers."""

import json

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.plotting.benchmark import plot_benchmark, save_figure
from dprank_papers.studies import benchmark as bm
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    rows = [read_csv(p) for p in snakemake.input.rows]
    rows = pd.concat([r for r in rows if len(r)], ignore_index=True)
    notes = [json.loads(open(p).read()) for p in snakemake.input.notes]
    summary = bm.summarise(rows)
    write_csv(snakemake.output.csv, summary)
    d = notes[0]
    labels = bm.method_labels(notes)
    skipped = [
        f"{labels[n['method']]}: {n['status'].replace('_', ' ')}"
        for n in notes
        if n["status"] != "ok"
    ]
    title = (
        f"{d['dataset']}: {d['items']} items, {d['users']} users, L = {d['L']} "
        f"(reference: {d['reference']})"
    )
    note = bm.ACCOUNTING + (f" Not shown: {'; '.join(skipped)}." if skipped else "")
    fig = plot_benchmark(summary, title, note, labels)
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
    k = summary[summary["metric"] == "kendall"]
    log.info("largest se of the Kendall distance: %.4f", k["se"].max())
