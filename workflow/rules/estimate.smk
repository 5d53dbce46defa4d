rule estimate:
    input:
        data="results/{study}/{experiment}/data/{cell}/chunk{chunk}.npz",
        noise="results/{study}/{experiment}/{protocol}/noise/{cell}/chunk{chunk}.npz",
        library=library("estimate", "estimate"),
    output:
        "results/{study}/{experiment}/{protocol}/estimates/{cell}/chunk{chunk}.npz",
    log:
        "results/logs/{study}/{experiment}/{protocol}/estimates/{cell}/chunk{chunk}.log",
    benchmark:
        "results/benchmarks/{study}/{experiment}/{protocol}/estimates/{cell}/chunk{chunk}.tsv"
    conda:
        "../../envs/estimate.yaml"
    params:
        job=job_params("estimate"),
    script:
        "../../scripts/estimate.py"
