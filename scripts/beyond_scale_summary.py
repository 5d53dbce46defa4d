"""Rule ``beyond_scale_summary``: means and standard errors, and the fit of Theorem 2.1's rate."""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.studies.beyond_scale import fit_rate, summarise
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    frame = pd.concat([read_csv(f) for f in snakemake.input.metrics], ignore_index=True)
    summary = summarise(frame)
    fit = fit_rate(summary)
    logs = summary[summary["metric"].str.startswith("log_")]
    log.info("largest standard error of a log-scale metric: %.4f", logs["se"].max())
    log.info("rate fit:\n%s", fit.to_string(index=False))
    write_csv(snakemake.output.summary, summary)
    write_csv(snakemake.output.fit, fit)
