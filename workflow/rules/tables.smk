rule table_paper_b:
    input:
        summary=lambda w: (
            R(
                f"{w.bpaper}/{config[w.bpaper]['tables'][w.table]['experiment']}/summary.csv"
            )
        ),
        library=script_files(script_path("table_paper_b"), SRC),
    output:
        csv=R("tables/{bpaper}/{table}.csv"),
        md=R("tables/{bpaper}/{table}.md"),
        tex=R("tables/{bpaper}/{table}.tex"),
        html=report(
            R("tables/{bpaper}/{table}.html"),
            caption=REPORT_ITEM,
            category=report_paper,
            subcategory="tables",
            labels=table_labels,
        ),
    log:
        R("logs/tables/{bpaper}/{table}.log"),
    benchmark:
        R("benchmarks/tables/{bpaper}/{table}.tsv")
    wildcard_constraints:
        table="|".join(SIM_TABLES),
    conda:
        "../../envs/plot.yaml"
    params:
        table=lambda w: canonical(config[w.bpaper]["tables"][w.table]),
        caption=lambda w: config[w.bpaper]["tables"][w.table]["caption"],
    script:
        "../../scripts/table_paper_b.py"


rule paper_b2_table3:
    input:
        expand(R("tables/paper_b2/table3.{ext}"), ext=TABLE_EXT),


rule paper_b2_table4:
    input:
        expand(R("tables/paper_b2/table4.{ext}"), ext=TABLE_EXT),


rule paper_b2_table5:
    input:
        expand(R("tables/paper_b2/table5.{ext}"), ext=TABLE_EXT),


rule paper_b2_table6:
    input:
        expand(R("tables/paper_b2/table6.{ext}"), ext=TABLE_EXT),


rule paper_b2_table7:
    input:
        expand(R("tables/paper_b2/table7.{ext}"), ext=TABLE_EXT),


rule paper_b2_table8:
    input:
        expand(R("tables/paper_b2/table8.{ext}"), ext=TABLE_EXT),


rule paper_b2_table9:
    input:
        expand(R("tables/paper_b2/table9.{ext}"), ext=TABLE_EXT),


rule paper_b2_table10:
    input:
        expand(R("tables/paper_b2/table10.{ext}"), ext=TABLE_EXT),


rule paper_b2_table11:
    input:
        expand(R("tables/paper_b2/table11.{ext}"), ext=TABLE_EXT),


rule table1_paper_b1:
    input:
        summary=R("paper_b1/scenario2/summary.csv"),
        published="resources/published/paper_b/B1-Table1_scheme_behavior.csv",
        library=script_files(script_path("table1_paper_b1"), SRC),
    output:
        csv=R("tables/paper_b1/table1.csv"),
        md=R("tables/paper_b1/table1.md"),
        tex=R("tables/paper_b1/table1.tex"),
        html=report(
            R("tables/paper_b1/table1.html"),
            caption=REPORT_ITEM,
            category="Paper B1",
            subcategory="tables",
            labels={"table": "Table 01"},
        ),
        trends=R("paper_b1/scenario2/trends.csv"),
    log:
        R("logs/tables/paper_b1/table1.log"),
    benchmark:
        R("benchmarks/tables/paper_b1/table1.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        caption=(
            "Paper B (B1) Table 1: the behaviour of the errors as L grows under the three "
            "schemes, the paper's (theory) beside ours (measured from Figure 3)."
        ),
    script:
        "../../scripts/table1_paper_b1.py"


rule paper_b1_table1:
    input:
        rules.table1_paper_b1.output,
