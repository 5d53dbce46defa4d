"""Rules ``plot_paper_a_figure`` and ``plot_paper_a_single``: one Paper A figure (all panels)
for every protocol, from the aggregated summaries.

Writes, per protocol, the figure as PDF and PNG and, beside it, the CSV of every plotted
number; where the comparison runs (the authors protocol is configured), also the overlay
version: the published points as hollow markers over our curves, redrawn from that CSV.
``plot_paper_a_single`` (Figure 8) draws one figure for all protocols after checking that
their plotted means are equal; its CSV holds every protocol's rows.
"""

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.plotting.overlay import draw_overlay
from dprank_papers.plotting.paper_a import draw_figure, figure_data, protocols_agree
from dprank_papers.plotting.style import save_figure
from dprank_papers.workflow import job_logger


def overlay(figure, csv, comparison, pdf_path, png_path, log, protocols=None):
    data = read_csv(csv)
    if "authors" in set(data["protocol"]):  # one figure for every protocol: the judged one
        data = data[data["protocol"] == "authors"]
    fig, shown = draw_overlay(
        figure, data, comparison, settings=snakemake.params.figure, protocols=protocols
    )
    log.info("overlay: %d published points", shown)
    with atomic_path(pdf_path) as pdf, atomic_path(png_path) as png:
        save_figure(fig, pdf, png)


with job_logger(snakemake) as log:
    figure, out = snakemake.wildcards.figure, snakemake.output
    settings = snakemake.params.figure  # its declaration: panels, experiments, x_values, ...
    overlaid = any(name.startswith("overlay_") for name in out.keys())
    comparison = read_csv(snakemake.input.comparison) if overlaid else None
    datas = {
        protocol: figure_data(figure, [read_csv(f) for f in files], settings, protocol)
        for protocol, files in snakemake.params.summaries.items()
    }
    for protocol, data in datas.items():
        log.info("%s (%s protocol): %d plotted points", figure, protocol, len(data))
    if "pdf" in out.keys():  # one figure for every protocol
        protocols_agree(figure, datas)
        data = next(iter(datas.values()))
        note = " = ".join(datas) if len(datas) > 1 else None
        with atomic_path(out.pdf) as pdf, atomic_path(out.png) as png:
            save_figure(draw_figure(figure, data, settings, protocols=note), pdf, png)
        write_csv(out.csv, pd.concat(datas.values(), ignore_index=True))
        if overlaid:
            overlay(figure, out.csv, comparison, out.overlay_pdf, out.overlay_png, log, note)
    else:
        for protocol, data in datas.items():
            pdf_path, png_path = out[f"pdf_{protocol}"], out[f"png_{protocol}"]
            with atomic_path(pdf_path) as pdf, atomic_path(png_path) as png:
                save_figure(draw_figure(figure, data, settings), pdf, png)
            write_csv(out[f"csv_{protocol}"], data)
            if overlaid:
                overlay(
                    figure,
                    out[f"csv_{protocol}"],
                    comparison,
                    out[f"overlay_pdf_{protocol}"],
                    out[f"overlay_png_{protocol}"],
                    log,
                )
