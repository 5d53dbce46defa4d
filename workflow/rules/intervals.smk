# The coverage study of the intervals for scores and ranks (docs/intervals.md): fixed
# truth and graph per design (edge, individual, local DP; heavy-tailed graphs, 20 to 5000
# items, tight, wide and tied scores, users unlike the declared design, budget mixtures,
# Thurstone), per-item coverage, and the parametric bootstrap of the release beside it.
# Its own target, not part of `all`.
#
#   results/intervals/{design}.csv                    intervals_design (one job per design)
#   results/tables/intervals/coverage.{csv,md}        intervals_table
#   results/figures/intervals/coverage.{pdf,png,csv}  intervals_figure
#   docs/includes/intervals_coverage.md               intervals_docs (then commit it)
# Target: intervals.

from dprank_papers.studies import intervals as _iv

IV = config.get("intervals") or {}
IV_DESIGNS = _iv.selected_designs(IV)
IV_SETTINGS = {k: IV[k] for k in ("level", "n_boot", "comparator") if k in IV}


rule intervals_design:
    input:
        library=script_files(script_path("intervals_design"), SRC),
    output:
        R("intervals/{design}.csv"),
    log:
        R("logs/intervals/{design}.log"),
    benchmark:
        R("benchmarks/intervals/{design}.tsv")
    wildcard_constraints:
        design="|".join(IV_DESIGNS) or "none",
    conda:
        "../../envs/estimate.yaml"
    resources:
        mem_mb=1000,
    params:
        job=lambda w: canonical(
            {
                "design": w.design,
                "spec": IV_DESIGNS[w.design],
                "settings": IV_SETTINGS,
                "reps": IV_DESIGNS[w.design].get("reps", IV["reps"]),
                "seed": config["seed"],
            }
        ),
    script:
        "../../scripts/intervals_design.py"


rule intervals_table:
    input:
        rows=expand(R("intervals/{design}.csv"), design=IV_DESIGNS),
        library=script_files(script_path("intervals_table"), SRC),
    output:
        csv=R("tables/intervals/coverage.csv"),
        md=R("tables/intervals/coverage.md"),
    log:
        R("logs/intervals/table.log"),
    benchmark:
        R("benchmarks/intervals/table.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        designs=IV_DESIGNS,
        level=IV.get("level"),
        target=IV.get("target"),
        item_target=IV.get("item_target"),
    script:
        "../../scripts/intervals_table.py"


rule intervals_figure:
    input:
        table=R("tables/intervals/coverage.csv"),
        library=script_files(script_path("intervals_figure"), SRC),
    output:
        pdf=R("figures/intervals/coverage.pdf"),
        png=report(
            R("figures/intervals/coverage.png"),
            caption="../report/intervals.rst",
            category="Benchmark",
            subcategory="intervals",
            labels={"figure": "coverage of score and rank intervals"},
        ),
        csv=R("figures/intervals/coverage.csv"),
    log:
        R("logs/intervals/figure.log"),
    benchmark:
        R("benchmarks/intervals/figure.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        level=IV.get("level"),
        target=IV.get("target"),
        item_target=IV.get("item_target"),
    script:
        "../../scripts/intervals_figure.py"


rule intervals:
    input:
        study_pages("intervals"),
        rules.intervals_table.output,
        rules.intervals_figure.output,


# After the paper-scale run: make docs-includes (it runs this rule once the table exists),
# then commit the include.
rule intervals_docs:
    input:
        table=R("tables/intervals/coverage.csv"),
        library=script_files(script_path("intervals_docs"), SRC),
    output:
        "docs/includes/intervals_coverage.md",
    log:
        R("logs/intervals/docs.log"),
    conda:
        "../../envs/plot.yaml"
    script:
        "../../scripts/intervals_docs.py"
