"""Rule ``sensitivity_scenario5``: Scenario V on the (h, c) grid at one p and model."""

import time

from dprank.base.io import write_csv
from dprank_papers.studies.paper_b2.sensitivity import scenario5_grid
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    start = time.perf_counter()
    frame = scenario5_grid(
        job["seed"], job["experiment"], job["exp"], job["model"], job["p"], job["theta_half"],
        job["lambda_cs"], range(job["reps"]), job["solver"]["gtol"], job["solver"]["max_iter"],
    )  # fmt: skip
    log.info(
        "%s, p = %g: %d h x %d c x %d replicates in %.1f s",
        job["model"], job["p"], len(job["theta_half"]), len(job["lambda_cs"]), job["reps"],
        time.perf_counter() - start,
    )  # fmt: skip
    write_csv(snakemake.output[0], frame)
