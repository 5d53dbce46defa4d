"""Rule ``plot_paper_b_figure``: a Paper B figure (B2 Figures 3-14, B1 Figures 2-7).

``lines`` figures (4, 6, 7, 11, 12) plot the aggregated means against L;
``boxplot`` figures (3, 8, 9, 10, 13) and ``scatter`` figures (5) plot every
replicate. The CSV beside the figure holds exactly the plotted numbers (and,
for scatter figures, the fitted lines and correlations in a second CSV). Rule
``plot_paper_b_figure_overlay`` runs it for the B2 figures whose numbers the paper prints
in a table: it also draws the overlay version (the published table values as hollow
markers over our curves, redrawn from the CSV).
"""

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.plotting.overlay import draw_overlay
from dprank_papers.plotting.paper_b import draw_b2_figure, figure_data, name_data_set
from dprank_papers.plotting.paper_b_dist import (
    box_data,
    draw_boxplots,
    draw_scatter_bands,
    scatter_data,
)
from dprank_papers.plotting.style import save_figure
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    spec = snakemake.params.figure
    kind = spec.get("type", "lines")
    frame = pd.concat([read_csv(f) for f in snakemake.input.data], ignore_index=True)
    if kind == "lines":
        data = figure_data(frame, spec)
        fig = draw_b2_figure(data, spec)
    elif kind == "boxplot":
        if spec.get("methods"):  # shown in the configured order
            frame = frame[frame["method"].isin(spec["methods"])]
            spec = {**spec, "order": {"method": list(spec["methods"])}}
        data = box_data(frame, spec)
        fig = draw_boxplots(data, spec)
    else:
        data = scatter_data(frame, spec)
        fig, fits = draw_scatter_bands(data, spec)
        for _, r in fits.iterrows():
            log.info(
                "panel %s (%s, %s): r = %.3f over %d",
                r["panel"],
                r["model"],
                r["metric"],
                r["r"],
                r["n"],
            )
        data = data.merge(fits, on="panel", how="left", suffixes=("", "_fit"))
    name_data_set(fig, snakemake.wildcards.bpaper, snakemake.wildcards.figure)
    log.info("%s (%s): %d plotted points", snakemake.wildcards.figure, kind, len(data))
    out = snakemake.output
    with atomic_path(out.pdf) as pdf, atomic_path(out.png) as png:
        save_figure(fig, pdf, png)
    write_csv(out.csv, data)
    if "overlay_pdf" in out.keys():
        fig, shown = draw_overlay(
            snakemake.wildcards.figure,
            read_csv(out.csv),
            read_csv(snakemake.input.comparison),
            snakemake.params.figure,
            snakemake.params.tables,
        )
        log.info("overlay: %d published points", shown)
        with atomic_path(out.overlay_pdf) as pdf, atomic_path(out.overlay_png) as png:
            save_figure(fig, pdf, png)
