# dprank: reproduce the figures and tables of two papers on differentially private ranking.
#
# Results path scheme (every rule's log and benchmark mirror its output path
# under results/logs/ and results/benchmarks/):
# (results/ is the config key results_dir: .test/config.yaml writes under results/smoke/)
#
#   results/{study}/{experiment}/data/{block}/chunk{chunk}.npz (temporary)      simulate_comparisons
#   results/{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.npz (t.) privatize
#   results/{study}/{experiment}/{protocol}/estimates/{block}/chunk{chunk}.npz  estimate
#   results/{study}/{experiment}/{protocol}/metrics/{block}/chunk{chunk}.csv    compute_metrics
#   results/{study}/{experiment}/{protocol}/summary.csv                         aggregate_metrics
#   resources/data/{path}  (the registered real data sets, hash-checked)          fetch_{dataset}
#   results/paper_a_real/{dataset}/wins.csv                                      real_data_wins
#   results/paper_a_real/{dataset}/{protocol}/metrics.csv, summary.csv          real_data_metrics,
#                                                                                aggregate_real_data
#   results/figures/paper_a/{figure}_{protocol}.{pdf,png,csv}                   plot_paper_a_figure
#   results/comparison/paper_a_edge.csv, paper_a_edge_summary.csv               compare_paper_a_edge
#   results/comparison/paper_a_individual.csv, ..._summary.csv (Figures 5-8)    compare_paper_a_individual
#   results/{bpaper}/{experiment}/releases/{block}/chunk{chunk}.npz             simulate_releases
#   results/{bpaper}/{experiment}/metrics/{block}/chunk{chunk}.csv              fit_paper_b
#   results/{bpaper}/{experiment}/replicates.csv, summary.csv                   collect_paper_b,
#                                                                                aggregate_paper_b
#   results/paper_b2/timing/replicates.csv, scaling.csv, machine.json           time_paper_b2
#   results/paper_b2/car/replicates.csv, table2.csv, nonprivate.json            car_paper_b2
#   results/paper_b1/movielens/metrics/scheme{s}.csv, replicates.csv            movielens_paper_b1
#   results/tables/{bpaper}/{table}.{csv,md,tex}                                 table_paper_b,
#                                                                                car_tables_paper_b2,
#                                                                                table1_paper_b1
#   results/figures/{bpaper}/{figure}.{pdf,png,csv}                              plot_paper_b_figure
#   results/comparison/{paper_a,paper_b1,paper_b2}.csv, *_summary.csv           compare_*
#   results/report/deviations.html, runtime.csv                                 deviations,
#                                                                                runtime_report
#   results/benchmark/{dataset}/{method}.csv, .json                              benchmark_method
#   results/figures/benchmark/{dataset}.{pdf,png,csv}                            benchmark_figure
#   results/tables/benchmark/thresholds.{csv,md,tex}, timing.csv, findings.md    benchmark_tables
#   results/intervals/{design}.csv                                               intervals_design
#   results/tables/intervals/coverage.{csv,md}                                   intervals_table
#   results/figures/intervals/coverage.{pdf,png,csv}                             intervals_figure
#   results/audit/harness/{release_path}.csv, _detail.csv                         privacy_audit_full_path
#   results/tables/audit/privacy_harness.{csv,md}                                privacy_audit_full_table
#   results/arena/{dataset}/{privacy}_eps{epsilon}.csv                           arena_cell
#   results/tables/arena/price_of_privacy.{csv,md}                               arena_table
#   results/figures/arena/price_of_privacy.{pdf,png,csv}                         arena_figure
#
# study: a config section (paper_a_edge, paper_a_individual); experiment: one of its grids;
# cell: one grid point with its own data (n300_p0.25); block: the cells of one Paper A job
# (config job_keys; "all" for a whole grid, docs/performance.md); chunk: a range of replicates;
# protocol: paper | authors (docs/papers/paper-a.md#s0); bpaper: paper_b1 | paper_b2 (Paper B's
# two versions; figures and tables: any paper declared kind: paper_b); block: the cells of one
# B job (config job_keys).
#
# Targets: all, paper_a, paper_a_fig1 ... paper_a_fig8, paper_a_compare, fetch_data,
# paper_b1, paper_b1_fig2 ... paper_b1_fig7, paper_b1_table1, paper_b2, paper_b2_fig3 ...
# paper_b2_fig14, paper_b2_table1 ... paper_b2_table11, report_pages; benchmark (not in all:
# the benchmark of methods, docs/benchmark.md), sensitivity (not in all: B2's unstated settings,
# docs/sensitivity.md; results/sensitivity/), beyond_scale (not in all: Figure 1's errors
# at 10^3 to 10^5 items, docs/scale-study.md; results/beyond/, results/figures/beyond/),
# intervals (not in all: coverage of the intervals for scores and ranks, docs/intervals.md),
# privacy_audit_full (not in all: every release path in the DP game, docs/privacy.md),
# arena (not in all: the price of privacy for a leaderboard with ties, docs/leaderboard.md).
# The per-item targets (<paper>_<item>) and the papers' targets are generated by
# workflow/rules/items.smk from the papers' declarations, workflow/papers/<paper>.yaml.
# Report: snakemake --report results/report.html (after a run; smoke scale:
# snakemake --report results/smoke/report.html --configfile .test/config.yaml).


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
include: "workflow/rules/items.smk"
include: "workflow/rules/report.smk"
include: "workflow/rules/beyond.smk"
include: "workflow/rules/benchmark.smk"
include: "workflow/rules/sensitivity.smk"
include: "workflow/rules/intervals.smk"
include: "workflow/rules/privacy_harness.smk"
include: "workflow/rules/arena.smk"


report: "workflow/report/workflow.rst"


rule all:
    input:
        [getattr(rules, paper).input for paper in PAPERS],
        rules.report_pages.input,
