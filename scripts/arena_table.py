"""Rule ``arena_table``: the price of privacy per data set, privacy model and budget."""

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.studies.arena import price_markdown, summarise
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    frame = pd.concat([read_csv(f) for f in snakemake.input.rows], ignore_index=True)
    summary = summarise(frame)
    log.info("price of privacy:\n%s", summary.to_string(index=False))
    write_csv(snakemake.output.csv, summary)
    with atomic_path(snakemake.output.md) as tmp:
        tmp.write_text(price_markdown(summary, snakemake.params.level))
