rule simulate_comparisons:
    input:
        library=library("simulate_comparisons", "simulate"),
    output:
        "results/{study}/{experiment}/data/{cell}/chunk{chunk}.npz",
    log:
        "results/logs/{study}/{experiment}/data/{cell}/chunk{chunk}.log",
    benchmark:
        "results/benchmarks/{study}/{experiment}/data/{cell}/chunk{chunk}.tsv"
    conda:
        "../../envs/simulate.yaml"
    params:
        job=job_params("simulate"),
    script:
        "../../scripts/simulate_comparisons.py"
