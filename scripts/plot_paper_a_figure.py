"""Rule ``plot_paper_a_figure``: one Paper A figure (all panels) for every protocol, from the
aggregated summaries.

Writes, per protocol, the figure as PDF and PNG and, beside it, the CSV of every plotted
number; where the comparison runs (the authors protocol is configured), also the overlay
version: the published points as hollow markers over our curves, redrawn from that CSV.
"""

from dprank.io import atomic_path, read_csv, write_csv
from dprank.plotting.overlay import draw_overlay
from dprank.plotting.paper_a import draw_figure, figure_data
from dprank.plotting.style import save_figure
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    figure, out = snakemake.wildcards.figure, snakemake.output
    overlaid = any(name.startswith("overlay_") for name in out.keys())
    comparison = read_csv(snakemake.input.comparison) if overlaid else None
    for protocol, files in snakemake.params.summaries.items():
        data = figure_data(figure, [read_csv(f) for f in files], snakemake.params.figure, protocol)
        log.info("%s (%s protocol): %d plotted points", figure, protocol, len(data))
        with atomic_path(out[f"pdf_{protocol}"]) as pdf, atomic_path(out[f"png_{protocol}"]) as png:
            save_figure(draw_figure(figure, data), pdf, png)
        write_csv(out[f"csv_{protocol}"], data)
        if overlaid:
            fig, shown = draw_overlay(
                figure,
                read_csv(out[f"csv_{protocol}"]),
                comparison,
                settings=snakemake.params.figure,
            )
            log.info("overlay: %d published points", shown)
            with (
                atomic_path(out[f"overlay_pdf_{protocol}"]) as pdf,
                atomic_path(out[f"overlay_png_{protocol}"]) as png,
            ):
                save_figure(fig, pdf, png)
