"""Rule ``privatize``: the mechanisms' noise draws for one block of cells and chunk, one file
per protocol."""

from dprank.base.io import save_arrays
from dprank_papers.studies import study_module, with_prefix
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    stage = study_module(snakemake.wildcards.study, "privatize")
    for protocol in snakemake.params.protocols:
        arrays = {}
        for i, kwargs in enumerate(snakemake.params.job[protocol]["cells"]):
            cell = stage.privatize_chunk(**kwargs)
            log.info("%s, cell %s: epsilons %s", protocol, kwargs["cell"], cell["epsilon"].tolist())
            arrays.update(with_prefix(i, cell))
        save_arrays(snakemake.output[protocol], **arrays)
