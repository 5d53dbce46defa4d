# dprank: reproduce the figures and tables of two papers on differentially private ranking.
#
# Results path scheme (every rule's log and benchmark mirror its output path
# under results/logs/ and results/benchmarks/):
#
#   results/{study}/{experiment}/data/{cell}/chunk{chunk}.npz                   simulate_comparisons
#   results/{study}/{experiment}/{protocol}/noise/{cell}/chunk{chunk}.npz       privatize
#   results/{study}/{experiment}/{protocol}/estimates/{cell}/chunk{chunk}.npz   estimate
#   results/{study}/{experiment}/{protocol}/metrics/{cell}/chunk{chunk}.csv     compute_metrics
#   results/{study}/{experiment}/{protocol}/summary.csv                         aggregate_metrics
#   resources/data/{path}  (the registered real data sets, hash-checked)          fetch_{dataset}
#   results/paper_a_real/{dataset}/wins.csv                                      real_data_wins
#   results/paper_a_real/{dataset}/{protocol}/metrics.csv, summary.csv          real_data_metrics,
#                                                                                aggregate_real_data
#   results/figures/paper_a/{figure}_{protocol}.{pdf,png,csv}                   plot_paper_a_figure
#   results/comparison/paper_a_edge.csv, paper_a_edge_summary.csv               compare_paper_a_edge
#   results/comparison/paper_a_individual.csv, ..._summary.csv (Figures 5-8)    compare_paper_a_individual
#   results/paper_b2/{experiment}/releases/{cell}/chunk{chunk}.npz              simulate_releases
#   results/paper_b2/{experiment}/metrics/{cell}/chunk{chunk}.csv               fit_paper_b2
#   results/paper_b2/{experiment}/summary.csv                                   aggregate_paper_b2
#   results/tables/paper_b2/{table}.{csv,md,tex}                                table_paper_b2
#   results/figures/paper_b2/{figure}.{pdf,png,csv}                             plot_paper_b2_figure
#   results/comparison/paper_b2.csv, paper_b2_summary.csv                       compare_paper_b2
#
# study: a config section (paper_a_edge, paper_a_individual); experiment: one of its grids;
# cell: one grid point with its own data (n300_p0.25); chunk: a range of replicates;
# protocol: paper | authors (spec/paper-a.md section 0).
#
# Targets: all, paper_a, paper_a_fig1 ... paper_a_fig8, paper_a_compare, fetch_data,
# paper_b2 (so far: paper_b2_fig4, paper_b2_table5).


configfile: "config.yaml"


include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/privatize.smk"
include: "workflow/rules/estimate.smk"
include: "workflow/rules/metrics.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/real_data.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/compare.smk"


rule all:
    input:
        rules.paper_a.input,
        rules.paper_b1.input,
        rules.paper_b2.input,
