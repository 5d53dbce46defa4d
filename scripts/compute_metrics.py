"""Rule ``compute_metrics``: tidy per-replicate errors of one block and chunk (a row per value)."""

import pandas as pd

from dprank.io import load_arrays, write_csv
from dprank.studies import cell_arrays, study_module
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    w = snakemake.wildcards
    estimates = load_arrays(snakemake.input.estimates)
    stage = study_module(w.study, "evaluate")
    frames = []
    for i, kwargs in enumerate(snakemake.params.job["cells"]):
        est = cell_arrays(estimates, i)
        frames.append(stage.metrics_chunk(est["theta"], est["replicate"], est, **kwargs))
    frame = pd.concat(frames, ignore_index=True)
    frame.insert(0, "protocol", w.protocol)
    frame.insert(0, "experiment", w.experiment)
    log.info("%d cells, %d metric rows", len(frames), len(frame))
    write_csv(snakemake.output[0], frame)
