"""Rule ``compute_metrics``: tidy per-replicate errors of one block and chunk (a row per
value), one file per protocol."""

import pandas as pd

from dprank.base.io import load_arrays, write_csv
from dprank_papers.studies import cell_arrays, study_module
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    w = snakemake.wildcards
    stage = study_module(w.study, "evaluate")
    for protocol in snakemake.params.protocols:
        estimates = load_arrays(snakemake.input[f"estimates_{protocol}"])
        frames = []
        for i, kwargs in enumerate(snakemake.params.job[protocol]["cells"]):
            est = cell_arrays(estimates, i)
            frames.append(stage.metrics_chunk(est["theta"], est["replicate"], est, **kwargs))
        frame = pd.concat(frames, ignore_index=True)
        frame.insert(0, "protocol", protocol)
        frame.insert(0, "experiment", w.experiment)
        log.info("%s: %d cells, %d metric rows", protocol, len(frames), len(frame))
        write_csv(snakemake.output[protocol], frame)
