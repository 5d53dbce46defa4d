"""Rule ``fit_paper_b``: Paper B (B1, B2) estimates and errors of one block of cells and chunk."""

from dprank.base.io import load_arrays, write_csv
from dprank_papers.studies import paper_b2
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    data = load_arrays(snakemake.input.releases)
    frame = paper_b2.estimate_block(data, **snakemake.params.job)
    converged = frame[frame["metric"] == "converged"]["value"]
    log.info("fits: %d, not converged: %d", len(converged), int((converged == 0).sum()))
    frame.insert(0, "experiment", snakemake.wildcards.experiment)
    write_csv(snakemake.output[0], frame)
