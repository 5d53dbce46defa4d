"""Rule ``privatize``: the mechanisms' noise draws for one block of cells, chunk and protocol."""

from dprank.io import save_arrays
from dprank.studies import study_module, with_prefix
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    stage = study_module(snakemake.wildcards.study, "privatize")
    arrays = {}
    for i, kwargs in enumerate(snakemake.params.job["cells"]):
        cell = stage.privatize_chunk(**kwargs)
        log.info("cell %s: epsilons %s", kwargs["cell"], cell["epsilon"].tolist())
        arrays.update(with_prefix(i, cell))
    save_arrays(snakemake.output[0], **arrays)
