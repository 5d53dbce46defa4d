# Beyond the papers: Paper A's Figure 1 errors at 10^3 to 10^5 items (issue 17,
# docs/scale-study.md). Not a figure of either paper; its own target, not part of `all`.
#
#   results/beyond/metrics/n{n}/chunk{chunk}.csv    beyond_scale_chunk (sparse data, fits)
#   results/beyond/summary.csv, scale_fit.csv       beyond_scale_summary
#   results/figures/beyond/scale.{pdf,png,csv}      beyond_scale_figure
# Target: beyond_scale.

from dprank_papers.studies import beyond_scale as _scale

SCALE = config.get("beyond_scale") or {}
SCALE_JOBS = [
    f"n{n}/chunk{c}"
    for n in SCALE.get("n", [])
    for c in range(_scale.chunk_count(_scale.reps_for(SCALE, n), SCALE["chunk_size"]))
]


rule beyond_scale_chunk:
    input:
        library=script_files(script_path("beyond_scale_chunk"), SRC),
    output:
        R("beyond/metrics/n{n}/chunk{chunk}.csv"),
    log:
        R("logs/beyond/metrics/n{n}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/beyond/metrics/n{n}/chunk{chunk}.tsv")
    wildcard_constraints:
        n=r"\d+",
    conda:
        "../../envs/estimate.yaml"
    resources:
        mem_mb=2000,
    params:
        job=lambda w: canonical(
            {
                "n": int(w.n),
                "degree": SCALE["degree"],
                "epsilons": SCALE["epsilon"],
                "replicates": list(
                    _scale.chunk_replicates(
                        _scale.reps_for(SCALE, int(w.n)),
                        SCALE["chunk_size"],
                        int(w.chunk),
                    )
                ),
                "seed": config["seed"],
                "constants": {
                    k: config["paper_a_edge"]["constants"][k]
                    for k in ("c0", "kappa1", "kappa2")
                },
                "solver": config["paper_a_edge"]["solver"],
            }
        ),
    script:
        "../../scripts/beyond_scale_chunk.py"


rule beyond_scale_summary:
    input:
        metrics=expand(R("beyond/metrics/{job}.csv"), job=SCALE_JOBS),
        library=script_files(script_path("beyond_scale_summary"), SRC),
    output:
        summary=R("beyond/summary.csv"),
        fit=R("beyond/scale_fit.csv"),
    log:
        R("logs/beyond/summary.log"),
    benchmark:
        R("benchmarks/beyond/summary.tsv")
    conda:
        "../../envs/estimate.yaml"
    script:
        "../../scripts/beyond_scale_summary.py"


rule beyond_scale_figure:
    input:
        summary=R("beyond/summary.csv"),
        fit=R("beyond/scale_fit.csv"),
        library=script_files(script_path("beyond_scale_figure"), SRC),
    output:
        pdf=R("figures/beyond/scale.pdf"),
        png=report(
            R("figures/beyond/scale.png"),
            caption="../report/beyond_scale.rst",
            category="Benchmark",
            subcategory="scale study",
            labels={"figure": "errors at scale"},
        ),
        csv=R("figures/beyond/scale.csv"),
    log:
        R("logs/beyond/figure.log"),
    benchmark:
        R("benchmarks/beyond/figure.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        degree=SCALE.get("degree"),
    script:
        "../../scripts/beyond_scale_figure.py"


rule beyond_scale:
    input:
        study_pages("beyond_scale"),
        rules.beyond_scale_summary.output,
        rules.beyond_scale_figure.output,
