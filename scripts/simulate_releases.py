"""Rule ``simulate_releases``: Paper B users' private releases, as per-pair sufficient statistics.

Writes an ``.npz`` with ``theta`` (R, m), ``B`` (R,), ``S`` and ``N`` (R, P) and
``replicate`` (R,) for one cell and chunk.
"""

from dprank.io import save_arrays
from dprank.studies import paper_b2
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    kwargs = dict(snakemake.params.job)
    arrays = paper_b2.simulate_chunk(**kwargs)
    log.info(
        "%s: replicates %d, S %s", snakemake.wildcards.cell, len(arrays["B"]), arrays["S"].shape
    )
    save_arrays(snakemake.output[0], **arrays)
