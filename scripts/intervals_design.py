"""Rule ``intervals_design``: one design of the coverage study, every replicate."""

import time

from dprank.base.io import write_csv
from dprank_papers.studies.intervals import run_design
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    start = time.perf_counter()
    frame = run_design(job["design"], job["spec"], job["settings"], range(job["reps"]), job["seed"])
    log.info("%s: %d replicates in %.1f s", job["design"], job["reps"], time.perf_counter() - start)
    write_csv(snakemake.output[0], frame)
