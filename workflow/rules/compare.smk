EDGE_PUBLISHED = [
    "resources/published/paper_a/edge_dp_fig1-3_summary.csv",
    "resources/published/paper_a/edge_dp_fig4_summary.csv",
]


rule compare_paper_a_edge:
    input:
        published=EDGE_PUBLISHED,
        overlap="resources/published/paper_a/edge_dp_exp2_vs_exp3_overlap.csv",
        summaries=summary_files(
            "paper_a_edge", list(config["paper_a_edge"]["experiments"]), "authors"
        ),
        library=script_files(script_path("compare_paper_a_edge"), SRC),
    output:
        table=R("comparison/paper_a_edge.csv"),
        summary=R("comparison/paper_a_edge_summary.csv"),
    log:
        R("logs/comparison/paper_a_edge.log"),
    benchmark:
        R("benchmarks/comparison/paper_a_edge.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        z=config["comparison"]["z"],
    script:
        "../../scripts/compare_paper_a_edge.py"


rule compare_paper_a_individual:
    input:
        digitized="resources/published/paper_a/individual_dp_fig5-8_digitized.csv",
        printed="resources/published/paper_a/individual_dp_fig7_printed_rerun.csv",
        summaries=summary_files(
            "paper_a_individual",
            list(config["paper_a_individual"]["experiments"]),
            "authors",
        ),
        real=summary_files(
            "paper_a_real", list(config["paper_a_real"]["datasets"]), "authors"
        ),
        library=script_files(script_path("compare_paper_a_individual"), SRC),
    output:
        table=R("comparison/paper_a_individual.csv"),
        summary=R("comparison/paper_a_individual_summary.csv"),
    log:
        R("logs/comparison/paper_a_individual.log"),
    benchmark:
        R("benchmarks/comparison/paper_a_individual.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        z=config["comparison"]["z"],
    script:
        "../../scripts/compare_paper_a_individual.py"


rule compare_paper_b2:
    input:
        summaries=[
            R(f"paper_b2/{spec['experiment']}/summary.csv")
            for spec in B2_TABLES.values()
        ],
        published=[spec["published"] for spec in B2_TABLES.values()],
        car_ranks=R("paper_b2/car/nonprivate.json"),
        car_table2=R("paper_b2/car/table2.csv"),
        car_published=[
            "resources/published/paper_b/B2-Table1_car_attributes_ranking.csv",
            "resources/published/paper_b/B2-Table2_car_full_ranking_error_ttests.csv",
        ],
        library=script_files(script_path("compare_paper_b2"), SRC),
    output:
        table=R("comparison/paper_b2.csv"),
        summary=R("comparison/paper_b2_summary.csv"),
    log:
        R("logs/comparison/paper_b2.log"),
    benchmark:
        R("benchmarks/comparison/paper_b2.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        names=[f"B2 Table {name[5:]}" for name in B2_TABLES],
        z=config["comparison"]["z"],
    script:
        "../../scripts/compare_paper_b2.py"


rule paper_a_compare:
    input:
        (
            rules.compare_paper_a_edge.output + rules.compare_paper_a_individual.output
            if "authors" in PROTOCOLS
            else []
        ),


#: What each paper's aggregate rule (generated in items.smk) builds beyond its declared items:
#: the comparisons with the published numbers, B2's timing table, B1's trends
PAPER_EXTRAS = {
    "paper_a": rules.paper_a_compare.input,
    "paper_b1": rules.table1_paper_b1.output,
    "paper_b2": [
        *(R(f"paper_b2/{e}/scaling.csv") for e in TIMING_EXPERIMENTS),
        *rules.compare_paper_b2.output,
    ],
}
