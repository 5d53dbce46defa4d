rule privatize:
    input:
        library=library("privatize", "privatize"),
    output:
        intermediate(
            "results/{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.npz"
        ),
    log:
        "results/logs/{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.log",
    benchmark:
        "results/benchmarks/{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.tsv"
    conda:
        "../../envs/simulate.yaml"
    params:
        job=job_params("privatize"),
    script:
        "../../scripts/privatize.py"
