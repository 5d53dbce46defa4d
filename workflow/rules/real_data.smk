rule real_data_metrics:
    input:
        wins="results/paper_a_real/{dataset}/wins.csv",
        library=script_files(script_path("real_data_metrics"), SRC),
    output:
        "results/paper_a_real/{dataset}/{protocol}/metrics.csv",
    log:
        "results/logs/paper_a_real/{dataset}/{protocol}/metrics.log",
    benchmark:
        "results/benchmarks/paper_a_real/{dataset}/{protocol}/metrics.tsv"
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(real_data_kwargs(w.dataset, w.protocol)),
    script:
        "../../scripts/real_data_metrics.py"


rule aggregate_real_data:
    input:
        metrics="results/paper_a_real/{dataset}/{protocol}/metrics.csv",
        library=library("aggregate_metrics"),
    output:
        "results/paper_a_real/{dataset}/{protocol}/summary.csv",
    log:
        "results/logs/paper_a_real/{dataset}/{protocol}/summary.log",
    benchmark:
        "results/benchmarks/paper_a_real/{dataset}/{protocol}/summary.tsv"
    conda:
        "../../envs/estimate.yaml"
    script:
        "../../scripts/aggregate_metrics.py"
