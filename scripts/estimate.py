"""Rule ``estimate``: fit every method at every epsilon on one chunk of data sets."""

import numpy as np

from dprank.io import load_arrays, save_arrays
from dprank.studies import study_module
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    data = load_arrays(snakemake.input.data)
    noise = load_arrays(snakemake.input.noise)
    stage = study_module(snakemake.wildcards.study, "estimate")
    out = stage.estimate_chunk(data["wins"], noise, **snakemake.params.job)
    if "converged" in out:
        failed = int(np.size(out["converged"]) - np.count_nonzero(out["converged"]))
        log.info(
            "fits: %d, not converged: %d, Newton iterations mean %.2f max %d",
            out["converged"].size,
            failed,
            out["n_iter"].mean(),
            out["n_iter"].max(),
        )
        if failed:
            log.warning(
                "%d fits did not converge; they are kept and counted (metric 'converged')", failed
            )
    save_arrays(snakemake.output[0], **out)
