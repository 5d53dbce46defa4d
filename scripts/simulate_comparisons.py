"""Rule ``simulate_comparisons``: true scores and comparison data of one block of cells and chunk.

Writes an ``.npz`` with, for the ``i``-th cell of the block, ``c<i>__theta`` (R, n),
``c<i>__wins`` (R, n, n) and ``c<i>__replicate`` (R,).
"""

from dprank.base.io import save_arrays
from dprank_papers.studies import study_module, with_prefix
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    stage = study_module(snakemake.wildcards.study, "simulate")
    arrays = {}
    for i, kwargs in enumerate(snakemake.params.job["cells"]):
        cell = stage.simulate_chunk(**kwargs)
        reps = kwargs["replicates"]
        log.info(
            "cell %s: replicates %s..%s, wins %s",
            kwargs["cell"],
            reps[0],
            reps[-1],
            cell["wins"].shape,
        )
        arrays.update(with_prefix(i, cell))
    save_arrays(snakemake.output[0], **arrays)
