"""Rule ``arena_cell``: one data set, privacy model and budget of the price-of-privacy study."""

import time

from dprank.base.io import write_csv
from dprank_papers.studies.arena import load_votes, run_cell
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    start = time.perf_counter()
    votes = load_votes(job["dataset"], snakemake.input.data, job["both_bad"])
    frame = run_cell(
        votes, job["dataset"], job["privacy"], job["epsilon"], range(job["reps"]),
        job["seed"], job["settings"],
    )  # fmt: skip
    log.info(
        "%s, %s, eps %s: %d replicates in %.1f s",
        job["dataset"], job["privacy"], job["epsilon"], job["reps"], time.perf_counter() - start,
    )  # fmt: skip
    write_csv(snakemake.output[0], frame)
