"""Rule ``privatize``: the privacy mechanisms' noise draws for one cell, chunk and protocol."""

from dprank.io import save_arrays
from dprank.studies import study_module
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    kwargs = dict(snakemake.params.job)
    stage = study_module(snakemake.wildcards.study, "privatize")
    arrays = stage.privatize_chunk(**kwargs)
    log.info("protocol %s, epsilons %s", kwargs["protocol"], arrays["epsilon"].tolist())
    save_arrays(snakemake.output[0], **arrays)
