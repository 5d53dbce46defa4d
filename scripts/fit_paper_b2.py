"""Rule ``fit_paper_b2``: ADRR estimates (B2 objective (5)) and their errors for one chunk."""

from dprank.io import load_arrays, write_csv
from dprank.studies import paper_b2
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    data = load_arrays(snakemake.input.releases)
    frame = paper_b2.estimate_chunk(data, **snakemake.params.job)
    converged = frame[frame["metric"] == "converged"]["value"]
    log.info("fits: %d, not converged: %d", len(converged), int((converged == 0).sum()))
    frame.insert(0, "experiment", snakemake.wildcards.experiment)
    write_csv(snakemake.output[0], frame)
