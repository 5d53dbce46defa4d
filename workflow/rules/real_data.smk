rule real_data_metrics:
    input:
        wins=R("paper_a_real/{dataset}/wins.csv"),
        library=script_files(script_path("real_data_metrics"), SRC),
    output:
        R("paper_a_real/{dataset}/{protocol}/metrics.csv"),
    log:
        R("logs/paper_a_real/{dataset}/{protocol}/metrics.log"),
    benchmark:
        R("benchmarks/paper_a_real/{dataset}/{protocol}/metrics.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(real_data_kwargs(w.dataset, w.protocol)),
    script:
        "../../scripts/real_data_metrics.py"


rule aggregate_real_data:
    input:
        **{
            f"metrics_{p}": R(f"paper_a_real/{{dataset}}/{p}/metrics.csv")
            for p in PROTOCOLS
        },
        library=library("aggregate_metrics"),
    output:
        **{p: R(f"paper_a_real/{{dataset}}/{p}/summary.csv") for p in PROTOCOLS},
    log:
        R("logs/paper_a_real/{dataset}/summary.log"),
    benchmark:
        R("benchmarks/paper_a_real/{dataset}/summary.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        protocols=PROTOCOLS,
    script:
        "../../scripts/aggregate_metrics.py"


rule car_paper_b2:
    input:
        data=DATA_FILES["car_preferences"],
        library=script_files(script_path("car_paper_b2"), SRC),
    output:
        replicates=R("paper_b2/car/replicates.csv"),
        table2=R("paper_b2/car/table2.csv"),
        nonprivate=R("paper_b2/car/nonprivate.json"),
    log:
        R("logs/paper_b2/car/replicates.log"),
    benchmark:
        R("benchmarks/paper_b2/car/replicates.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical({**config["paper_b2"]["car"], "seed": config["seed"]}),
    script:
        "../../scripts/car_paper_b2.py"


rule car_tables_paper_b2:
    input:
        nonprivate=R("paper_b2/car/nonprivate.json"),
        table2=R("paper_b2/car/table2.csv"),
        library=script_files(script_path("table_car_paper_b2"), SRC),
    output:
        table1=[
            R("tables/paper_b2/table1.csv"),
            R("tables/paper_b2/table1.md"),
            R("tables/paper_b2/table1.tex"),
            report(
                R("tables/paper_b2/table1.html"),
                caption=REPORT_ITEM,
                category="Paper B2",
                subcategory="tables",
                labels={"table": "Table 01"},
            ),
        ],
        table2=[
            R("tables/paper_b2/table2.csv"),
            R("tables/paper_b2/table2.md"),
            R("tables/paper_b2/table2.tex"),
            report(
                R("tables/paper_b2/table2.html"),
                caption="../report/second_item.rst",
                category="Paper B2",
                subcategory="tables",
                labels={"table": "Table 02"},
            ),
        ],
    log:
        R("logs/tables/paper_b2/car.log"),
    benchmark:
        R("benchmarks/tables/paper_b2/car.tsv")
    conda:
        "../../envs/plot.yaml"
    params:
        # the declared captions (Table 2's with the run's replicates): the files' and the report's
        caption=item("paper_b2", "table1")["caption"],
        second_caption=item("paper_b2", "table2")["caption"].format(
            replicates=config["paper_b2"]["car"]["reps"]
        ),
    script:
        "../../scripts/table_car_paper_b2.py"


rule movielens_paper_b1:
    input:
        ratings=DATA_FILES["movielens_latest_small"][0],
        library=script_files(script_path("movielens_paper_b1"), SRC),
    output:
        R("paper_b1/movielens/metrics/scheme{scheme}.csv"),
    log:
        R("logs/paper_b1/movielens/metrics/scheme{scheme}.log"),
    benchmark:
        R("benchmarks/paper_b1/movielens/metrics/scheme{scheme}.tsv")
    wildcard_constraints:
        scheme="[123]",
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(
            {
                **{
                    k: v
                    for k, v in config["paper_b1"]["movielens"].items()
                    if k != "schemes"
                },
                "scheme": int(w.scheme),
                "seed": config["seed"],
            }
        ),
    script:
        "../../scripts/movielens_paper_b1.py"


rule collect_movielens_paper_b1:
    input:
        metrics=expand(
            R("paper_b1/movielens/metrics/scheme{scheme}.csv"),
            scheme=config["paper_b1"]["movielens"]["schemes"],
        ),
        library=library("collect_metrics"),
    output:
        replicates=R("paper_b1/movielens/replicates.csv"),
        summary=R("paper_b1/movielens/summary.csv"),
    log:
        R("logs/paper_b1/movielens/replicates.log"),
    benchmark:
        R("benchmarks/paper_b1/movielens/replicates.tsv")
    conda:
        "../../envs/estimate.yaml"
    script:
        "../../scripts/collect_metrics.py"
