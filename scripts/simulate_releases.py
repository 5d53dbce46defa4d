"""Rule ``simulate_releases``: Paper B (B2) data of one cell and chunk.

Private experiments store the users' releases as per-pair sufficient
statistics (``theta``, ``B``, ``S``, ``N``, ...); the non-private studies of
the supplement store their raw data (see :mod:`dprank_papers.studies.paper_b2`).
"""

from dprank.base.io import save_arrays
from dprank_papers.studies import paper_b2
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    kwargs = dict(snakemake.params.job)
    arrays = paper_b2.simulate_block(**kwargs)
    log.info(
        "%s (%s): %d cells x %d replicates, %.1f MB",
        snakemake.wildcards.cell,
        kwargs["kind"],
        len(kwargs["cells"]),
        len(kwargs["replicates"]),
        sum(a.nbytes for a in arrays.values()) / 1e6,
    )
    save_arrays(snakemake.output[0], **arrays)
