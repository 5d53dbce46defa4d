"""Rule ``beyond_scale_chunk``: Algorithms 1 and 2 on a chunk of replicates of one n."""

import time

from dprank.base.io import write_csv
from dprank_papers.studies.beyond_scale import run_chunk
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    start = time.perf_counter()
    frame = run_chunk(
        job["n"], job["degree"], job["epsilons"], job["replicates"], job["seed"],
        **job["constants"], xtol=job["solver"]["xtol"], max_iter=job["solver"]["max_iter"],
    )  # fmt: skip
    log.info(
        "n = %d: %d replicates x %d eps in %.1f s",
        job["n"], len(job["replicates"]), len(job["epsilons"]), time.perf_counter() - start,
    )  # fmt: skip
    write_csv(snakemake.output[0], frame)
