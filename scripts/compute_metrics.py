"""Rule ``compute_metrics``: tidy per-replicate errors of one chunk (one row per metric value)."""

from dprank.io import load_arrays, write_csv
from dprank.studies import study_module
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    w = snakemake.wildcards
    data = load_arrays(snakemake.input.data)
    estimates = load_arrays(snakemake.input.estimates)
    stage = study_module(w.study, "evaluate")
    frame = stage.metrics_chunk(data["theta"], data["replicate"], estimates, **snakemake.params.job)
    frame.insert(0, "protocol", w.protocol)
    frame.insert(0, "experiment", w.experiment)
    log.info("%d metric rows", len(frame))
    write_csv(snakemake.output[0], frame)
