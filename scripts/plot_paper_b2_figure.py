"""Rule ``plot_paper_b2_figure``: a Paper B (B2) simulation figure (Figures 4, 6, 7, 11, 12)."""

from dprank.io import atomic_path, read_csv, write_csv
from dprank.plotting.paper_b import draw_b2_figure, figure_data
from dprank.plotting.style import save_figure
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    spec = snakemake.params.figure
    data = figure_data(read_csv(snakemake.input.summary), spec)
    log.info("%s: %d plotted points", snakemake.wildcards.figure, len(data))
    fig = draw_b2_figure(data, spec)
    with atomic_path(snakemake.output.pdf) as pdf, atomic_path(snakemake.output.png) as png:
        save_figure(fig, pdf, png)
    write_csv(snakemake.output.csv, data)
