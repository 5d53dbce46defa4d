"""Rule ``real_data_metrics``: Paper A Figure 8, private versus non-private rankings of a data set.

Reads the data set's win matrix and writes the per-release mean rank differences
of the perturbed MLE and the noisy counts at every epsilon (tidy CSV).
"""

from dprank.base.io import read_csv, write_csv
from dprank_papers.studies.paper_a_real import real_data_metrics
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    wins = read_csv(snakemake.input.wins)
    wins = wins.set_index(wins.columns[0])  # first column: the row item
    frame = real_data_metrics(wins.to_numpy(), **snakemake.params.job)
    failed = frame[(frame["metric"] == "converged") & (frame["value"] == 0)]
    log.info(
        "%s: %d x %d win matrix, %d rows, %d fits not converged",
        snakemake.wildcards.dataset,
        *wins.shape,
        len(frame),
        len(failed),
    )
    write_csv(snakemake.output[0], frame)
