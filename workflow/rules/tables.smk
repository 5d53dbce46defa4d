rule table_paper_b2:
    input:
        summary=lambda w: (
            f"results/paper_b2/{config['paper_b2']['tables'][w.table]['experiment']}/summary.csv"
        ),
        library=script_files(script_path("table_paper_b2"), SRC),
    output:
        csv="results/tables/paper_b2/{table}.csv",
        md="results/tables/paper_b2/{table}.md",
        tex="results/tables/paper_b2/{table}.tex",
    log:
        "results/logs/tables/paper_b2/{table}.log",
    benchmark:
        "results/benchmarks/tables/paper_b2/{table}.tsv"
    wildcard_constraints:
        table=r"table\d+",
    conda:
        "../../envs/plot.yaml"
    params:
        table=lambda w: canonical(config["paper_b2"]["tables"][w.table]),
    script:
        "../../scripts/table_paper_b2.py"


rule paper_b2_table3:
    input:
        expand("results/tables/paper_b2/table3.{ext}", ext=TABLE_EXT),


rule paper_b2_table4:
    input:
        expand("results/tables/paper_b2/table4.{ext}", ext=TABLE_EXT),


rule paper_b2_table5:
    input:
        expand("results/tables/paper_b2/table5.{ext}", ext=TABLE_EXT),


rule paper_b2_table6:
    input:
        expand("results/tables/paper_b2/table6.{ext}", ext=TABLE_EXT),


rule paper_b2_table7:
    input:
        expand("results/tables/paper_b2/table7.{ext}", ext=TABLE_EXT),


rule paper_b2_table8:
    input:
        expand("results/tables/paper_b2/table8.{ext}", ext=TABLE_EXT),


rule paper_b2_table9:
    input:
        expand("results/tables/paper_b2/table9.{ext}", ext=TABLE_EXT),


rule paper_b2_table10:
    input:
        expand("results/tables/paper_b2/table10.{ext}", ext=TABLE_EXT),


rule paper_b2_table11:
    input:
        expand("results/tables/paper_b2/table11.{ext}", ext=TABLE_EXT),
