"""Rule ``intervals_figure``: the coverage study's figure and the numbers it plots."""

from dprank.base.io import read_csv, write_csv
from dprank_papers.plotting.intervals import plot_coverage
from dprank_papers.plotting.style import save_figure
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summary = read_csv(snakemake.input.table)
    p = snakemake.params
    fig, numbers = plot_coverage(summary, p.level, p.target, p.item_target)
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
    write_csv(snakemake.output.csv, numbers)
    log.info("%d plotted bars", len(numbers))
