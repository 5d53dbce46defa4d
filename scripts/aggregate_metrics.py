"""Rules ``aggregate_metrics`` and ``aggregate_real_data``: mean, sd, se and replicate count
per cell, method and metric, for each protocol (one summary file per protocol)."""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.aggregate import summarise
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    for protocol in snakemake.params.protocols:
        files = snakemake.input[f"metrics_{protocol}"]
        files = [files] if isinstance(files, str) else list(files)  # one file or the chunks
        frame = pd.concat([read_csv(f) for f in files], ignore_index=True)
        summary = summarise(frame)
        log.info("%s: %d metric rows -> %d summary rows", protocol, len(frame), len(summary))
        write_csv(snakemake.output[protocol], summary)
