"""Rule ``compare_paper_a_edge``: authors-protocol means of Figures 1-4 beside the published ones.

Writes one row per published cell (difference, tolerance and verdict) and a
per-figure summary (cells within tolerance / cells compared).
"""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.compare import compare_edge, summary_lines
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    published = pd.concat([read_csv(f) for f in snakemake.input.published], ignore_index=True)
    ours = pd.concat([read_csv(f) for f in snakemake.input.summaries], ignore_index=True)
    overlap = read_csv(snakemake.input.overlap)
    table = compare_edge(published, ours, overlap, z=snakemake.params.z)
    summary = summary_lines(table)
    for _, r in summary.iterrows():
        log.info("%s: %d/%d cells within tolerance", r["figure"], r["within"], r["compared"])
    write_csv(snakemake.output.table, table)
    write_csv(snakemake.output.summary, summary)
