"""Every value the documentation quotes that a run or the checkout measures, by name: how
(:class:`Measure`: its kind, its source as ``docs/includes/values.yaml`` states it, and the
function that reads it) for each name of :data:`MEASURES`. The ``quoted`` values of
``values.yaml`` are not here: they are copied by hand from the command their source names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from . import _docs_intervals as _iv
from . import _docs_prose as _p
from . import _docs_readers as _r

__all__ = ["MEASURES", "Measure"]


@dataclass(frozen=True)
class Measure:
    """How one value is measured.

    Attributes
    ----------
    kind : str
        One of :data:`dprank_papers.docs_values.KINDS` (not ``quoted``: those are copied by
        hand from their command).
    source : str
        What measures it, as ``values.yaml`` says.
    measure : callable
        ``measure(root, results) -> str or None``: the value from the checkout ``root`` and the
        run's ``results`` folder, or None when its source is not there.
    timing : bool
        Whether the value depends on the machine and its load (a time, a job's seconds, a
        slope of times; always for kind ``timed``): then ``values.yaml`` names the run it
        was measured in (``run``).
    """

    kind: str
    source: str
    measure: Callable[[Path, Path], str | None]
    timing: bool = False

    def __post_init__(self):
        if self.kind == "timed" and not self.timing:
            object.__setattr__(self, "timing", True)


#: Every value this module measures, by name (the ``quoted`` values of values.yaml are not here)
MEASURES: dict[str, Measure] = {
    "registered_methods": Measure(
        "derived", "len(dprank.methods.all_methods())", _r.registered_methods
    ),
    "harness_release_paths": Measure(
        "derived", "len(dprank.audit.harness.PATHS)", _r.harness_count("paths")
    ),
    "harness_full_games": Measure(
        "derived",
        "len(dprank.audit.harness.profile_games('full'))",
        _r.harness_count("full_games"),
    ),
    **{
        f"harness_run_{name}": Measure(
            "results",
            f"{description}, "
            + (
                "results/tables/audit/privacy_harness.csv"
                if what in ("games", "verdict")
                else "results/audit/harness/<path>.csv"
                + (" and <path>_detail.csv" if what == "attacks" else "")
                + " (snakemake privacy_audit_full)"
            ),
            _r.harness(what, path),
        )
        for name, what, path, description in (
            ("games", "games", "", "games of the last full run (a cell on one neighbour relation)"),
            ("verdict", "verdict", "", "whether every game of the last full run held"),
            *(
                (f"best_{key}", "best_api", path, f"best success via the API per eps, {label}")
                for key, (path, label) in zip(
                    ("mle_individual", "alg1", "noisy_obj"), _r.HARNESS_MLES.items(), strict=True
                )
            ),
            ("eps_lower_mles", "eps_lower_mles", "", "largest eps lower bound, perturbed MLEs"),
            ("attacks", "attacks", "", "success of grid_residue and pair_set_search, MLEs"),
            *(
                (
                    f"rr_{what}",
                    what,
                    "privatize --mechanism rr",
                    f"{what} of privatize --mechanism rr through the API",
                )
                for what in ("success_eps8", "three_se_eps8", "eps_lower_eps8")
            ),
        )
    },
    "b2_overlays": Measure(
        "derived",
        "the B2 figures of workflow/papers/paper_b2.yaml with published tables",
        _r.b2_overlays,
    ),
    "paper_jobs": Measure(
        "derived",
        "snakemake -n --forceall (the jobs of the default target all at paper scale)",
        lambda root, results: str(_r.planned_jobs(root)),
    ),
    "smoke_jobs": Measure(
        "derived",
        "snakemake -n --forceall --configfile .test/config.yaml",
        lambda root, results: str(_r.planned_jobs(root, "--configfile", ".test/config.yaml")),
    ),
    "paper_a_stage_jobs": Measure(
        "derived",
        "snakemake -n --forceall: the jobs of Paper A's stages (simulate_comparisons, privatize, "
        "estimate, compute_metrics) at paper scale",
        _r.planned_rule_jobs(("simulate_comparisons", "privatize", "estimate", "compute_metrics")),
    ),
    "figure_jobs": Measure(
        "derived",
        "snakemake -n --forceall: the jobs of the figure rules (plot_*) at paper scale",
        _r.planned_rule_jobs(prefix="plot_"),
    ),
    "b1_movielens_jobs": Measure(
        "derived",
        "snakemake -n --forceall: the jobs of rule movielens_paper_b1 (B1's Figure 7) at paper "
        "scale",
        _r.planned_rule_jobs(("movielens_paper_b1",)),
    ),
    "agreement_paper_a": Measure(
        "results",
        "cells within / compared, results/comparison/paper_a_{edge,individual}_summary.csv",
        _r.agreement(["paper_a_edge", "paper_a_individual"], "ratio"),
    ),
    "outside_paper_a": Measure(
        "results",
        "cells outside, results/comparison/paper_a_{edge,individual}_summary.csv",
        _r.agreement(["paper_a_edge", "paper_a_individual"], "outside"),
    ),
    "agreement_paper_b2": Measure(
        "results",
        "cells within / compared, results/comparison/paper_b2_summary.csv",
        _r.agreement(["paper_b2"], "ratio"),
    ),
    **{
        f"outside_{paper}_items": Measure(
            "results",
            "items with cells outside (cells), results/comparison/"
            + (f"{{{','.join(names)}}}" if len(names) > 1 else names[0])
            + "_summary.csv",
            _r.agreement(names, "items"),
        )
        for paper, names in (
            ("paper_a", ["paper_a_edge", "paper_a_individual"]),
            ("paper_b2", ["paper_b2"]),
            ("paper_b1", ["paper_b1"]),
        )
    },
    "agreement_paper_b1": Measure(
        "results",
        "cells within / compared, results/comparison/paper_b1_summary.csv",
        _r.agreement(["paper_b1"], "ratio"),
    ),
    "audit_alg3_counts_bound": Measure(
        "results",
        "lower bound of 'Alg. 3 counts (individual), vector', results/audit/privacy.csv",
        _r.audit_bound("Alg. 3 counts (individual), vector", 4),
    ),
    "audit_fixed_noise_bound": Measure(
        "results",
        "lower bound of 'Alg. 2 counts (edge), fixed noise', results/audit/privacy.csv",
        _r.audit_bound("Alg. 2 counts (edge), fixed noise", 3),
    ),
    "audit_job_seconds": Measure(
        "results",
        "job seconds of rule audit_privacy, results/benchmarks/audit/privacy.tsv",
        _r.job_seconds("audit/privacy.tsv", "sum"),
        timing=True,
    ),
    **{
        name: Measure(
            "results",
            f"{column} of '{audit}', results/audit/privacy.csv",
            _r.audit_field(audit, column, spec),
        )
        for name, audit, column, spec in (
            ("audit_one_shot_exact", "One-shot top-1 (edge)", "exact_eps", ".2g"),
            ("audit_one_shot_bound", "One-shot top-1 (edge)", "lower_bound", ".3f"),
            ("audit_mle_individual_flip", "Alg. 3 MLE (individual), flip", "lower_bound", ".3g"),
            (
                "audit_mle_individual_replaced",
                "Alg. 3 MLE (individual), replaced",
                "lower_bound",
                ".3g",
            ),
        )
    },
    "b2_mixed_effects_fit_seconds": Measure(
        "results",
        "job seconds of the fit of B2's mixed-effects experiment, "
        "results/benchmarks/paper_b2/mixed_effects/metrics/*/*.tsv",
        _r.job_seconds("paper_b2/mixed_effects/metrics/*/*.tsv", "sum"),
        timing=True,
    ),
    "b2_timing_job_seconds": Measure(
        "results",
        "job seconds of B2's Figure 10 timing job, results/benchmarks/paper_b2/timing/timing.tsv",
        _r.job_seconds("paper_b2/timing/timing.tsv", "sum"),
        timing=True,
    ),
    **{
        f"arena_{name}": Measure(
            "results",
            (
                f"{column} of {dataset}, {privacy} DP, eps {', '.join(map(str, eps))}"
                if eps
                else f"least {column} of every row"
            )
            + ", results/tables/arena/price_of_privacy.csv",
            _r.arena(dataset, privacy, eps, column, spec, join),
        )
        for name, dataset, privacy, eps, column, spec, join in (
            ("edge_tau", "chatbot_arena", "edge", (0.5, 1, 2, 4, 8), "kendall", ".3f", "range"),
            (
                "none_tie_classes",
                "chatbot_arena",
                "none",
                (float("inf"),),
                "tie_classes",
                ".0f",
                "",
            ),
            ("cems_edge_tau", "cems", "edge", (1, 0.5), "kendall", ".2f", ", "),
            ("local_tau_high", "chatbot_arena", "local", (8, 4), "kendall", ".3f", " and "),
            ("local_overlap_eps2", "chatbot_arena", "local", (2,), "top_overlap", "%", ""),
            ("local_classes_eps2", "chatbot_arena", "local", (2,), "tie_classes", ".0f", ""),
            ("local_overlap_eps1", "chatbot_arena", "local", (1,), "top_overlap", ".2f", ""),
            ("local_classes_eps1", "chatbot_arena", "local", (1,), "tie_classes", ".0f", ""),
            ("local_tau_eps05", "chatbot_arena", "local", (0.5,), "kendall", ".2f", ""),
            ("local_overlap_eps05", "chatbot_arena", "local", (0.5,), "top_overlap", ".2f", ""),
            ("local_coverage_eps05", "chatbot_arena", "local", (0.5,), "rank_coverage", "%", ""),
            ("cems_voter_tau_high", "cems", "individual", (2, 4, 8), "kendall", ".2f", "range"),
            ("cems_voter_tau_eps1", "cems", "individual", (1,), "kendall", ".2f", ""),
            ("cems_voter_tau_eps05", "cems", "individual", (0.5,), "kendall", ".2f", ""),
            ("coverage_min", "all", "all", (), "rank_coverage", "%", "min"),
        )
    },
    "manifest_paper_files": Measure(
        "results",
        "files of dprank_papers.workflow.results_manifest(results) after a full run",
        _r.manifest_files(smoke=False),
    ),
    "manifest_smoke_files": Measure(
        "results",
        "files of dprank_papers.workflow.results_manifest(results/smoke) after a smoke run "
        "(make slurm-test compares them)",
        _r.manifest_files(smoke=True),
    ),
    "sensitivity_default_within": Measure(
        "results",
        "cells within / compared at the main study's Scenario V setting, "
        "results/sensitivity/settings.csv",
        _r.sensitivity("default_within"),
    ),
    "sensitivity_tm_adrr_closest": Measure(
        "results",
        "the closest TM ADRR Kendall distance of Table 11 over the settings, "
        "results/sensitivity/cells.csv",
        _r.sensitivity("tm_adrr_closest"),
    ),
    **{
        f"fidelity_b2_{name}": Measure(
            "results",
            f"cells {'within / compared' if what == 'ratio' else 'outside'} of "
            f"{' and '.join(items)}, results/comparison/paper_b2_summary.csv",
            _r.summary_items("paper_b2", items, what),
        )
        for name, items, what in (
            ("scenario3_outside", ("B2 Table 6", "B2 Table 7"), "outside"),
            ("table10_outside", ("B2 Table 10",), "outside"),
            ("table11_outside", ("B2 Table 11",), "outside"),
            ("table1_ratio", ("B2 Table 1",), "ratio"),
            ("table2_ratio", ("B2 Table 2",), "ratio"),
        )
    },
    **{
        f"fidelity_b2_{name}": Measure(
            "results",
            f"{figure}: "
            + (
                f"cells of {cells[0][2]} outside tolerance"
                if cells[0][0] == "outside"
                else "our mean of " + " / ".join(" ".join(c) for c in cells)
            )
            + ", results/comparison/paper_b2.csv",
            _r.b2_cells(figure, cells, spec),
        )
        for name, figure, cells, spec in (
            (
                "t10_adrr_btl",
                "B2 Table 10",
                (("BTL", "l2_over_sqrt_m", "local_adrr"), ("BTL", "linf", "local_adrr")),
                ".3f",
            ),
            (
                "t10_classic_rr_btl",
                "B2 Table 10",
                (("BTL", "l2_over_sqrt_m", "local_classic_rr"),),
                ".3f",
            ),
            (
                "t10_classic_rr_tm",
                "B2 Table 10",
                (("TM", "l2_over_sqrt_m", "local_classic_rr"),),
                ".3f",
            ),
            (
                "t10_classic_rr_outside",
                "B2 Table 10",
                (("outside", "", "local_classic_rr"),),
                ".3f",
            ),
            ("t10_noisy_obj_linf", "B2 Table 10", (("BTL", "linf", "edge_noisy_obj"),), ".3f"),
            ("t11_adrr_btl", "B2 Table 11", (("BTL", "kendall_tau_K", "local_adrr"),), ".3f"),
            ("t11_adrr_tm", "B2 Table 11", (("TM", "kendall_tau_K", "local_adrr"),), ".3f"),
            ("t11_count_btl", "B2 Table 11", (("BTL", "kendall_tau_K", "local_count"),), ".3f"),
            ("t11_count_tm", "B2 Table 11", (("TM", "kendall_tau_K", "local_count"),), ".3f"),
            *(
                (
                    f"t2_{method}_btl",
                    "B2 Table 2",
                    (("BTL", "kendall_tau_K_vs_Table1_ranking", f"local_{method}"),),
                    ".4f",
                )
                for method in ("adrr", "count", "classic_rr", "laplace")
            ),
            *(
                (
                    f"t2_t_{method}_btl",
                    "B2 Table 2",
                    (("BTL", "paired_t_statistic_vs_ADRR", f"local_{method}"),),
                    ".2f",
                )
                for method in ("count", "classic_rr", "laplace")
            ),
        )
    },
    **{
        f"fidelity_a_{name}": Measure(
            "results",
            (
                "cells outside"
                if what == "count"
                else "range of |ours - published| of the cells outside"
            )
            + f" of {figure}"
            + (f" ({panel})" if panel else "")
            + (f", {metric}" if metric else "")
            + (f", eps {eps:g}" if eps is not None else "")
            + ", results/comparison/paper_a_edge.csv",
            _r.paper_a_outside(figure, panel, metric, eps, what),
        )
        for name, figure, panel, metric, eps, what in (
            ("fig2a_eps05_outside", "Figure 2", "a", "", 0.5, "count"),
            ("fig2a_eps05_diff", "Figure 2", "a", "", 0.5, "diff_range"),
            ("fig2a_eps1_outside", "Figure 2", "a", "", 1.0, "count"),
            ("fig1_linf_outside", "Figure 1", "", "log_rel_linf", None, "count"),
            ("fig1_l2_outside", "Figure 1", "", "log_rel_l2", None, "count"),
            ("fig1_hamming_outside", "Figure 1", "", "rel_hamming", None, "count"),
        )
    },
    **{
        f"fidelity_b2_{name}": Measure(
            "results",
            f"Pearson r of {figure}, {' and '.join(models)}, {' / '.join(metrics)}, "
            f"results/figures/paper_b2/{figure}.csv",
            _r.b2_figure_r(figure, models, metrics),
        )
        for name, figure, models, metrics in (
            ("fig14_r_btl", "fig14", ("btl",), ("l2_over_sqrt_m", "linf")),
            ("fig14_r_tm", "fig14", ("tm",), ("l2_over_sqrt_m", "linf")),
            ("fig5_r_l2", "fig5", ("btl", "tm"), ("l2_over_sqrt_m",)),
            ("fig5_r_linf", "fig5", ("btl", "tm"), ("linf",)),
        )
    },
    **{
        f"fidelity_b1_{name}": Measure(
            "results",
            f"mean of {figure} at {', '.join(f'{k} {v}' for k, v in select.items())}"
            + (" (range)" if join == "range" else "")
            + f", results/figures/paper_b1/{figure}.csv",
            _r.b1_figure(figure, select, spec, join),
        )
        for name, figure, select, spec, join in (
            (
                "fig4_kendall",
                "fig4",
                {"model": "btl", "L": 400, "m": 30, "delta": 0.2, "metric": "kendall_tau_K"},
                ".2g",
                "",
            ),
            (
                "fig4_hk",
                "fig4",
                {
                    "model": "btl",
                    "L": 400,
                    "m": 30,
                    "delta": 0.2,
                    "metric": "topK_hamming_HK_K=m/2",
                },
                "g",
                "",
            ),
            (
                "fig6_classic_rr_linf",
                "fig6",
                {"model": "btl", "L": 400, "method": "local_classic_rr", "metric": "linf"},
                ".2f",
                "range",
            ),
            (
                "fig6_adrr_laplace_linf",
                "fig6",
                {
                    "model": "btl",
                    "L": 400,
                    "m": 10,
                    "metric": "linf",
                    "method": ("local_adrr", "local_laplace"),
                },
                ".3f",
                " and ",
            ),
        )
    },
    "sensitivity_halved_k": Measure(
        "results",
        "Table 11's Kendall distances at the default halved, results/comparison/paper_b2.csv",
        _r.halved_k("values"),
    ),
    "sensitivity_halved_k_within": Measure(
        "results",
        "Table 11's halved Kendall distances within tolerance, results/comparison/paper_b2.csv",
        _r.halved_k("within"),
    ),
    **{
        f"sensitivity_nonconverged_{what}": Measure(
            "results",
            f"Scenario V fits that did not converge ({what}), results/sensitivity/scenario5/*.csv",
            _r.nonconverged(what),
        )
        for what in ("groups", "worst", "worst_setting")
    },
    **{
        f"car_{name}": Measure(
            "results",
            f"{description}, results/paper_b2/car/nonprivate.json (intransitivity)",
            _p.car(what),
        )
        for name, what, description in (
            ("intransitive_users", "users", "intransitive users of all"),
            ("intransitive_share", "users_share", "share of intransitive users"),
            ("comparisons", "comparisons", "comparisons of the car data"),
            ("conflicts", "conflicts", "comparisons against the user's win-count ranking"),
            ("conflicts_ties", "ties_as_conflicts", "the same with tied pairs as conflicts"),
            ("conflicts_half_ties", "ties_as_half", "the same with tied pairs as half"),
        )
    },
    **{
        f"fidelity_b2_{name}": Measure(
            "results", f"{description}, results/comparison/paper_b2.csv", _p.b2_comparison(what)
        )
        for name, what, description in (
            ("table4_m30", "table4_m30", "Table 4's rates at m = 30, ours against printed"),
            ("table4_m10_l800", "table4_m10_l800", "Table 4's rate at m = 10, L = 800"),
            ("table5_lower", "table5", "how much lower our Table 5 errors are, per m"),
            ("scenario3_scheme1", "scenario3_scheme1", "Scheme 1 cells of Tables 6-7 outside"),
            ("scenario3_other", "scenario3_other", "Scheme 2/3 cells of Tables 6-7 outside"),
            ("table10_classic_rr_lower", "table10_classic_rr", "Table 10 classic RR: ours lower"),
        )
    },
    **{
        f"fidelity_b2_fig3_median_{var}": Measure(
            "results",
            f"median smallest Hessian eigenvalue at the smallest and largest {var}, "
            "results/figures/paper_b2/fig3.csv",
            _p.b2_fig3_medians(f"hessian_{var}"),
        )
        for var in ("m", "p")
    },
    **{
        f"fidelity_b1_slope_scheme{scheme}": Measure(
            "results",
            f"slope of scheme {scheme} (l2 / l_inf), results/paper_b1/scenario2/trends.csv",
            _p.b1_slopes(scheme),
        )
        for scheme in (1, 2, 3)
    },
    "fidelity_b1_slope_scheme3_per_m": Measure(
        "results",
        "slope of scheme 3 per m (range), results/paper_b1/scenario2/trends.csv",
        _p.b1_slopes(3, per_m=True),
    ),
    **{
        f"fidelity_a_fig6_{protocol}_{what}": Measure(
            "results",
            f"Figure 6 ({protocol} protocol), panels {panels}, m = 2000, eps = inf, "
            f"results/figures/paper_a/fig6_{protocol}.csv",
            _p.paper_a_fig6(protocol, panels, spec, labels=protocol == "authors" and what != "l2"),
        )
        for protocol, what, panels, spec in (
            ("paper", "l2", "a", ".2f"),
            ("authors", "l2", "a", ".2f"),
            ("paper", "hamming", "cd", ".3f"),
            ("authors", "hamming", "cd", ".2f"),
        )
    },
    "one_shot_error": Measure(
        "results",
        "range of the one-shot method's mean error, results/figures/paper_a/fig4_authors.csv",
        _p.from_csv("figures/paper_a/fig4_authors.csv", _p.one_shot_error),
    ),
    "fidelity_b1_fig7_converged": Measure(
        "results",
        "fits converged, results/paper_b1/movielens/summary.csv",
        _p.from_csv("paper_b1/movielens/summary.csv", _p.b1_movielens_converged),
    ),
    "sensitivity_default_nonconverged": Measure(
        "results",
        "fits that did not converge at the main study's setting, "
        "results/sensitivity/scenario5/*.csv",
        _p.sensitivity_default_nonconverged,
    ),
    "scale_newton": Measure(
        "results",
        "fits converged and the most Newton steps, results/beyond/metrics/*/*.csv",
        _p.from_csv("beyond/metrics/*/*.csv", _p.scale_newton),
    ),
    "memory_largest_paper_job": Measure(
        "derived",
        "dprank_papers.config.estimate_cell_memory, largest cell of the papers' sections of "
        "config.yaml",
        _r.largest_memory_estimate(
            ("paper_a_edge", "paper_a_individual", "paper_b1", "paper_b2"), label=True
        ),
    ),
    "memory_largest_scale_job": Measure(
        "derived",
        "dprank_papers.config.estimate_cell_memory, largest cell of beyond_scale in config.yaml",
        _r.largest_memory_estimate(("beyond_scale",), label=False),
    ),
    "memory_largest_benchmark_job": Measure(
        "derived",
        "dprank_papers.config.estimate_cell_memory, largest cell of benchmark in config.yaml",
        _r.largest_memory_estimate(("benchmark",), label=False),
    ),
    "b2_timing_median_largest": Measure(
        "results",
        "median aggregation seconds at (m, L) = (160, 3200), "
        "results/paper_b2/timing/replicates.csv",
        _r.b2_timing("median", 160, 3200),
        timing=True,
    ),
    "b2_timing_median_smallest": Measure(
        "results",
        "median aggregation seconds at (m, L) = (10, 200), results/paper_b2/timing/replicates.csv",
        _r.b2_timing("median", 10, 200),
        timing=True,
    ),
    **{
        f"b2_timing_slope_{metric}_{var.lower()}": Measure(
            "results",
            f"slope_log_{var} of seconds_{metric}, results/paper_b2/timing/scaling.csv",
            _r.b2_timing(f"slope_log_{var}:seconds_{metric}"),
            timing=True,
        )
        for metric in ("aggregate", "total")
        for var in ("L", "m")
    },
    **{
        f"sensitivity_{part}_seconds": Measure(
            "results",
            f"job seconds of results/benchmarks/sensitivity/{pattern}",
            _r.job_seconds(f"sensitivity/{pattern}", what),
            timing=True,
        )
        for part, pattern, what in (
            ("scenario3_grid", "scenario3/grid/*.tsv", "sum_range"),
            ("scenario3_fit", "scenario3/fit.tsv", "sum"),
            ("scenario5", "scenario5/*.tsv", "sum_range"),
            ("summary_figure", "[sf]*.tsv", "sum"),
        )
    },
    **{
        f"scale_{what.replace('.', '_')}": Measure(
            "results",
            f"{description}, results/beyond/"
            + ("scale_fit.csv" if what.startswith("r2") else "summary.csv"),
            _r.scale(what),
        )
        for what, description in (
            ("se_log", "largest standard error of a log-scale metric"),
            ("se_hamming", "largest standard error of a Hamming error"),
            ("hamming_flat", "largest change of a mean Hamming error, smallest to largest n"),
            (
                "linf_nonprivate",
                "mean log rel. l_inf error of the MLE, eps inf, n smallest, largest",
            ),
            ("hamming_eps1", "mean Hamming error, counting against MLE, eps 1, largest n"),
            ("r2_private", "r2 of the rate fit, least and largest over eps 0.5 and 1"),
            ("r2_eps2.5", "r2 of the rate fit at eps 2.5"),
        )
    },
    "scale_ridge": Measure(
        "derived",
        "2 sqrt(n p log n) at the smallest and largest n of config.yaml's beyond_scale",
        _r.scale_ridge,
    ),
    "scale_chunks": Measure(
        "derived",
        "the chunks of replicates of each n of config.yaml's beyond_scale (chunk_size each)",
        _r.scale_chunks,
    ),
    "report_size": Measure(
        "results",
        "size of results/report.html (make report after make reproduce)",
        _r.file_size("report.html"),
    ),
    "results_size": Measure(
        "results",
        "size of results/ with the report, results/smoke/ left out",
        _r.results_size,
    ),
    **{
        f"{run}_{field}": Measure(
            "timed",
            f"python -m dprank_papers.docs_values time {run} -- {command}",
            _r.timed(run, key),
        )
        for run, command in (
            ("full_run", ".venv/bin/snakemake --cores 2 (clean clone, empty results/)"),
            ("smoke_run", ".venv/bin/snakemake --cores 2 --configfile .test/config.yaml"),
            ("report", ".venv/bin/snakemake --report results/report.html ... (make report)"),
            ("benchmark_run", ".venv/bin/snakemake --cores 2 benchmark"),
            ("beyond_scale_run", ".venv/bin/snakemake --cores 2 beyond_scale"),
            ("sensitivity_run", ".venv/bin/snakemake --cores 2 sensitivity"),
            ("privacy_harness_run", ".venv/bin/snakemake --cores 2 privacy_audit_full"),
            ("arena_run", ".venv/bin/snakemake --cores 2 arena"),
        )
        for field, key in (
            ("wall", "wall_seconds"),
            ("user_cpu", "user_seconds"),
            ("system_cpu", "system_seconds"),
            ("peak", "peak_rss_bytes"),
            ("load", "load"),
        )
    },
    **{
        f"fidelity_b2_t2_{column}_{method}_btl": Measure(
            "results",
            f"{column} of BTL {method}, results/paper_b2/car/table2.csv",
            _p.car_table2(f"local_{method}", column),
        )
        for method, column in (
            ("adrr", "se"),
            ("count", "p"),
            ("classic_rr", "p"),
            ("laplace", "p"),
        )
    },
    **{
        f"scheduler_{what}": Measure(
            "results",
            f"{description}, results/measured/scheduler_profile.json "
            "(nice -n 10 python benchmarks/scheduler_profile.py --configfile .test/config.yaml)",
            _r.scheduler_profile(what),
            timing=True,
        )
        for what, description in (
            ("run", "jobs of each run of the Snakemake process, and the run"),
            ("counts_snakemake", "the loop's passes, input-size checks, stat calls, uncoalesced"),
            ("counts_coalesced", "the same with dprank_papers.workflow.coalesce_scheduler_timers"),
            ("cpu_seconds", "CPU seconds of the Snakemake process, coalesced against not"),
        )
    },
    "scale_residual_private": Measure(
        "results",
        "largest max_abs_log_residual at eps 0.5 and 1, results/beyond/scale_fit.csv",
        _p.from_csv(
            "beyond/scale_fit.csv",
            lambda f: f"{f[f['epsilon'].isin([0.5, 1.0])]['max_abs_log_residual'].max():.3f}",
        ),
    ),
    "intervals_targets": Measure(
        "derived",
        "target and item_target of config.yaml's intervals section",
        _iv.targets,
    ),
    **{
        f"intervals_rerun_{name}": Measure(
            "results",
            f"{field} of {', '.join(designs)}"
            + (" (range)" if join == "range" else "")
            + f", results/{_iv.SUMMARY} (benchmarks/intervals_rerun.py --csv)",
            _iv.rerun(designs, field, join),
        )
        for name, designs, field, join in (
            *((f"er_{field}", _iv.ER_DESIGNS, field, "range") for field in _iv.FIELDS_ER),
            ("sparse_places", ("edge_eps1_sparse",), "places", ""),
            ("dense_places", ("edge_eps4_dense",), "places", ""),
            ("n5000_score_width", ("edge_n5000",), "score_width_median", ""),
            ("n5000_places", ("edge_n5000",), "places", ""),
            *(
                (f"{group}_{field}", designs, field, " and " if len(designs) > 1 else "")
                for group, designs, fields in _iv.QUOTED
                for field in fields
            ),
        )
    },
    **{
        f"intervals_rerun_short_{what}": Measure(
            "results",
            f"designs short of the target ({what}), results/{_iv.SUMMARY} "
            "(benchmarks/intervals_rerun.py --csv)",
            _iv.shortfall(what),
        )
        for what in _iv.SHORTFALLS
    },
}
