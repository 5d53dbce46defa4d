"""Rule ``aggregate_metrics``: mean, sd, se and replicate count per cell, method, metric."""

import pandas as pd

from dprank.aggregate import summarise
from dprank.io import read_csv, write_csv
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    files = snakemake.input.metrics
    files = [files] if isinstance(files, str) else list(files)  # one file or a list of chunks
    frame = pd.concat([read_csv(f) for f in files], ignore_index=True)
    summary = summarise(frame)
    log.info("%d metric rows -> %d summary rows", len(frame), len(summary))
    write_csv(snakemake.output[0], summary)
