"""Rule ``estimate``: fit every method at every epsilon on one chunk of data sets of a block,
for each protocol (its own noise file and estimates file).

The estimates file also carries each cell's true scores and replicate indices
(``theta``, ``replicate``), so that the metrics stage reads it alone and the
data file can be a temporary one.
"""

import numpy as np

from dprank.base.io import load_arrays, save_arrays
from dprank_papers.studies import cell_arrays, study_module, with_prefix
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    data = load_arrays(snakemake.input.data)
    stage = study_module(snakemake.wildcards.study, "estimate")
    for protocol in snakemake.params.protocols:
        noise = load_arrays(snakemake.input[f"noise_{protocol}"])
        arrays = {}
        for i, kwargs in enumerate(snakemake.params.job[protocol]["cells"]):
            cell_data = cell_arrays(data, i)
            out = stage.estimate_chunk(
                cell_data["wins"], cell_arrays(noise, i), truth=cell_data["theta"], **kwargs
            )
            if "converged" in out:
                failed = int(np.size(out["converged"]) - np.count_nonzero(out["converged"]))
                log.info(
                    "%s, cell %s: fits %d, not converged %d, Newton iterations mean %.2f max %d",
                    protocol,
                    kwargs["cell"],
                    out["converged"].size,
                    failed,
                    out["n_iter"].mean(),
                    out["n_iter"].max(),
                )
                if failed:
                    log.warning(
                        "%d fits did not converge; they are kept and counted (metric 'converged')",
                        failed,
                    )
            out.update(theta=cell_data["theta"], replicate=cell_data["replicate"])
            arrays.update(with_prefix(i, out))
        save_arrays(snakemake.output[protocol], compress=True, **arrays)
