"""Rule ``deviations``: the deviations page of the report, with this run's agreement."""

import pandas as pd

from dprank.base.io import atomic_path, read_csv
from dprank_papers.report import deviations_html, load_deviations
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    entries = load_deviations(snakemake.input.deviations)
    summaries = pd.concat([read_csv(f) for f in snakemake.input.summaries], ignore_index=True)
    with atomic_path(snakemake.output[0]) as tmp:
        tmp.write_text(deviations_html(entries, summaries))
    log.info("%d deviations", len(entries))
