# The report's own pages and Paper-level comparison tables. Build the report with
#   snakemake --report results/report.html   (after a run; at the smoke scale:
#   snakemake --report results/smoke/report.html --configfile .test/config.yaml)


rule compare_paper_a:
    input:
        tables=[
            R("comparison/paper_a_edge.csv"),
            R("comparison/paper_a_individual.csv"),
        ],
        summaries=[
            R("comparison/paper_a_edge_summary.csv"),
            R("comparison/paper_a_individual_summary.csv"),
        ],
        paper_summaries=(
            [
                R(f"{study}/{e}/paper/summary.csv")
                for study in ("paper_a_edge", "paper_a_individual")
                for e in config[study]["experiments"]
            ]
            + [
                R(f"paper_a_real/{d}/paper/summary.csv")
                for d in config["paper_a_real"]["datasets"]
            ]
            if "paper" in PROTOCOLS
            else []
        ),
        library=script_files(script_path("compare_paper_a"), SRC),
    output:
        table=R("comparison/paper_a.csv"),
        summary=R("comparison/paper_a_summary.csv"),
    log:
        R("logs/comparison/paper_a.log"),
    benchmark:
        R("benchmarks/comparison/paper_a.tsv")
    conda:
        "../../envs/estimate.yaml"
    script:
        "../../scripts/compare_paper_a.py"


rule compare_paper_b1:
    input:
        table1=R("tables/paper_b1/table1.csv"),
        scenario3=R("paper_b1/scenario3/summary.csv"),
        ratings=DATA_FILES["movielens_latest_small"][0],
        library=script_files(script_path("compare_paper_b1"), SRC),
    output:
        table=R("comparison/paper_b1.csv"),
        summary=report(
            R("comparison/paper_b1_summary.csv"),
            caption="../report/comparison.rst",
            category="Comparison",
            labels={"comparison": "paper_b1"},
        ),
    log:
        R("logs/comparison/paper_b1.log"),
    benchmark:
        R("benchmarks/comparison/paper_b1.tsv")
    conda:
        "../../envs/estimate.yaml"
    script:
        "../../scripts/compare_paper_b1.py"


rule deviations:
    input:
        deviations="resources/deviations.yaml",
        summaries=(
            [R("comparison/paper_a_summary.csv")] if "authors" in PROTOCOLS else []
        )
        + [
            R("comparison/paper_b1_summary.csv"),
            R("comparison/paper_b2_summary.csv"),
        ],
        library=script_files(script_path("deviations"), SRC),
    output:
        report(
            R("report/deviations.html"),
            caption="../report/deviations.rst",
            category="Comparison",
            subcategory="Deviations",
        ),
    log:
        R("logs/report/deviations.log"),
    conda:
        "../../envs/plot.yaml"
    script:
        "../../scripts/deviations.py"


rule runtime_report:
    input:
        rules.paper_a.input,
        rules.paper_b1.input,
        rules.paper_b2.input,
        library=script_files(script_path("runtime_report"), SRC),
    output:
        report(
            R("report/runtime.csv"),
            caption="../report/runtime.rst",
            category="Runtime",
        ),
    log:
        R("logs/report/runtime.log"),
    conda:
        "../../envs/plot.yaml"
    params:
        bench=R("benchmarks"),
    script:
        "../../scripts/runtime_report.py"


rule report_pages:
    input:
        R("audit/privacy.csv"),
        rules.compare_paper_a.output if "authors" in PROTOCOLS else [],
        rules.compare_paper_b1.output,
        rules.deviations.output,
        rules.runtime_report.output,


# The documentation's tables from this run (not part of `all`: it rewrites committed files).
# After a full run: make docs-includes, then commit docs/includes/.
DOCS_COMPARISONS = (
    ["paper_a_edge", "paper_a_individual"] if "authors" in PROTOCOLS else []
) + ["paper_b2", "paper_b1"]


rule docs_includes:
    input:
        rules.runtime_report.output,
        summaries=[R(f"comparison/{c}_summary.csv") for c in DOCS_COMPARISONS],
        audit=R("audit/privacy.csv"),
        deviations="resources/deviations.yaml",
        library=script_files(script_path("docs_includes"), SRC),
    output:
        [
            f"docs/includes/{name}.md"
            for name in (
                "runtime_paper_a",
                "runtime_paper_b2",
                "agreement",
                "audit",
                "deviations",
                *(f"fidelity_{c}" for c in DOCS_COMPARISONS),
            )
        ],
    log:
        R("logs/report/docs_includes.log"),
    conda:
        "../../envs/plot.yaml"
    params:
        names=DOCS_COMPARISONS,
        outdir=lambda w, output: str(Path(output[0]).parent),
        bench=R("benchmarks"),
    script:
        "../../scripts/docs_includes.py"


rule audit_privacy:
    input:
        library=script_files(script_path("audit_privacy"), SRC),
    output:
        report(
            R("audit/privacy.csv"),
            caption="../report/audit.rst",
            category="Audit",
        ),
    log:
        R("logs/audit/privacy.log"),
    benchmark:
        R("benchmarks/audit/privacy.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        settings=lambda w: canonical(config["audit"]),
        seed=config["seed"],
    script:
        "../../scripts/audit_privacy.py"
