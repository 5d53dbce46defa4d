"""Rule ``plot_paper_a_figure``: Paper A Figures 1-7 (all panels) from the aggregated summaries.

Writes the figure as PDF and PNG and, beside it, the CSV of every plotted number.
"""

from dprank.io import atomic_path, read_csv, write_csv
from dprank.plotting.paper_a import draw_figure, figure_data
from dprank.plotting.style import save_figure
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    w = snakemake.wildcards
    summaries = [read_csv(f) for f in snakemake.input.summaries]
    data = figure_data(w.figure, summaries, snakemake.params.figure, w.protocol)
    log.info("%s (%s protocol): %d plotted points", w.figure, w.protocol, len(data))
    fig = draw_figure(w.figure, data)
    with atomic_path(snakemake.output.pdf) as pdf, atomic_path(snakemake.output.png) as png:
        save_figure(fig, pdf, png)
    write_csv(snakemake.output.csv, data)
