"""Rule ``compare_paper_a_individual``: authors-protocol means of Figures 5-8 beside the paper's.

The published numbers are digitised from the paper's figures (and, for Figure 7,
a printed rerun table); writes one row per published point and a per-figure
summary (points within tolerance / points compared).
"""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.compare import (
    INDIVIDUAL_EXPERIMENTS,
    compare_individual,
    compare_real,
    summary_lines,
)
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    digitized = read_csv(snakemake.input.digitized)
    printed = read_csv(snakemake.input.printed)
    ours = pd.concat([read_csv(f) for f in snakemake.input.summaries], ignore_index=True)
    real = pd.concat([read_csv(f) for f in snakemake.input.real], ignore_index=True)
    simulated = digitized[digitized["figure"].isin(list(INDIVIDUAL_EXPERIMENTS))]
    table = pd.concat(
        [
            compare_individual(simulated, printed, ours, z=snakemake.params.z),
            compare_real(digitized[digitized["figure"] == "Figure 8"], real, z=snakemake.params.z),
        ],
        ignore_index=True,
    )
    summary = summary_lines(table)
    for _, r in summary.iterrows():
        log.info("%s: %d/%d points within tolerance", r["figure"], r["within"], r["compared"])
    write_csv(snakemake.output.table, table)
    write_csv(snakemake.output.summary, summary)
