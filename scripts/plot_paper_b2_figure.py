"""Rule ``plot_paper_b2_figure``: Paper B (B2) Figure 4 (Scenario I) from the summary."""

from dprank.io import atomic_path, read_csv, write_csv
from dprank.plotting.paper_b import draw_scenario_figure, scenario_figure_data
from dprank.plotting.style import save_figure
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    data = scenario_figure_data(read_csv(snakemake.input.summary))
    log.info("%s: %d plotted points", snakemake.wildcards.figure, len(data))
    fig = draw_scenario_figure(data)
    with atomic_path(snakemake.output.pdf) as pdf, atomic_path(snakemake.output.png) as png:
        save_figure(fig, pdf, png)
    write_csv(snakemake.output.csv, data)
