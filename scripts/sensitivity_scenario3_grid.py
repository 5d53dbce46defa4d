"""Rule ``sensitivity_scenario3_grid``: Scenario III on the eps0 grid at one p and model."""

import time

from dprank.base.io import write_csv
from dprank_papers.studies.paper_b2.scenarios import FitSettings
from dprank_papers.studies.paper_b2.sensitivity import scenario3_grid
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    start = time.perf_counter()
    frame = scenario3_grid(
        job["seed"], job["experiment"], job["exp"], job["model"], job["p"], job["eps0"],
        range(job["reps"]),
        FitSettings(job["lambda_c"], job["solver"]["gtol"], job["solver"]["max_iter"]),
        job["grid"],
    )  # fmt: skip
    log.info(
        "%s, p = %g: %d eps0 x %d replicates in %.1f s",
        job["model"], job["p"], len(job["eps0"]), job["reps"], time.perf_counter() - start,
    )  # fmt: skip
    write_csv(snakemake.output[0], frame)
