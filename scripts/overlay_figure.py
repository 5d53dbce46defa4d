"""Rules ``overlay_paper_a_figure`` and ``overlay_paper_b_figure``: a figure with the published
points as hollow markers over our curves, redrawn from the figure's own CSV and the paper's
comparison table (so the overlay shows exactly the numbers compared there).
"""

from dprank.io import atomic_path, read_csv
from dprank.plotting import paper_a, paper_b
from dprank.plotting.overlay import (
    paper_a_published,
    paper_b_box_published,
    paper_b_published,
)
from dprank.plotting.paper_b_dist import draw_boxplots
from dprank.plotting.style import save_figure
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    w = snakemake.wildcards
    data = read_csv(snakemake.input.data)
    comparison = read_csv(snakemake.input.comparison)
    if snakemake.rule == "overlay_paper_a_figure":
        published = paper_a_published(w.figure, data, comparison)
        fig = paper_a.draw_figure(w.figure, data, published=published)
        shown = len(published)
    elif snakemake.params.figure.get("type", "lines") == "boxplot":
        spec = dict(snakemake.params.figure)
        if spec.get("methods"):
            spec["order"] = {"method": list(spec["methods"])}
        published = paper_b_box_published(spec, comparison, snakemake.params.tables)
        fig = draw_boxplots(data, spec, published=published)
        shown = len(published)
    else:
        spec = snakemake.params.figure
        data = paper_b_published(data, spec, comparison, snakemake.params.tables)
        fig = paper_b.draw_b2_figure(data, spec)
        shown = int(data["published"].notna().sum())
    log.info("%s: %d published points over %d of ours", w.figure, shown, len(data))
    with atomic_path(snakemake.output.pdf) as pdf, atomic_path(snakemake.output.png) as png:
        save_figure(fig, pdf, png)
