# The report's own pages and Paper-level comparison tables. Build the report with
#   snakemake --report results/report.html --report-stylesheet workflow/report/style.css
#   (after a run; add --configfile for the smoke scale; make report adds the built studies)


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
        summary=R("comparison/paper_b1_summary.csv"),
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
            category="Agreement with the papers",
            subcategory="Deviations",
            labels={"page": "Deviations from the papers' text"},
        ),
    log:
        R("logs/report/deviations.log"),
    conda:
        "../../envs/plot.yaml"
    script:
        "../../scripts/deviations.py"


rule runtime_report:
    input:
        [getattr(rules, paper).input for paper in PAPERS],
        library=script_files(script_path("runtime_report"), SRC),
    output:
        R("report/runtime.csv"),
    log:
        R("logs/report/runtime.log"),
    conda:
        "../../envs/plot.yaml"
    params:
        bench=R("benchmarks"),
    script:
        "../../scripts/runtime_report.py"


#: The CSV outputs the report shows as HTML tables (rules report_page_<page>): page -> the CSV,
#: its category, subcategory, label and caption (and, for a study beyond the papers, the
#: study whose target builds the page).
REPORT_PAGES = {
    **{
        name: {
            "csv": R(f"comparison/{name}_summary.csv"),
            "category": "Agreement with the papers",
            "subcategory": part,
            "label": label,
            "caption": comparison_caption(label, name),
        }
        for name, part, label in (
            ("paper_a_edge", "Paper A", "Paper A, edge DP (Figures 1-4)"),
            (
                "paper_a_individual",
                "Paper A",
                "Paper A, individual DP and real data (Figures 5-8)",
            ),
            ("paper_b2", "Paper B2", "Paper B2 (Tables 1-11)"),
            ("paper_b1", "Paper B1", "Paper B1 (Table 1 and the text)"),
        )
        if "authors" in PROTOCOLS or not name.startswith("paper_a")
    },
    "audit": {
        "csv": R("audit/privacy.csv"),
        "category": "Audit",
        "subcategory": "Privacy audit",
        "label": "Privacy audit",
        "caption": rst_text("audit"),
    },
    "runtime": {
        "csv": R("report/runtime.csv"),
        "category": "Runtime",
        "subcategory": "Runtime",
        "label": "Runtime per stage",
        "caption": rst_text("runtime"),
    },
    # the tables of the studies beyond the papers: built by the study's target, not by `all`
    **{
        page: {
            "csv": R(csv),
            "category": category,
            "subcategory": subcategory,
            "label": label,
            "caption": rst_text(rst),
            "study": study,
        }
        for page, csv, category, subcategory, label, rst, study in (
            (
                "scale_fit",
                "beyond/scale_fit.csv",
                "Benchmark",
                "scale study",
                "rate fit (Theorem 2.1)",
                "beyond_scale",
                "beyond_scale",
            ),
            (
                "intervals_coverage",
                "tables/intervals/coverage.csv",
                "Benchmark",
                "intervals",
                "coverage of score and rank intervals",
                "intervals",
                "intervals",
            ),
            (
                "privacy_harness",
                "tables/audit/privacy_harness.csv",
                "Audit",
                "Privacy harness",
                "every release path in the DP game",
                "privacy_harness",
                "privacy_audit_full",
            ),
            (
                "arena_price",
                "tables/arena/price_of_privacy.csv",
                "Benchmark",
                "arena",
                "price of privacy for a leaderboard",
                "arena",
                "arena",
            ),
            (
                "sensitivity_scenario3",
                "sensitivity/scenario3/check_summary.csv",
                "Agreement with the papers",
                "Sensitivity study (B2)",
                "Scenario III: fit and held-out check",
                "sensitivity",
                "sensitivity",
            ),
            (
                "sensitivity_settings",
                "sensitivity/settings.csv",
                "Agreement with the papers",
                "Sensitivity study (B2)",
                "Scenario V: every setting",
                "sensitivity",
                "sensitivity",
            ),
        )
    },
}


# One rule per page, report_page_<page>: the report's rule graph draws a rule once per depth
# of the DAG at which it has jobs, and the pages' CSVs come at different depths (the audit
# after one job, the runtime after all), so one generic rule would appear several times.
for _page, _entry in REPORT_PAGES.items():

    rule:
        name:
            f"report_page_{_page}"
        input:
            csv=_entry["csv"],
            library=script_files(script_path("report_page"), SRC),
        output:
            report(
                R(f"report/pages/{_page}.html"),
                caption="../report/page.rst",
                category=_entry["category"],
                subcategory=_entry["subcategory"],
                labels={"page": _entry["label"]},
            ),
        log:
            R(f"logs/report/pages/{_page}.log"),
        conda:
            "../../envs/plot.yaml"
        params:
            page=_page,
            caption=_entry["caption"],
            notes=[],
        script:
            "../../scripts/report_page.py"


#: The landing page's subcategory of "Agreement with the papers" (the report lists a
#: category's subcategories in alphabetical order: this name comes first)
OVERVIEW_SUBCATEGORY = "All papers (overview)"
#: The comparison summaries behind the landing page, per paper part
OVERVIEW_PARTS = {
    **(
        {"Paper A": R("comparison/paper_a_summary.csv")}
        if "authors" in PROTOCOLS
        else {}
    ),
    "Paper B2": R("comparison/paper_b2_summary.csv"),
    "Paper B1": R("comparison/paper_b1_summary.csv"),
}


rule report_overview:
    input:
        summaries=list(OVERVIEW_PARTS.values()),
        library=script_files(script_path("report_overview"), SRC),
    output:
        report(
            R("report/overview.html"),
            caption="../report/overview.rst",
            category="Agreement with the papers",
            # the report sorts subcategories by name: this one first, before "Deviations"
            subcategory=OVERVIEW_SUBCATEGORY,
            labels={"page": "Agreement in this run"},
        ),
    log:
        R("logs/report/overview.log"),
    conda:
        "../../envs/plot.yaml"
    params:
        parts=OVERVIEW_PARTS,
    script:
        "../../scripts/report_overview.py"


rule report_pages:
    input:
        R("audit/privacy.csv"),
        rules.compare_paper_a.output if "authors" in PROTOCOLS else [],
        rules.compare_paper_b1.output,
        rules.deviations.output,
        rules.runtime_report.output,
        rules.report_overview.output,
        expand(
            R("report/pages/{page}.html"),
            page=[p for p, entry in REPORT_PAGES.items() if "study" not in entry],
        ),


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
        # Paper A's and B2's declarations (workflow/papers/: their items, captions included)
        # and the config sections of the studies they show, in declaration and config order
        papers={p: PAPERS[p] for p in ("paper_a", "paper_b2")},
        sections={
            study: config[study]
            for study in (
                "paper_a_edge",
                "paper_a_individual",
                "paper_a_real",
                "paper_b2",
            )
        },
        outdir=lambda w, output: str(Path(output[0]).parent),
        bench=R("benchmarks"),
    script:
        "../../scripts/docs_includes.py"


rule audit_privacy:
    input:
        library=script_files(script_path("audit_privacy"), SRC),
    output:
        R("audit/privacy.csv"),
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
