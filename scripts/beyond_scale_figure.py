"""Rule ``beyond_scale_figure``: the scale study's figure and the numbers it plots."""

from dprank.base.io import read_csv, write_csv
from dprank_papers.plotting.beyond_scale import plot_scale
from dprank_papers.plotting.style import save_figure
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summary = read_csv(snakemake.input.summary)
    fit = read_csv(snakemake.input.fit)
    fig, numbers = plot_scale(summary, fit, snakemake.params.degree)
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
    write_csv(snakemake.output.csv, numbers)
    log.info("%d plotted points", len(numbers))
