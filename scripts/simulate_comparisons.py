"""Rule ``simulate_comparisons``: true scores and comparison data of one cell and chunk.

Writes an ``.npz`` with ``theta`` (R, n), ``wins`` (R, n, n) and ``replicate`` (R,).
"""

from dprank.io import save_arrays
from dprank.studies import study_module
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    kwargs = dict(snakemake.params.job)
    stage = study_module(snakemake.wildcards.study, "simulate")
    arrays = stage.simulate_chunk(**kwargs)
    log.info(
        "replicates %s..%s, wins %s",
        kwargs["replicates"][0],
        kwargs["replicates"][-1],
        arrays["wins"].shape,
    )
    save_arrays(snakemake.output[0], **arrays)
