"""Rule ``sensitivity_figure``: the sensitivity study's figure and the numbers it plots."""

from dprank.base.io import read_csv, write_csv
from dprank_papers.plotting.sensitivity import plot_sensitivity
from dprank_papers.plotting.style import save_figure
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    fig, numbers = plot_sensitivity(
        read_csv(snakemake.input.curve),
        read_csv(snakemake.input.fit),
        read_csv(snakemake.input.cells),
        snakemake.params.default5,
    )
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
    write_csv(snakemake.output.csv, numbers)
    log.info("%d plotted points", len(numbers))
