"""Rule ``intervals_table``: coverage, widths and calibration per design (CSV and Markdown)."""

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.studies.intervals import coverage_markdown, summarise
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    frame = pd.concat([read_csv(f) for f in snakemake.input.rows], ignore_index=True)
    p = snakemake.params
    summary = summarise(frame, p.designs, p.target, p.item_target)
    log.info("coverage:\n%s", summary.to_string(index=False))
    write_csv(snakemake.output.csv, summary)
    with atomic_path(snakemake.output.md) as tmp:
        tmp.write_text(coverage_markdown(summary, p.level, p.target, p.item_target))
