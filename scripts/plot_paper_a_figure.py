"""Rule ``plot_paper_a_figure``: Paper A Figures 1-7 (all panels) from the aggregated summaries.

Writes the figure as PDF and PNG and, beside it, the CSV of every plotted number; where the
comparison runs (the authors protocol is configured), also the overlay version: the published
points as hollow markers over our curves, redrawn from that CSV.
"""

from dprank.io import atomic_path, read_csv, write_csv
from dprank.plotting.overlay import draw_overlay
from dprank.plotting.paper_a import draw_figure, figure_data
from dprank.plotting.style import save_figure
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    w, out = snakemake.wildcards, snakemake.output
    summaries = [read_csv(f) for f in snakemake.input.summaries]
    data = figure_data(w.figure, summaries, snakemake.params.figure, w.protocol)
    log.info("%s (%s protocol): %d plotted points", w.figure, w.protocol, len(data))
    fig = draw_figure(w.figure, data)
    with atomic_path(out.pdf) as pdf, atomic_path(out.png) as png:
        save_figure(fig, pdf, png)
    write_csv(out.csv, data)
    if "overlay_pdf" in out.keys():
        fig, shown = draw_overlay(w.figure, read_csv(out.csv), read_csv(snakemake.input.comparison))
        log.info("overlay: %d published points", shown)
        with atomic_path(out.overlay_pdf) as pdf, atomic_path(out.overlay_png) as png:
            save_figure(fig, pdf, png)
