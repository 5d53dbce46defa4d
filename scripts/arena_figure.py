"""Rule ``arena_figure``: the price of privacy, four metrics against epsilon."""

from dprank.base.io import read_csv, write_csv
from dprank_papers.plotting.arena import plot_price_of_privacy
from dprank_papers.plotting.style import save_figure
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summary = read_csv(snakemake.input.table)
    fig, numbers = plot_price_of_privacy(summary, snakemake.params.level)
    save_figure(fig, snakemake.output.pdf, snakemake.output.png)
    write_csv(snakemake.output.csv, numbers)
    log.info("%d plotted points", len(numbers))
