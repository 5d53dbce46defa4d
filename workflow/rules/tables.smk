rule table_paper_b:
    input:
        summary=lambda w: R(
            "{study}/{experiment}/summary.csv".format(**item(w.bpaper, w.table))
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
        table=lambda w: canonical(item_settings(item(w.bpaper, w.table))),
        caption=item_caption(None),
    script:
        "../../scripts/table_paper_b.py"


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
        caption=item("paper_b1", "table1")["caption"],
    script:
        "../../scripts/table1_paper_b1.py"
